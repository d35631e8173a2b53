"""Triple import: reading the CSV (header, empty fields, dates), facts per chunk, and importing into a store."""

from __future__ import annotations

from pathlib import Path

import pytest
from testkit import BagOfWordsEmbedder

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.errors import InputError
from hopgraph.kg.extractors.triples import Triple, normalise_relation, read_triples, source_texts, triple_facts
from hopgraph.kg.facts import Vocabulary
from hopgraph.records.knowledge import RawEntity, RawRelation

HEADER = "subject,relation,object,source,date,subject_type,object_type\n"


def write(folder: Path, text: str, name: str = "triples.csv") -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


# --- reading the CSV ---------------------------------------------------------------------------------


def test_read_triples_reads_every_column(tmp_path):
    path = write(tmp_path, HEADER + "Anvaya Foundry,SUPPLIES,Corvane,02_contract.md,2021-04-01,org,ORG\n")
    assert read_triples(path).triples == [
        Triple("Anvaya Foundry", "SUPPLIES", "Corvane", "02_contract.md", "2021-04-01", "ORG", "ORG")]


def test_only_the_four_required_columns_are_needed(tmp_path):
    parsed = read_triples(write(tmp_path, "subject,relation,object,source\nA,supplies,B,doc\n"))
    assert parsed.triples == [Triple("A", "SUPPLIES", "B", "doc")]
    assert parsed.skipped == []


@pytest.mark.parametrize("missing", ["subject", "relation", "object", "source"])
def test_a_header_without_a_required_column_names_it(tmp_path, missing):
    columns = [c for c in ("subject", "relation", "object", "source") if c != missing]
    path = write(tmp_path, ",".join(columns) + "\n" + ",".join("x" for _ in columns) + "\n")
    with pytest.raises(InputError, match=f"missing column\\(s\\) {missing}") as error:
        read_triples(path)
    assert str(path) in str(error.value)


def test_a_file_that_is_not_utf8_is_an_input_error(tmp_path):
    path = tmp_path / "latin1.csv"
    path.write_bytes(HEADER.encode() + "Müller,SUPPLIES,B,doc\n".encode("latin-1"))
    with pytest.raises(InputError, match="cannot read triples"):
        read_triples(path)


def test_rows_with_an_empty_field_are_skipped_with_their_line_number(tmp_path):
    path = write(tmp_path, HEADER + "A,SUPPLIES,B,doc,,,\n"
                                    "A,SUPPLIES,,doc,,,\n"
                                    "C,SUPPLIES,D,doc,,,\n"
                                    " ,OWNS,D,  ,,,\n")
    parsed = read_triples(path)
    assert [(t.subject, t.object) for t in parsed.triples] == [("A", "B"), ("C", "D")]
    assert parsed.skipped == ["line 3: empty object", "line 5: empty subject, source"]


def test_a_short_row_counts_as_empty_fields(tmp_path):
    parsed = read_triples(write(tmp_path, HEADER + "A,SUPPLIES,B,doc\nA,SUPPLIES\n"))
    assert len(parsed.triples) == 1
    assert parsed.skipped == ["line 3: empty object, source"]


@pytest.mark.parametrize(("date", "since", "until"), [
    ("", None, None),
    ("2020", "2020", None),
    ("2020-03", "2020-03", None),
    ("2020-03-15", "2020-03-15", None),
    ("2019-01-01/2024-07-01", "2019-01-01", "2024-07-01"),
    ("/2022", None, "2022"),
    ("2016/2022-12", "2016", "2022-12"),
])
def test_dates_parse_as_a_start_or_an_interval(tmp_path, date, since, until):
    triple = read_triples(write(tmp_path, HEADER + f"A,SUPPLIES,B,doc,{date},,\n")).triples[0]
    assert (triple.date, triple.until) == (since, until)


@pytest.mark.parametrize("bad", ["March 2020", "2020-3", "20", "2020-03-01/soon", "2020--01", "2025-13-45",
                                 "2025-02-30", "2025-06-30/2024-01-01", "2020/2021/2022", "0000-01-01",
                                 "0000/2020"])
