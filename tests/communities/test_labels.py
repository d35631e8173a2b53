"""Community labels by c-TF-IDF: phrases, scores, distinct siblings, own text, stable across rebuilds."""

from __future__ import annotations

import re

import numpy as np
import pytest
from scipy import sparse

from hopgraph.communities.labels import (
    NGRAMS,
    NOUN_PHRASES,
    class_tfidf,
    community_labels,
    content_words,
    label_reports,
    ngrams,
    noun_phrase_counts,
    phrase_counts,
    stem,
)
from hopgraph.communities.leiden import build_communities, community_hash
from hopgraph.engine import HopGraph
from hopgraph.records.communities import Community, CommunityReport, CommunityTree
from hopgraph.records.knowledge import Entity, KnowledgeGraph, Relation, Source
from hopgraph.text.nlp import MODEL_PACKAGE
from hopgraph.text.noun_phrases import noun_phrases

# Two families of chunks: the counting-house (1-3) and the Cratchits' kitchen (4-6).
CHUNKS = {
    1: "Scrooge sat in the counting-house over his ledger. The ledger of debts lay open; the counting-house was cold.",
    2: "Marley's ledger and Scrooge's ledger: the counting-house kept both. Scrooge counted the debts again.",
    3: "The clerk in the counting-house warmed his hands at the candle, and the ledger stayed shut.",
    4: "Tiny Tim sat by the fire. Mrs. Cratchit brought the pudding, and Tiny Tim cheered the pudding.",
    5: "Bob Cratchit carried Tiny Tim home from church; the goose and the pudding waited.",
    6: "The Cratchits ate the goose. Tiny Tim said grace; Mrs. Cratchit praised the pudding.",
}


def texts(ids: set[int]) -> dict[int, str]:
    return {i: CHUNKS[i] for i in ids if i in CHUNKS}


def world() -> tuple[KnowledgeGraph, CommunityTree]:
    """Two root communities, each mentioned by its own three chunks (and Scrooge once in the kitchen)."""
    names = {1: ("Scrooge", {1, 2, 5}), 2: ("Marley", {2}), 3: ("the clerk", {3}),
             4: ("Tiny Tim", {4, 5, 6}), 5: ("Mrs. Cratchit", {4, 6}), 6: ("Bob Cratchit", {5})}
    return two_roots(names, "PERSON", [(1, 2, 2), (1, 3, 3), (2, 3, 2), (4, 5, 4), (4, 6, 5), (5, 6, 6)])


def two_roots(names: dict[int, tuple[str, set[int]]], kind: str,
              pairs: list[tuple[int, int, int]]) -> tuple[KnowledgeGraph, CommunityTree]:
    """Entities 1–3 and 4–6 as two root communities; `pairs` are (entity, entity, chunk) relations."""
    entities = {i: Entity(i, name, kind, chunks=set(chunks)) for i, (name, chunks) in names.items()}
    relations = [Relation(i, a, "RELATED_TO", b, sources=[Source(c, 1)]) for i, (a, b, c) in enumerate(pairs, 1)]
    graph = KnowledgeGraph(entities, relations)
    tree = CommunityTree([Community(0, 0, None, [1, 2, 3]), Community(1, 0, None, [4, 5, 6])])
    for community in tree.communities:
        community.hash = community_hash(graph, community.entities)
    return graph, tree


def words_of(text: str) -> list[str]:
    return [stem(w.strip("'’-")) for w in re.findall(r"[^\W\d_][\w'’-]*", text)]


def said_in(label: str, text: str) -> bool:
    """Whether the label's stemmed words occur one after another in the text."""
    needle, hay = words_of(label), words_of(text)
    return any(hay[i:i + len(needle)] == needle for i in range(len(hay) - len(needle) + 1))


def test_phrases_keep_inner_stopwords_and_stop_at_punctuation() -> None:
    found = [surface for _, surface in ngrams("The Ghost of Christmas Past, and Mrs. Cratchit's pudding.")]
    assert "Ghost of Christmas Past" not in found  # four words: longer than the 1-3 n-grams
    assert "Ghost of Christmas" in found and "Christmas Past" in found
    assert "Past and Mrs" not in " | ".join(found)  # the comma ends a phrase
    assert "Mrs Cratchit's pudding" in found and "Mrs Cratchit's" not in found  # never ends on a possessive
    assert not any(s.split()[0].lower() in ("the", "of", "and") for s in found)  # never starts on a stopword


