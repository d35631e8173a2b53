"""Personalized PageRank over the mention graph: where the mass goes, and that it is a distribution."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import sparse

from hopgraph.linkgraph.ppr import build_mention_graph, neighbourhood, personalized_pagerank


def link_matrix(n: int, links: list[tuple[int, int, int]]) -> sparse.csr_matrix:
    """(source row, target row, name id) triples as the SearchIndex stores them."""
    source, target, name = zip(*links, strict=True)
    return sparse.csr_matrix((np.array(name), (np.array(source), np.array(target))), shape=(n, n))


# Chunk 0 mentions name 7 (chunk 1's document); chunk 1 mentions name 8 (chunk 2's): a two-hop
# chain 0 → 1 → 2. Chunk 3 is linked to nothing; chunk 4 is mentioned by chunk 2 (name 9).
CHAIN = link_matrix(5, [(0, 1, 7), (1, 2, 8), (2, 4, 9)])


@pytest.fixture
def chain():
    return build_mention_graph(CHAIN)


def test_the_graph_has_a_node_per_chunk_and_per_linking_name(chain):
    assert chain.n_chunks == 5
    assert chain.n_nodes == 5 + 3
    assert chain.name_ids.tolist() == [7, 8, 9]
    assert chain.n_edges == 6  # each link is two undirected edges: chunk — name — chunk
    assert chain.dangling.tolist() == [False, False, False, True, False, False, False, False]


def test_mass_flows_from_a_seed_across_a_two_hop_link_and_fades_with_distance(chain):
    mass, _ = personalized_pagerank(chain, np.array([1.0, 0, 0, 0, 0]))
    assert mass[2] > 0.0  # two links away from the seed
    assert mass[0] > mass[1] > mass[2] > mass[4] > 0.0
    assert mass[3] == 0.0  # unconnected


def test_mass_also_flows_against_the_direction_of_a_link(chain):
    mass, _ = personalized_pagerank(chain, np.array([0, 0, 0, 0, 1.0]))  # chunk 4 only *is mentioned*
    assert mass[2] > mass[1] > mass[0] > 0.0


def test_scores_are_a_distribution_over_every_node(chain):
    for seeds in (np.array([1.0, 0, 0, 0, 0]), np.array([0, 0, 0, 2.0, 0]), np.array([0.5, 0, 3.0, 0, 1.0])):
        mass, used = personalized_pagerank(chain, seeds)
        assert mass.sum() == pytest.approx(1.0, abs=1e-6)
        assert (mass >= 0).all()
        assert used == 20  # 0.5 ** 20 < 1e-6: the error bound, not a convergence test


def test_a_dangling_seed_keeps_its_mass(chain):
    mass, _ = personalized_pagerank(chain, np.array([0, 0, 0, 1.0, 0]))
    assert mass[3] == pytest.approx(1.0)


def test_columns_are_walked_independently_and_are_linear(chain):
    seeds = np.zeros((5, 2))
    seeds[0, 0] = seeds[4, 1] = 1.0
    both, _ = personalized_pagerank(chain, seeds)
    first, _ = personalized_pagerank(chain, seeds[:, 0])
    second, _ = personalized_pagerank(chain, seeds[:, 1])
    np.testing.assert_allclose(both[:, 0], first)
    np.testing.assert_allclose(both[:, 1], second)
    mixed, _ = personalized_pagerank(chain, seeds[:, 0] + seeds[:, 1])
    np.testing.assert_allclose(mixed, (first + second) / 2, atol=1e-12)


def test_no_seeds_falls_back_to_plain_pagerank(chain):
    mass, _ = personalized_pagerank(chain, np.zeros(5))
    assert mass.sum() == pytest.approx(1.0)
    assert (mass > 0).all()  # uniform restart reaches every node, the unconnected one included
    # Plain PageRank ranks the middle of the chain above its ends.
    assert mass[1] > mass[0] and mass[2] > mass[4]


def test_hops_confine_the_walk_to_the_seeds_neighbourhood(chain):
    assert neighbourhood(chain, np.array([0]), 2).tolist() == [0, 1, 5]  # chunk 0, name 7, chunk 1
    mass, _ = personalized_pagerank(chain, np.array([1.0, 0, 0, 0, 0]), hops=2)
    assert mass[1] > 0.0
    assert mass[2] == 0.0 and mass[4] == 0.0
    assert mass.sum() < 1.0  # what left the neighbourhood is dropped


def test_the_walk_is_deterministic(chain):
    seeds = np.array([1.0, 0, 0.3, 0, 0])
    first, _ = personalized_pagerank(chain, seeds, damping=0.85, iterations=50)
    second, _ = personalized_pagerank(chain, seeds, damping=0.85, iterations=50)
    assert np.array_equal(first, second)


def test_lower_damping_keeps_more_mass_near_the_seed(chain):
    seeds = np.array([1.0, 0, 0, 0, 0])
    near, _ = personalized_pagerank(chain, seeds, damping=0.3)
    far, _ = personalized_pagerank(chain, seeds, damping=0.85, iterations=200)
    assert near[0] > far[0]
    assert near[2] < far[2]
