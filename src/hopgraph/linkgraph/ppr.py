"""Personalized PageRank over the mention graph: chunks and the names that join them.

Nodes are the chunk rows followed by one node per linking name. A chunk that mentions a name is
joined to that name's node, and the name's node to every chunk of the document it names; edges are
undirected, so mass flows both ways: from a film to its director (the film mentions her) and from a
band to the album that mentions the band. Chunks that mention the same name meet at its node. Two
seeds that share a neighbour both send it mass, which is what a bridge question wants.

The walk is power iteration on a column-stochastic scipy CSR matrix, built once per search index:
a few dozen sparse matrix-vector products, no Python loop over nodes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse


@dataclass(frozen=True)
class MentionGraph:
    """The transition matrix of the walk and what its nodes are."""

    transition: sparse.csr_matrix  # column-stochastic: column j spreads node j's mass over its neighbours
    n_chunks: int  # nodes [0, n_chunks) are chunk rows; the rest are names
    name_ids: np.ndarray  # name id of node n_chunks + i
    dangling: np.ndarray  # bool per node: no edges (its mass returns to the seeds)

    @property
    def n_nodes(self) -> int:
        return self.transition.shape[0]

    @property
    def n_edges(self) -> int:
        return int(self.transition.nnz // 2)


def build_mention_graph(links: sparse.csr_matrix, reverse_weight: float = 1.0,
                        weights: sparse.csr_matrix | None = None) -> MentionGraph:
    """The walk's graph from the link matrix (source row, target row) → name id.

    A link A → B made by name N becomes the edges A — N and N — B, so N's node is shared by every
    chunk that mentions N and every chunk of the document N names. Walking with the link (A → N →
    B) has weight 1 per edge; against it (B → N → A: from a paragraph to those that mention it),
    `reverse_weight` per edge. With `weights` (the link matrix's pattern → the aboutness of the
    target), the edge N — B weighs that much: a name leads mostly to the chunks most about it."""
    n = links.shape[0]
    coo = links.tocoo()
    about = weights.tocoo().data if weights is not None else np.ones(len(coo.data))
    name_ids, name_nodes = np.unique(coo.data, return_inverse=True)
    name_nodes = name_nodes.astype(np.int64) + n
    size = n + len(name_ids)
    # weights[target, source]: the chance to step source → target before normalising; a pair
    # linked twice is one edge (the larger weight).
    ahead = sparse.coo_matrix((np.concatenate([np.ones(len(name_nodes)), about]),
                               (np.concatenate([name_nodes, coo.col]), np.concatenate([coo.row, name_nodes]))),
                              shape=(size, size)).tocsr()
    ahead = _max_duplicates(ahead, np.concatenate([name_nodes, coo.col]), np.concatenate([coo.row, name_nodes]),
                            np.concatenate([np.ones(len(name_nodes)), about]), size)
    adjacency = (ahead + reverse_weight * ahead.T).tocsr()
    adjacency.sum_duplicates()
    degree = np.asarray(adjacency.sum(axis=0)).ravel()
    dangling = degree == 0
    inverse = np.divide(1.0, degree, out=np.zeros_like(degree), where=~dangling)
    transition = (adjacency @ sparse.diags(inverse)).tocsr()
    return MentionGraph(transition, n, name_ids, dangling)


def _max_duplicates(summed: sparse.csr_matrix, rows: np.ndarray, cols: np.ndarray, values: np.ndarray,
                    size: int) -> sparse.csr_matrix:
    """`summed` with each entry the largest of its duplicate values instead of their sum."""
    if summed.nnz == len(values):
        return summed
    order = np.lexsort((-values, cols, rows))
    rows, cols, values = rows[order], cols[order], values[order]
    first = np.ones(len(rows), dtype=bool)
    first[1:] = (rows[1:] != rows[:-1]) | (cols[1:] != cols[:-1])
    return sparse.csr_matrix((values[first], (rows[first], cols[first])), shape=(size, size))


def neighbourhood(graph: MentionGraph, nodes: np.ndarray, hops: int) -> np.ndarray:
    """The nodes within `hops` edges of `nodes`, sorted (breadth first by sparse products)."""
    reached = np.zeros(graph.n_nodes, dtype=bool)
    reached[nodes] = True
    frontier = reached.astype(np.float64)
    for _ in range(hops):
        touched = (graph.transition @ frontier) > 0
        new = touched & ~reached
        if not new.any():
            break
        reached |= new
        frontier = new.astype(np.float64)
    return np.flatnonzero(reached)


def personalized_pagerank(graph: MentionGraph, seeds: np.ndarray, damping: float = 0.5, iterations: int = 30,
                          tolerance: float = 1e-6, hops: int | None = None) -> tuple[np.ndarray, int]:
    """PPR mass per node (each column sums to 1) and the iterations used.

    `seeds` holds non-negative weights per node — or per chunk row, padded with zeros — as one
    vector, or as a matrix with one column per restart distribution (all walked at once: PPR is
    linear in its restart vector, so a caller can weigh the columns afterwards). `damping` is the
    chance of following an edge rather than restarting: a low value keeps the mass within a hop or
    two of the seeds, where a multi-hop question's other paragraphs are. A column without weight
    restarts uniformly (plain PageRank: a caller with no seeds should rank some other way).

    The error after t iterations is at most damping**t, so the walk stops once that is below
    `tolerance` (20 iterations at 0.5 for 1e-6) — no convergence test inside the loop. With `hops`,
    the walk is confined to the seeds' neighbourhood of that radius (mass leaving it is dropped,
    so columns sum to at most 1): a query touches hundreds of nodes, not the whole corpus."""
    vector = seeds.ndim == 1
    weights = np.zeros((graph.n_nodes, 1 if vector else seeds.shape[1]))
    weights[: len(seeds)] = seeds.reshape(len(seeds), -1)
    totals = weights.sum(axis=0)
    restart = np.where(totals > 0, weights / np.where(totals > 0, totals, 1.0), 1.0 / graph.n_nodes)
    nodes = np.arange(graph.n_nodes)
    if hops is not None and (totals > 0).all():
        nodes = neighbourhood(graph, np.flatnonzero(weights.any(axis=1)), hops)
    transition = graph.transition[nodes][:, nodes] if len(nodes) < graph.n_nodes else graph.transition
    local = restart[nodes]
    dangling = graph.dangling[nodes].astype(np.float64)
    needed = int(np.ceil(np.log(tolerance) / np.log(damping))) if 0 < damping < 1 else 1
    used = max(1, min(iterations, needed))
    mass = local.copy()
    for _ in range(used):
        # Mass at a dangling node has nowhere to go: it restarts, so every column keeps summing to 1.
        mass = damping * (transition @ mass + local * (dangling @ mass)) + (1.0 - damping) * local
    full = np.zeros_like(restart)
    full[nodes] = mass
    return (full[:, 0] if vector else full), used