def test_spelling_variants_are_one_phrase_shown_in_the_commonest_form() -> None:
    phrases = phrase_counts({1: "The Spirit spoke.", 2: "Spirits walked. The Spirit smiled."})
    column = phrases.column[(stem("spirit"),)]
    assert phrases.counts[:, column].sum() == 3 and phrases.surfaces[column] == "Spirit"
    assert content_words((stem("ghost"), "of", stem("christmas"))) == {stem("ghost"), stem("christmas")}


def test_class_tfidf_ranks_a_phrase_of_one_class_above_one_of_every_class() -> None:
    # Columns: "ledger" only in class 0; "scrooge" equally in both.
    counts = sparse.csr_matrix(np.array([[4.0, 4.0], [0.0, 4.0]]))
    scores = class_tfidf(counts).toarray()
    assert scores[0, 0] > scores[0, 1] > 0 and scores[1, 0] == 0
    # BERTopic's formula: tf scaled to one per class × log(1 + A / f), A = mean words per class.
    assert scores[0, 0] == pytest.approx(0.5 * np.log1p(6.0 / 4.0))


def test_labels_come_from_the_communitys_own_chunks_and_no_two_siblings_share_one() -> None:
    graph, tree = world()
    labels = community_labels(graph, tree, texts)
    assert labels[0][0] in ("ledger", "counting-house") and labels[1][0] in ("Tiny Tim", "pudding")
    assert not set(labels[0]) & set(labels[1])
    own = {0: "\n".join(CHUNKS[c] for c in (1, 2, 3, 5)), 1: "\n".join(CHUNKS[c] for c in (4, 5, 6))}
    for community_id, chosen in labels.items():
        assert chosen and all(said_in(label, own[community_id]) for label in chosen)
    assert "Tiny" not in labels[1] and "Tim" not in labels[1]  # the name is kept whole


def test_a_rebuild_of_the_same_graph_gives_the_same_labels() -> None:
    graph, _ = world()
    first, second = build_communities(graph, 4), build_communities(graph, 4)
    by_hash = [{c.hash: labels[c.id] for c in tree.communities}
               for tree, labels in ((t, community_labels(graph, t, texts)) for t in (first, second))]
    assert by_hash[0] == by_hash[1] and all(by_hash[0].values())


# --- noun phrases ---------------------------------------------------------------------------------------

# The mill (1-3) and the ship (4-6): each says its own interjection and its own verb more often than
# any noun, so the n-grams most distinctive of a community are "Hallo" and "miller came".
SHOUTED = {
    1: "'Hallo!' The miller came down to the mill. 'Hallo, hallo!' He came back with the miller's flour sacks.",
    2: "'Hallo!' The miller came again. The miller's flour sacks came off the cart at the mill. 'Hallo!'",
    3: "The miller came to the mill wheel. 'Hallo!' cried the miller, and came in. 'Hallo!'",
    4: "'Hey!' The sailor went up the mast. 'Hey, hey!' The sailor went below to mend the ship's sails.",
    5: "'Hey!' The sailor went ashore. The ship's sails went slack in the harbour. 'Hey!'",
    6: "The sailor went along the deck of the ship. 'Hey!' shouted the sailor, and went aloft. 'Hey!'",
}
NOT_THEMES = {stem(w) for w in ("hallo", "hey", "came", "went", "cried", "shouted", "mend")}


def shouted_world() -> tuple[KnowledgeGraph, CommunityTree]:
    names = {1: ("miller", {1, 2, 3}), 2: ("mill", {1, 2, 3}), 3: ("flour sacks", {1, 2}),
             4: ("sailor", {4, 5, 6}), 5: ("ship", {4, 5, 6}), 6: ("sails", {4, 5})}
    return two_roots(names, "CONCEPT", [(1, 2, 1), (1, 3, 2), (2, 3, 3), (4, 5, 4), (4, 6, 5), (5, 6, 6)])


def shouted(ids: set[int]) -> dict[int, str]:
    return {i: SHOUTED[i] for i in ids if i in SHOUTED}