def test_a_bad_date_is_a_counted_skip_not_an_error(tmp_path, bad):
    parsed = read_triples(write(tmp_path, HEADER + "A,SUPPLIES,B,doc,,,\n" + f"C,SUPPLIES,D,doc,{bad},,\n"))
    assert len(parsed.triples) == 1
    assert len(parsed.skipped) == 1
    assert parsed.skipped[0].startswith("line 3: date") and repr(bad) in parsed.skipped[0]


def test_a_relation_with_no_letter_is_a_counted_skip_not_the_empty_relation(tmp_path):
    parsed = read_triples(write(tmp_path, HEADER + "A,SUPPLIES,B,doc,,,\n" + "C,!!!,D,doc,,,\n"))
    assert [t.relation for t in parsed.triples] == ["SUPPLIES"]
    assert parsed.skipped == ["line 3: relation '!!!' has no letter or digit"]


def test_an_entity_type_outside_the_vocabulary_is_a_counted_skip_naming_the_types(tmp_path):
    rows = ("A,SUPPLIES,B,doc,,org,\n"  # case does not matter, and an empty type is unknown, not wrong
            "Kallur,LOCATED_IN,Hosur,doc,,ORG,CITY\n"
            "Kallur,SUPPLIES,Hosur,doc,,plant,town\n")
    parsed = read_triples(write(tmp_path, HEADER + rows))
    assert [(t.subject_type, t.object_type) for t in parsed.triples] == [("ORG", "")]
    types = "PERSON, ORG, PRODUCT, LOCATION, COMPONENT, EVENT, CONCEPT; the setting entity_types adds more"
    assert parsed.skipped == [f"line 3: object_type 'CITY' is not an entity type ({types})",
                              f"line 4: subject_type 'PLANT', object_type 'TOWN' are not entity types ({types})"]
    custom = read_triples(write(tmp_path, HEADER + rows), Vocabulary.parse("ORG,CITY", "SUPPLIES"))
    assert [t.object_type for t in custom.triples] == ["", "CITY"]


def test_a_relation_type_outside_the_vocabulary_is_the_file_s_own_and_kept(tmp_path):
    parsed = read_triples(write(tmp_path, HEADER + "Kallur,weird type,Hosur,doc,,ORG,LOCATION\n"))
    assert [t.relation for t in parsed.triples] == ["WEIRD_TYPE"] and parsed.skipped == []


def test_the_line_number_of_a_skipped_row_is_its_line_in_the_file(tmp_path):
    parsed = read_triples(write(tmp_path, HEADER + "A,SUPPLIES,B,doc,,,\n\nA,SUPPLIES,,doc,,,\n"))
    assert parsed.skipped == ["line 4: empty object"]


def test_a_file_with_no_usable_rows_is_an_input_error(tmp_path):
    path = write(tmp_path, HEADER + "A,SUPPLIES,,doc,,,\nA,SUPPLIES,B,doc,someday,,\n")
    with pytest.raises(InputError, match=r"no usable triples \(2 row\(s\) skipped\)"):
        read_triples(path)


def test_a_header_only_file_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="no usable triples"):
        read_triples(write(tmp_path, HEADER))


@pytest.mark.parametrize(("raw", "normalised"), [
    ("SUPPLIES", "SUPPLIES"),
    ("supplies", "SUPPLIES"),
    ("buys castings from", "BUYS_CASTINGS_FROM"),
    ("  located-in ", "LOCATED_IN"),
    ("part of / unit", "PART_OF_UNIT"),
])
def test_normalise_relation(raw, normalised):
    assert normalise_relation(raw) == normalised


# --- facts -------------------------------------------------------------------------------------------


