"""The walked name-link graph of a question, from the hits that say how they were reached."""

from __future__ import annotations

from hopgraph.records.retrieval import Hit, Retrieval, Via
from hopgraph.serve.walked import walked_graph


def test_seeds_names_followed_and_linked_chunks_with_ppr_mass():
    hits = Retrieval("ppr", [
        Hit(1, 1, "Big Stone Gap (film)", "…", 1.0, "name", Via(0, "question", "Big Stone Gap"), source="bsg#1"),
        Hit(2, 2, "Gap Inc.", "…", 0.2, "hybrid"),
        Hit(3, 3, "Adriana Trigiani", "…", 0.3, "ppr", Via(1, "Big Stone Gap (film)", "Adriana Trigiani")),
        Hit(4, 4, "Greenwich Village", "…", 0.05, "link", Via(9, "Trigiani interview", "Greenwich Village")),
    ]).hits
    walk = walked_graph(hits)
    kinds = {n["id"]: n["kind"] for n in walk["nodes"]}
    assert kinds == {"question": "question", "chunk:1": "seed", "name:big stone gap": "name", "chunk:2": "seed",
                     "chunk:3": "linked", "name:adriana trigiani": "name", "chunk:4": "linked",
                     "chunk:9": "walked", "name:greenwich village": "name"}
    edges = {(e["source"], e["target"]) for e in walk["edges"]}
    assert edges == {("question", "name:big stone gap"), ("name:big stone gap", "chunk:1"),
                     ("chunk:1", "name:adriana trigiani"), ("name:adriana trigiani", "chunk:3"),
                     ("chunk:9", "name:greenwich village"), ("name:greenwich village", "chunk:4")}
    mass = {n["id"]: n.get("mass") for n in walk["nodes"]}
    assert mass["chunk:3"] == 0.3 and mass["chunk:1"] is None  # the PPR hit's mass sizes its node
    assert next(n for n in walk["nodes"] if n["id"] == "chunk:1")["label"] == "Big Stone Gap (film) (bsg#1)"