def parsed(texts: dict[int, str]) -> dict[int, list[str]]:
    return dict(zip(texts, noun_phrases(list(texts.values())), strict=True))


def test_noun_phrases_are_counted_by_their_stemmed_words_and_need_a_content_word() -> None:
    phrases = noun_phrase_counts({1: ["Marley's ghost", "ghosts"], 2: ["Marley's Ghost", "such"]})
    assert phrases.keys == [(stem("marley"), stem("ghost")), (stem("ghost"),)]  # "such": only a stop word
    assert phrases.counts.toarray().tolist() == [[1, 1], [1, 0]]


def test_interjections_and_verbs_label_by_ngrams_and_noun_phrases_label_instead() -> None:
    pytest.importorskip(MODEL_PACKAGE)
    graph, tree = shouted_world()
    before = community_labels(graph, tree, shouted)
    assert before[0][0] == "Hallo" and before[1][0] == "Hey"  # what the n-grams choose (issue 22)
    assert {stem(w) for chosen in before.values() for label in chosen for w in label.split()} & NOT_THEMES
    labels = community_labels(graph, tree, shouted, chunk_phrases=parsed)
    assert labels[0][:2] == ["miller", "mill"] and labels[1][:2] == ["sailor", "ship's sails"]  # possessive kept
    found = {p for phrases in parsed(SHOUTED).values() for p in phrases}
    for chosen in labels.values():
        assert chosen and set(chosen) <= found  # every label is one of the noun phrases
        assert not {stem(w) for label in chosen for w in label.split()} & NOT_THEMES
        assert all(1 <= len(label.split()) <= 4 and not label.lower().startswith(("the ", "his ")) for label in chosen)
    assert not set(labels[0]) & set(labels[1])  # the sibling rule holds as before


def test_reports_labelled_another_way_are_labelled_again_and_say_how() -> None:
    pytest.importorskip(MODEL_PACKAGE)
    graph, tree = shouted_world()
    reports = [CommunityReport(c.id, 0, f"Community {c.id}", "", 5.0, [], [], [], hash=c.hash)
               for c in tree.communities]
    assert label_reports(reports, graph, tree, shouted) == reports and {r.labelled_by for r in reports} == {NGRAMS}
    assert label_reports(reports, graph, tree, shouted) == []  # labelled once
    assert label_reports(reports, graph, tree, shouted, parsed) == reports
    assert {r.labelled_by for r in reports} == {NOUN_PHRASES} and "Hallo" not in reports[0].labels


# --- the bundled book -----------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_books_labels_are_distinct_among_siblings_its_own_and_stable(book: HopGraph) -> None:
    graph, tree = book.knowledge_graph, book.communities()
    labels = community_labels(graph, tree, book.chunk_texts)
    assert set(labels) == {c.id for c in tree.communities} and all(labels.values())
    for parent in {c.parent for c in tree.communities}:
        siblings = [labels[c.id] for c in tree.communities if c.parent == parent]
        flat = [words_of(label) for chosen in siblings for label in chosen]
        assert len({tuple(w) for w in flat}) == len(flat)  # no label twice among siblings
    for community in tree.communities:
        chunk_ids = {c for e in community.entities for c in graph.entities[e].chunks}
        text = "\n".join(book.chunk_texts(chunk_ids).values())
        assert all(said_in(label, text) for label in labels[community.id]), community.id
    # Rebuilt beside the stored tree, not over it: the session's book stays as the other tests read it.
    settings = book.settings
    rebuilt = build_communities(graph, settings.community_max_size, settings.community_levels)
    again = community_labels(graph, rebuilt, book.chunk_texts)
    assert {c.hash: labels[c.id] for c in tree.communities} == {c.hash: again[c.id] for c in rebuilt.communities}
    # The hub (the root over the most chunks) is named first by the entity said in the most chunks.
    roots = sorted(tree.at_level(0), key=lambda c: -len({x for e in c.entities for x in graph.entities[e].chunks}))
    most_said = max(graph.entities.values(), key=lambda e: (len(e.chunks), -e.id))
    assert most_said.id in roots[0].entities and words_of(labels[roots[0].id][0]) == words_of(most_said.name)
