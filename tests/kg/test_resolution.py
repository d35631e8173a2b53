"""Entity resolution: normalisation, gazetteer merges, typed clusters, and embedding merges/reviews."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from hopgraph.kg.resolution import keys_of, normalise, resolve
from hopgraph.records.knowledge import MergeCandidate
from hopgraph.records.names import GazetteerEntry


class ChosenVectors:
    """An embedder whose vector for each (normalised) text is chosen by the test; others are orthogonal."""

    name = "chosen-vectors"
    dim = 3

    def __init__(self, vectors: dict[str, Sequence[float]]) -> None:
        self.vectors = {text: np.asarray(v, dtype=np.float32) / np.linalg.norm(v) for text, v in vectors.items()}
        self.seen: list[str] = []

    def embed(self, texts: Sequence[str], progress: object = None) -> np.ndarray:
        self.seen += texts
        return np.vstack([self.vectors.get(t, np.array([0, 0, 1], dtype=np.float32)) for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed([text])[0]


def at_cosine(cosine: float) -> list[float]:
    """A vector whose cosine with (1, 0, 0) is `cosine`."""
    return [cosine, float(np.sqrt(1 - cosine**2)), 0.0]


def mentions(*names: str, type_: str = "ORG") -> list[tuple[str, str, str]]:
    return [(name, type_, "") for name in names]


def same_entity(resolution, a: str, b: str, type_: str = "ORG") -> bool:
    first, second = resolution.entity_of(a, type_), resolution.entity_of(b, type_)
    assert first is not None and second is not None
    return first == second


# --- normalise and keys_of ---------------------------------------------------------------------------


@pytest.mark.parametrize(("raw", "expected"), [
    ("Foundry F Pvt. Ltd.", "foundry f"),
    ("Acme Inc", "acme"),
    ("Globex GmbH", "globex"),
    ("Dr. Meera Rao", "meera rao"),
    ("Mrs Anita Desai", "anita desai"),
    ("The Acme Co", "acme"),
    ("Kallur, Steel & Co.", "kallur steel"),
    ("Sreevar Metals Group", "sreevar metals"),
])
def test_normalise_strips_legal_suffixes_honorifics_punctuation_and_the(raw, expected):
    assert normalise(raw) == expected


def test_normalise_keeps_a_legal_word_that_is_not_at_the_end():
    assert normalise("Limited Edition Motors") == "limited edition motors"


def test_keys_of_a_parenthesised_alias_includes_both_names():
    keys = keys_of("FF Castings (Foundry F)")
    assert "foundry f" in keys and "ff castings" in keys


def test_keys_of_a_plain_name_is_its_normalised_form_only():
    assert keys_of("Foundry F Pvt Ltd") == ["foundry f"]


# --- gazetteer and normalisation ---------------------------------------------------------------------


def test_gazetteer_aliases_merge_under_the_canonical_gazetteer_name():
    gazetteer = [GazetteerEntry("Corvane Brake Systems", ("CBS Friction", "Corvane"), "ORG", "org:corvane")]
    resolution = resolve(mentions("cbs friction", "Corvane"), gazetteer)
    assert len(resolution.clusters) == 1
    cluster = resolution.clusters[0]
    assert (cluster.name, cluster.type) == ("Corvane Brake Systems", "ORG")
    assert {"cbs friction", "Corvane"} <= cluster.aliases


def test_a_legal_suffix_variant_merges_by_normalisation():
    resolution = resolve(mentions("Foundry F Pvt Ltd", "Foundry F"))
    assert len(resolution.clusters) == 1
    assert same_entity(resolution, "Foundry F Pvt Ltd", "Foundry F")


def test_a_parenthesised_alias_merges_with_the_name_inside_the_parentheses():
    resolution = resolve(mentions("FF Castings (Foundry F)", "Foundry F"))
    assert same_entity(resolution, "FF Castings (Foundry F)", "Foundry F")


def test_the_same_surface_with_different_types_does_not_merge():
    resolution = resolve([("Jordan", "PERSON", ""), ("Jordan", "LOCATION", "")])
    assert len(resolution.clusters) == 2
    assert resolution.entity_of("Jordan", "PERSON") != resolution.entity_of("Jordan", "LOCATION")
    assert {c.type for c in resolution.clusters} == {"PERSON", "LOCATION"}


def test_an_untyped_mention_joins_the_typed_cluster_and_takes_its_type():
    resolution = resolve([("Foundry F Ltd", "ORG", ""), ("Foundry F", "", "")])
    assert len(resolution.clusters) == 1
    assert resolution.clusters[0].type == "ORG"
    assert resolution.entity_of("Foundry F") == resolution.entity_of("Foundry F Ltd", "ORG")


def test_an_untyped_mention_seen_first_does_not_bridge_two_types():
    resolution = resolve([("Jordan", "", ""), ("Jordan", "PERSON", ""), ("Jordan", "LOCATION", "")])
    assert resolution.entity_of("Jordan", "PERSON") != resolution.entity_of("Jordan", "LOCATION")


def test_a_gazetteer_entry_does_not_absorb_a_mention_of_another_type():
    gazetteer = [GazetteerEntry("Jordan", ("Hashemite Kingdom",), "LOCATION", "loc:jordan")]
    resolution = resolve([("Jordan", "PERSON", ""), ("Hashemite Kingdom", "LOCATION", "")], gazetteer)
    assert resolution.entity_of("Jordan", "PERSON") != resolution.entity_of("Hashemite Kingdom", "LOCATION")


def test_the_longest_description_of_a_cluster_is_kept():
    resolution = resolve([("Foundry F", "ORG", "a foundry"), ("Foundry F Ltd", "ORG", "a grey-iron foundry")])
    assert resolution.clusters[0].description == "a grey-iron foundry"


def test_entity_of_an_unknown_name_is_none():
    resolution = resolve(mentions("Foundry F"))
    assert resolution.entity_of("Nowhere Industries") is None
    assert resolution.entity_of("Foundry F", "PERSON") is None


def test_entity_of_ignores_case_and_surrounding_space():
    resolution = resolve(mentions("Foundry F"))
    assert resolution.entity_of("  FOUNDRY f ", "org") == resolution.entity_of("Foundry F", "ORG") is not None


def test_every_cluster_keeps_all_its_surfaces_as_aliases():
    gazetteer = [GazetteerEntry("Zephyra Motors", ("Zephyra",), "ORG", "org:z")]
    names = ["Zephyra", "Zephyra Motors Ltd", "Foundry F Pvt Ltd", "Foundry F", "FF Castings (Foundry F)"]
    resolution = resolve(mentions(*names), gazetteer)
    assert set().union(*(c.aliases for c in resolution.clusters)) >= set(names)
    for cluster in resolution.clusters:
        assert cluster.name in cluster.aliases
        for alias in cluster.aliases - {cluster.name}:
            assert resolution.entity_of(alias, "ORG") in (None, resolution.entity_of(cluster.name, "ORG"))


# --- embedding similarity ----------------------------------------------------------------------------

A, B = "Quorin Metals", "Velmar Alloys"  # no shared words, prefixes or acronyms: only embeddings can merge them


def embedder_at(cosine: float) -> ChosenVectors:
    return ChosenVectors({normalise(A): [1.0, 0.0, 0.0], normalise(B): at_cosine(cosine)})


def test_names_embedded_at_or_above_auto_merge():
    resolution = resolve(mentions(A, B), embedder=embedder_at(0.97), auto=0.93, review=0.80)
    assert len(resolution.clusters) == 1
    assert resolution.clusters[0].aliases >= {A, B}
    assert resolution.reviews == []


def test_names_between_review_and_auto_become_a_candidate_and_stay_apart():
    resolution = resolve(mentions(A, B), embedder=embedder_at(0.85), auto=0.93, review=0.80)
    assert not same_entity(resolution, A, B)
    assert len(resolution.reviews) == 1
    candidate = resolution.reviews[0]
    assert isinstance(candidate, MergeCandidate)
    assert {candidate.a, candidate.b} == {A, B}
    assert candidate.type == "ORG"
    assert candidate.score == pytest.approx(0.85, abs=1e-3)


def test_names_below_review_neither_merge_nor_wait_for_review():
    resolution = resolve(mentions(A, B), embedder=embedder_at(0.5), auto=0.93, review=0.80)
    assert not same_entity(resolution, A, B)
    assert resolution.reviews == []


@pytest.mark.parametrize("pair", [(A, B), (B, A)])
def test_an_accepted_decision_merges_the_pair(pair):
    resolution = resolve(mentions(A, B), embedder=embedder_at(0.85), decisions={pair: True})
    assert same_entity(resolution, A, B)
    assert resolution.reviews == []


def test_a_rejected_decision_keeps_the_pair_apart_and_off_the_review_list():
    resolution = resolve(mentions(A, B), embedder=embedder_at(0.85), decisions={(A, B): False})
    assert not same_entity(resolution, A, B)
    assert resolution.reviews == []


def test_a_rejected_decision_overrides_a_score_above_auto():
    resolution = resolve(mentions(A, B), embedder=embedder_at(0.99), decisions={(B, A): False})
    assert not same_entity(resolution, A, B)


def test_embedding_merges_only_compare_names_of_one_type():
    embedder = embedder_at(0.99)
    resolution = resolve([(A, "ORG", ""), (B, "PERSON", "")], embedder=embedder)
    assert resolution.entity_of(A, "ORG") != resolution.entity_of(B, "PERSON")
    assert resolution.reviews == []


def test_the_embedder_sees_normalised_names():
    embedder = embedder_at(0.97)
    resolve(mentions("Quorin Metals Pvt Ltd", B), embedder=embedder)
    assert normalise(A) in embedder.seen and "Quorin Metals Pvt Ltd" not in embedder.seen


# --- guesses: a concept graph's names beside stated facts ---------------------------------------------


def test_guesses_join_a_stated_name_by_normalisation_and_never_name_its_entity():
    resolution = resolve([("Velora Brakes Ltd", "ORG", "")], guesses=[("Velora Brakes Ltd.", "ORG", "")] * 5)
    assert len(resolution.clusters) == 1 and resolution.clusters[0].name == "Velora Brakes Ltd"
    assert resolution.entity_of("Velora Brakes Ltd.", "ORG") == resolution.entity_of("Velora Brakes Ltd", "ORG")


def test_a_guess_makes_no_short_form_ambiguous():
    stated = [("Orrin Castings", "ORG", ""), ("Orrin", "ORG", "")]
    noisy = [("Orrin Castings Ltd, Surat", "ORG", "")]
    assert not same_entity(resolve(stated + noisy), "Orrin", "Orrin Castings")  # two longer names: ambiguous
    assert same_entity(resolve(stated, guesses=noisy), "Orrin", "Orrin Castings")
    assert not same_entity(resolve(stated, guesses=noisy), "Orrin Castings Ltd, Surat", "Orrin Castings")


def test_guesses_are_not_embedded():
    embedded: list[str] = []

    class Counting:
        def embed(self, texts: Sequence[str], progress: object = None) -> np.ndarray:
            embedded.extend(texts)
            return np.eye(len(texts), dtype=np.float32)

    resolve([("Orrin Castings", "ORG", ""), ("Velora Brakes", "ORG", "")], embedder=Counting(),  # type: ignore[arg-type]
            guesses=[("the Surat foundry", "CONCEPT", ""), ("a new plant", "CONCEPT", "")])
    assert sorted(embedded) == ["orrin castings", "velora brakes"]