def test_triple_facts_groups_triples_by_the_chunk_that_states_them():
    triples = [Triple("A", "SUPPLIES", "B", "doc1", "2020", "ORG", "ORG"),
               Triple("C", "OWNS", "D", "doc2"),
               Triple("B", "SUPPLIES", "E", "doc1", None, "ORG", "", "2023")]
    facts = triple_facts(triples, {0: 7, 1: 9, 2: 7}, "triples:x.csv")
    assert [(f.chunk_id, f.extractor) for f in facts] == [(7, "triples:x.csv"), (9, "triples:x.csv")]
    first = facts[0]
    assert first.relations == [RawRelation("A", "SUPPLIES", "B", "", "ORG", "ORG", "2020", None),
                               RawRelation("B", "SUPPLIES", "E", "", "ORG", "", None, "2023")]
    assert RawEntity("A", "ORG") in first.entities and RawEntity("E", "") in first.entities
    assert facts[1].relations == [RawRelation("C", "OWNS", "D")]


def test_source_texts_state_each_triple_once_as_a_sentence():
    triples = [Triple("A", "LOCATED_IN", "Hosur", "doc", "2020", until="2022"),
               Triple("A", "LOCATED_IN", "Hosur", "doc", "2020", until="2022"),
               Triple("B", "SUPPLIES", "C", "doc")]
    assert source_texts(triples) == {"doc": "A located in Hosur since 2020 until 2022.\nB supplies C."}


# --- importing into a store --------------------------------------------------------------------------

PROFILE = ("# Anvaya Foundry plant profile\n\nAnvaya Foundry runs a grey-iron plant in Hosur, Tamil Nadu. "
           "Its brake-disc castings go to Corvane Brake Systems.\n")


@pytest.fixture
def hg(tmp_path: Path):
    graph = HopGraph(str(tmp_path / "kg.db"), Settings(), embedder=BagOfWordsEmbedder())
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "01_anvaya_profile.md").write_text(PROFILE, encoding="utf-8")
    graph.index([docs])
    yield graph
    graph.close()


def relations_of(graph: HopGraph) -> list[tuple[str, str, str, list[int]]]:
    kg = graph.knowledge_graph
    return sorted((kg.entities[r.source].name, r.relation, kg.entities[r.target].name,
                   [s.chunk_id for s in r.sources]) for r in kg.relations)


def test_an_imported_edge_lands_on_the_chunk_of_its_named_source_document(hg, tmp_path):
    path = write(tmp_path, HEADER + "Anvaya Foundry,SUPPLIES,Corvane Brake Systems,01_anvaya_profile.md,2021,ORG,ORG\n")
    report = hg.import_triples(path)
    table = hg.store.chunk_table()
    profile_chunk = int(table.ids[0])
    assert (report.triples, report.new_documents, report.skipped) == (1, 0, [])
    assert relations_of(hg) == [("Anvaya Foundry", "SUPPLIES", "Corvane Brake Systems", [profile_chunk])]
    assert len(table) == 1  # no document was made up for it
    relation = hg.knowledge_graph.relations[0]
    assert relation.sources[0].doc_id == int(table.doc_ids[0])
    assert relation.valid_from == "2021"


def test_the_source_may_name_a_document_by_its_title(hg, tmp_path):
    path = write(tmp_path, HEADER + "Anvaya Foundry,LOCATED_IN,Hosur,Anvaya Foundry plant profile,,ORG,LOCATION\n")
    assert hg.import_triples(path).new_documents == 0
    assert relations_of(hg)[0][3] == [int(hg.store.chunk_table().ids[0])]


def test_a_source_that_is_not_a_document_becomes_one_stating_its_triples(hg, tmp_path):
    path = write(tmp_path, HEADER + "Corvane Brake Systems,SUPPLIES,Zephyra Motors,ERP export 2024,2024-03,ORG,ORG\n")
    report = hg.import_triples(path)
    assert report.new_documents == 1
    table = hg.store.chunk_table()
    new_doc = next(doc_id for doc_id, title in table.titles.items() if title == "ERP export 2024")
    row = table.doc_ids.tolist().index(new_doc)
    assert table.texts[row] == "Corvane Brake Systems supplies Zephyra Motors since 2024-03."
    assert relations_of(hg) == [("Corvane Brake Systems", "SUPPLIES", "Zephyra Motors", [int(table.ids[row])])]
    hits = hg.search("Who supplies Zephyra Motors?", method="bm25").hits
    assert hits[0].title == "ERP export 2024"  # the made-up document is searchable like any other


