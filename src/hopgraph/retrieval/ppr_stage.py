"""The `+ppr` stage: the places left after names (and links) go to a Personalized PageRank walk.

Every chunk already placed is a seed — a chunk named by the question at weight 1, a ranker or link
hit at the hit weight. The walk (hopgraph.linkgraph.ppr) runs over the mention graph in both directions
and up to `Budget.ppr_hops` edges deep, so it reaches what forward links cannot: the album that
mentions the band (a reverse link), the daughter of the actor the question's character names (a
second hop), the film two seeds both mention. Each remaining place goes to the unplaced chunk with
the most mass (ties by ranker score); when the walk reaches nothing, to the next ranker hit —
which then becomes a seed itself, so its neighbours can take the place after it. After the links
stage the places left take turns, walk first: the walk's best, then the ranker's next hit. Why:
there the walk's best and the ranker's next are each right where the other is wrong, and giving
every place to the walk let `auto` lose to `hybrid+names+links` on 2Wiki (untitled table in
docs/BENCHMARKS.md); alone, the walk must find the second hop itself and keeps every place.
(A bridge — a chunk joined to two seeds through two names — once kept the walk's turn; with one
pair of walk weights it changed no question on any half of the shared sets and went, issue 21.)

The walk's weights (measured in docs/BENCHMARKS.md, "PPR and the router"): a backward step weighs
0.25 (a paragraph's own mentions are the stronger evidence) and a ranker or link hit seeds at 0.3
beside the question's names. Until issue 21 the walk after the links stage had a second pair
(every placed hit a full seed, backward steps at 1); re-checked on held-out halves it lost two
2Wiki docs3 questions of half B, so one pair serves both roles (docs/BENCHMARKS.md, "The older
ranking rules, re-checked by half").

PPR is linear in its restart vector: one walk with a column per candidate seed (placed rows and
the ranker's next hits) is weighed afterwards, so a new seed costs no new walk.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from hopgraph.linkgraph.ppr import MentionGraph, personalized_pagerank
from hopgraph.records.retrieval import Budget, FoundBy, Via
from hopgraph.retrieval import stages
from hopgraph.retrieval.index import SearchIndex

MIN_MASS = 1e-9  # below this a chunk was not reached (float noise of the power iteration)
WALK_WEIGHTS = (0.3, 0.25)  # (hit weight, reverse weight) of the walk's seeds and backward steps
# After the links stage the walk and the ranker take turns (module docstring): a switch a bench can
# turn off to measure the rule (bench/rules.py).
TURNS_AFTER_LINKS = True


def walk_weights(budget: Budget) -> tuple[float, float]:
    """(hit weight, reverse weight): the budget's if set, else the defaults."""
    hit, reverse = WALK_WEIGHTS
    return (hit if budget.ppr_hit_weight is None else budget.ppr_hit_weight,
            reverse if budget.ppr_reverse_weight is None else budget.ppr_reverse_weight)


@dataclass
class PPRUsage:
    """What the walk used, for the trace."""

    seeds: int = 0
    iterations: int = 0
    nodes: int = 0  # nodes within `ppr_hops` of the seeds: what the walk touched
    placed: int = 0
    ranker_fill: int = 0
    hit_weight: float = 0.0
    reverse_weight: float = 0.0

    def describe(self, budget: Budget) -> str:
        return (f"{self.seeds} seed(s) (hit weight {self.hit_weight:g}), damping {budget.ppr_damping}, "
                f"{self.iterations} of {budget.ppr_iterations} iterations over {self.nodes} nodes within "
                f"{budget.ppr_hops} hops (backward steps ×{self.reverse_weight:g}); placed {self.placed} "
                f"by mass, {self.ranker_fill} by the ranker")


def place_by_ppr(index: SearchIndex, scores: np.ndarray, taken: dict[int, None], named_rows: set[int],
                 budget: Budget, take: Callable[..., None], ranker: FoundBy, after_links: bool) -> PPRUsage:
    """Fill the places left in `taken` (rows in placing order) up to `budget.top`."""
    hit_weight, reverse_weight = walk_weights(budget)
    usage = PPRUsage(hit_weight=hit_weight, reverse_weight=reverse_weight)
    places = budget.top - len(taken)
    if places <= 0:
        return usage
    graph = index.mention_graph(reverse_weight)
    n = len(index)
    fill = [int(r) for r in stages.top_rows(scores, places, exclude=set(taken))]
    columns = [*taken, *fill]
    restart = np.zeros((n, len(columns)))
    restart[columns, np.arange(len(columns))] = 1.0
    mass, usage.iterations = personalized_pagerank(graph, restart, budget.ppr_damping, budget.ppr_iterations,
                                                   hops=budget.ppr_hops)
    usage.nodes = int((mass.any(axis=1)).sum())
    weight = np.array([1.0 if row in named_rows else hit_weight for row in columns])
    active = np.array([True] * len(taken) + [False] * len(fill))
    walk_turn = True  # after the links stage the walk and the ranker take turns (module docstring)
    while len(taken) < budget.top:
        combined = mass[:n, active] @ weight[active]
        combined[list(taken)] = 0.0
        best = int(stages.top_rows(combined + 1e-12 * _unit(scores), 1)[0]) if n else -1
        row = next((r for r in fill if r not in taken), None)
        if best >= 0 and combined[best] > MIN_MASS and (walk_turn or row is None):
            take(best, "ppr", _via(index, graph, mass, columns, weight, active, best), float(combined[best]))
            usage.placed += 1
            walk_turn = not (after_links and TURNS_AFTER_LINKS)
            continue
        walk_turn = True
        if row is None:
            break
        take(row, ranker)
        active[columns.index(row)] = True  # the ranker's hit is a seed now: its neighbours come next
        usage.ranker_fill += 1
    usage.seeds = int(active.sum())
    return usage


def _unit(scores: np.ndarray) -> np.ndarray:
    """Scores scaled into [0, 1]: a tie-breaker that never outweighs a difference in mass."""
    low, high = float(scores.min()), float(scores.max())
    return (scores - low) / (high - low) if high > low else np.zeros_like(scores)


def _via(index: SearchIndex, graph: MentionGraph, mass: np.ndarray, columns: list[int], weight: np.ndarray,
         active: np.ndarray, row: int) -> Via:
    """The seed that sent the row most of its mass, and the name node through which it arrived
    (the neighbouring name with the most of that seed's mass)."""
    n = len(index)
    contributions = np.where(active, mass[row] * weight, -1.0)
    column = int(np.argmax(contributions))
    seed = columns[column]
    neighbours = graph.transition.indices[graph.transition.indptr[row]:graph.transition.indptr[row + 1]]
    names = neighbours[neighbours >= n]
    name = "?"
    if len(names):
        node = int(names[np.argmax(mass[names, column])])
        name = index.name_surfaces.get(int(graph.name_ids[node - n]), "?")
    return Via(int(index.table.ids[seed]), index.title_of_row(seed), name)
