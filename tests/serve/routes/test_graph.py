"""GET /entities, /entities/{id}, /paths and /communities over real HTTP, each checked against the
store itself (or the command line) rather than against numbers written here."""

from __future__ import annotations

import httpx
import pytest
from serve_kit import cli_json

from hopgraph.config import Settings
from hopgraph.engine import HopGraph


@pytest.fixture(scope="module")
def graph(sample_store):
    with HopGraph(str(sample_store), Settings(), create=False) as hg:
        yield hg.knowledge_graph


def test_entities_are_found_by_part_of_their_name_exact_first(server, graph):
    found = httpx.get(f"{server}/entities", params={"q": "burbank"}).json()
    assert found[0]["name"] == "Burbank"
    assert all("burbank" in e["name"].casefold() or any("burbank" in a.casefold() for a in e["aliases"])
               for e in found)
    wanted = {e.id for e in graph.entities.values()
              if any("burbank" in s.casefold() for s in (e.name, *e.aliases))}
    assert {e["id"] for e in found} == wanted
    assert httpx.get(f"{server}/entities", params={"q": "qqqxqqq"}).json() == []
    assert len(httpx.get(f"{server}/entities", params={"limit": 3}).json()) == 3


def test_an_entity_comes_with_its_neighbours_and_the_chunks_stating_them(server, graph):
    burbank = graph.find("Burbank")
    got = httpx.get(f"{server}/entities/{burbank.id}", params={"limit": 1000}).json()
    assert got["name"] == "Burbank" and got["relations"] == len(got["neighbours"])
    expected = {(r.relation, r.target if r.source == burbank.id else r.source) for r in graph.relations
                if burbank.id in (r.source, r.target)}
    assert {(n["relation"], n["entity"]["id"]) for n in got["neighbours"]} == expected
    located = next(n for n in got["neighbours"] if n["relation"] == "LOCATED_IN" and n["direction"] == "out")
    assert located["entity"]["name"] == "California"
    assert all(s["citation"] for n in got["neighbours"] for s in n["sources"])
    assert {s["chunk"] for s in got["sources"]} == burbank.chunks


def test_an_unknown_entity_is_404(server):
    refused = httpx.get(f"{server}/entities/999999")
    assert refused.status_code == 404 and refused.json() == {"error": "no entity with id 999999"}
    assert httpx.get(f"{server}/entities/burbank").status_code == 422


@pytest.mark.parametrize("params", [{"to": "California"}, {"to": "california", "max_hops": 1},
                                    {"to": "High Impact Games", "direction": "out", "follow": "all"}])
def test_paths_are_those_of_the_command_line(server, sample_store, params):
    got = httpx.get(f"{server}/paths", params=params)
    assert got.status_code == 200, got.text
    flags = [part for key, value in params.items() for part in (f"--{key.replace('_', '-')}", str(value))]
    expected = cli_json("paths", *flags, "--store", str(sample_store))
    assert got.json()["paths"] == expected and expected
    assert set(got.json()["citations"]) == {str(hop["chunk_id"]) for path in expected for hop in path}


def test_bad_path_queries_are_refused_with_their_status(server):
    unknown = httpx.get(f"{server}/paths", params={"to": "Nowhereville"})
    assert unknown.status_code == 404 and "Nowhereville" in unknown.json()["error"]
    assert httpx.get(f"{server}/paths", params={"to": "California", "direction": "sideways"}).status_code == 422
    assert httpx.get(f"{server}/paths", params={"to": "California", "max_hops": 9}).status_code == 422
    assert httpx.get(f"{server}/paths").status_code == 422
    bad_date = httpx.get(f"{server}/paths", params={"to": "California", "as_of": "soon"})
    assert bad_date.status_code == 400 and "soon" in bad_date.json()["error"]


def test_communities_are_the_stored_tree_with_members(server, sample_store):
    got = httpx.get(f"{server}/communities", timeout=300)
    assert got.status_code == 200, got.text
    with HopGraph(str(sample_store), Settings(), create=False) as hg:
        tree = hg.store.community_tree()  # the server built and stored it
        members = {e.id: e.name for e in hg.knowledge_graph.entities.values()}
    body = got.json()
    assert body["count"] == len(tree) == len(body["communities"]) and body["levels"] == tree.levels
    for listed, community in zip(body["communities"], tree.communities, strict=True):
        assert listed["size"] == community.size and listed["parent"] == community.parent
        assert set(listed["entities"]) <= {members[e] for e in community.entities}
    assert httpx.get(f"{server}/communities").json() == body  # stored: the same tree again