def test_reimporting_a_changed_file_replaces_its_facts(hg, tmp_path):
    path = write(tmp_path, HEADER + "Anvaya Foundry,SUPPLIES,Corvane Brake Systems,01_anvaya_profile.md,,ORG,ORG\n"
                                    "Anvaya Foundry,LOCATED_IN,Hosur,01_anvaya_profile.md,,ORG,LOCATION\n")
    hg.import_triples(path)
    write(tmp_path, HEADER + "Anvaya Foundry,LOCATED_IN,Tamil Nadu,01_anvaya_profile.md,,ORG,LOCATION\n")
    report = hg.import_triples(path)
    assert report.graph.relations == 1
    assert [(s, r, t) for s, r, t, _ in relations_of(hg)] == [("Anvaya Foundry", "LOCATED_IN", "Tamil Nadu")]
    assert len(hg.store.load_facts()) == 1


def test_reimporting_the_same_file_adds_nothing(hg, tmp_path):
    path = write(tmp_path, HEADER + "Anvaya Foundry,SUPPLIES,Corvane Brake Systems,01_anvaya_profile.md,,ORG,ORG\n")
    hg.import_triples(path)
    before = relations_of(hg)
    hg.import_triples(path)
    assert relations_of(hg) == before
    assert before[0][3] == [int(hg.store.chunk_table().ids[0])]  # still one source chunk: weight 1


def test_two_files_keep_their_own_facts(hg, tmp_path):
    first = write(tmp_path, HEADER + "Anvaya Foundry,LOCATED_IN,Hosur,01_anvaya_profile.md,,ORG,LOCATION\n", "a.csv")
    second = write(tmp_path, HEADER + "Anvaya Foundry,SUPPLIES,Corvane Brake Systems,01_anvaya_profile.md,,ORG,ORG\n",
                   "b.csv")
    hg.import_triples(first)
    hg.import_triples(second)
    assert [r for _, r, _, _ in relations_of(hg)] == ["LOCATED_IN", "SUPPLIES"]


def test_an_import_with_no_usable_rows_leaves_the_store_unchanged(hg, tmp_path):
    good = write(tmp_path, HEADER + "Anvaya Foundry,LOCATED_IN,Hosur,01_anvaya_profile.md,,ORG,LOCATION\n")
    hg.import_triples(good)
    write(tmp_path, HEADER + "Anvaya Foundry,LOCATED_IN,,01_anvaya_profile.md,,,\n")
    with pytest.raises(InputError):
        hg.import_triples(good)
    assert [r for _, r, _, _ in relations_of(hg)] == ["LOCATED_IN"]


def test_an_unknown_type_never_splits_an_entity_so_equal_places_still_meet_for_supersession(hg, tmp_path):
    """Hosur typed CITY used to become a second Hosur beside the LOCATION one, and the 2025 move
    then ended only the LOCATED_IN of the wrong one. The unknown relation type is kept."""
    rows = ("Anvaya Foundry,LOCATED_IN,Hosur,01_anvaya_profile.md,2019,ORG,LOCATION\n"
            "Kallur,WEIRDTYPE,Hosur,01_anvaya_profile.md,,ORG,\n"
            "Kallur,WEIRDTYPE,Hosur,01_anvaya_profile.md,,ORG,CITY\n"
            "Anvaya Foundry,LOCATED_IN,Hosur,01_anvaya_profile.md,2020,ORG,CITY\n"
            "Anvaya Foundry,LOCATED_IN,Ranipet,01_anvaya_profile.md,2025,ORG,LOCATION\n")
    report = hg.import_triples(write(tmp_path, HEADER + rows))
    assert [line.split(":")[0] for line in report.skipped] == ["line 4", "line 5"]
    graph = hg.knowledge_graph
    assert [e.type for e in graph.entities.values() if e.name == "Hosur"] == ["LOCATION"]
    hosur = next(r for r in graph.relations if r.relation == "LOCATED_IN" and graph.entities[r.target].name == "Hosur")
    assert (hosur.superseded_by is not None, hosur.valid_until) == (True, "2025")
    assert "WEIRDTYPE" in {r.relation for r in graph.relations}
