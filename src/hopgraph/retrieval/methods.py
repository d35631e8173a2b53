"""Retrieval methods: a ranker (retrieval/rankers.py: `vector`, `bm25`, `hybrid` or a plugin's) plus
optional `names`, `links` and `ppr` stages.

A method name is its composition, e.g. `hybrid+names+links`. The budget rule, in order:
1. `names`: chunks of documents named in the question go first (best-scored first, at most `top`);
2. `links`: chunks linked from the named chunks take up to `top - seeds` places; then the first
   `seeds` hits so far (topped up from the ranker) are seeds, and the chunks they link to fill the
   remaining places — breadth first across seeds, each seed's links by the ranker's score;
3. `ppr`: the places left go to a Personalized PageRank walk from the hits placed so far
   (retrieval/ppr_stage.py), each ranker hit placed when the walk reaches nothing becoming a seed;
4. whatever places remain are filled from the ranker, best first.
The method `ppr` is `hybrid+names+ppr`: the question's names and the ranker's first hits seed the walk.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from hopgraph.errors import InputError
from hopgraph.records.retrieval import Budget, FoundBy, Hit, Retrieval, Via
from hopgraph.retrieval import rankers, stages
from hopgraph.retrieval.index import SearchIndex
from hopgraph.retrieval.ppr_stage import place_by_ppr
from hopgraph.retrieval.rankers import ALIASES, EXPANSIONS, RankRequest, StageTimer
from hopgraph.text.tokens import fit

# The compositions `hopgraph eval` scores when given none, and the examples errors and help give.
METHODS = ("vector", "bm25", "hybrid", "vector+links", "hybrid+links", "hybrid+names+links")
# With +ppr a name the question says makes one link at most (the namesake rule in run_method); a
# switch so bench/rules.py can measure it.
NAMESAKE_ONE_PLACE = True


@dataclass(frozen=True)
class MethodSpec:
    ranker: str
    names: bool
    links: bool
    ppr: bool = False


def parse_method(method: str) -> MethodSpec:
    method = ALIASES.get(method.strip().lower(), method)
    ranker, *rest = method.strip().lower().split("+")
    unknown = [part for part in rest if part not in EXPANSIONS]
    if ranker not in rankers.names() or unknown or len(set(rest)) != len(rest):
        raise InputError(f"unknown method {method!r}; use a ranker ({', '.join(rankers.names())}) optionally "
                         f"followed by +names, +links and/or +ppr, e.g. {', '.join(METHODS)}, ppr")
    return MethodSpec(ranker, "names" in rest, "links" in rest, "ppr" in rest)


def method_help() -> str:
    """How methods are spelled, with every registered ranker: the `--method` help and the HTTP
    description of `method`."""
    return (f"a ranker — {rankers.described()} — optionally followed by +names, +links and/or +ppr "
            f"(e.g. hybrid+names+links); ppr ({ALIASES['ppr']}); auto (the router chooses)")


def run_method(index: SearchIndex, question: str, method: str, budget: Budget, rrf_k: int = 10,
               spec: MethodSpec | None = None, keyword_weight: float = 1.0) -> Retrieval:
    """The method's hits for a question its caller checked (query/question.py); `spec`: the method
    already parsed, by a caller that parsed it once for the whole question; `keyword_weight`: what
    a BM25 rank counts in a fusion against a vector rank (retrieval/rankers.py)."""
    spec = spec or parse_method(method)
    timer = StageTimer()
    request = RankRequest(budget, rrf_k, timer, keyword_weight)
    ranking = rankers.get(spec.ranker).score(index, question, request)
    scores, ranks = ranking.scores, ranking.ranks
    found_by: FoundBy = spec.ranker  # type: ignore[assignment]
    picked: list[Hit] = []
    taken: dict[int, None] = {}  # rows in the order they were placed

    def take(row: int, how: FoundBy, via: Via | None = None, score: float | None = None) -> None:
        if row not in taken and len(picked) < budget.top:
            taken[row] = None
            hit = _hit(index, row, float(scores[row]) if score is None else score, how, via)
            hit.ranks = {name: r[row] for name, r in ranks.items() if row in r}
            picked.append(hit)

    named: list[tuple[int, str]] = []
    if spec.names:
        named = stages.names_in_question(index, question)
        # One chunk per name, the best-scored one: an ambiguous name ("The Sea Wolf", five films)
        # or a long document must not fill the budget on its own.
        best: dict[str, int] = {}
        for row, surface in named:
            if surface not in best or scores[row] > scores[best[surface]]:
                best[surface] = row
        for surface, row in sorted(best.items(), key=lambda pair: -scores[pair[1]]):
            take(row, "name", Via(-1, "question", surface))
        timer.step("names", f"{len({s for _, s in named})} name(s) in the question: "
                   + ", ".join(sorted({s for _, s in named})))
    if spec.links:
        named_rows = list(taken)
        # With +ppr, a link made by a name the question says leads to a namesake of the document the
        # names stage chose: a second reading of an ambiguous name ("Big Hero 6" the series → the
        # film) is worth one place, not all of them ("Daniel Hall" → three other Daniel Halls).
        # The plain composition keeps its measured rule.
        namesakes = {s.casefold(): 1 for _, s in named} if spec.ppr and NAMESAKE_ONE_PLACE else None
        if named_rows:  # the question's own names are the surest seeds: their links go first
            _place_links(index, scores, named_rows, budget.top - budget.seeds, taken, take, namesakes)
        for row in stages.top_rows(scores, budget.seeds, exclude=set(taken)):
            if len(taken) >= budget.seeds:
                break
            take(int(row), found_by)
        seeds = list(taken)[: budget.seeds]
        _place_links(index, scores, seeds, budget.top, taken, take, namesakes)
        timer.step("links", f"followed from {len(named_rows)} named chunk(s), then {len(seeds)} seed(s)")
    if spec.ppr:
        scores = np.asarray(scores)  # the walk mixes its mass with every row's score
        if not spec.links:  # the ranker's first hits join the named chunks as seeds
            for row in stages.top_rows(scores, budget.seeds, exclude=set(taken)):
                if len(taken) >= budget.seeds:
                    break
                take(int(row), found_by)
        usage = place_by_ppr(index, scores, taken, {row for row, _ in named}, budget, take, found_by, spec.links)
        timer.step("ppr", usage.describe(budget))
    for row in stages.top_rows(scores, budget.top, exclude=set(taken)):
        take(int(row), found_by)
    used = f"used {len(picked)} of {budget.top} places"
    if budget.context_tokens is not None:  # counted only when limited: tokenising costs ~0.1 ms a chunk
        costs = [index.tokens_of_row(row) for row in taken]
        kept = fit(costs, budget.context_tokens)
        picked, tokens = picked[:kept], sum(costs[:kept])
        used = f"used {kept} of {budget.top} places, {tokens} context tokens of {budget.context_tokens}"
    timer.step("fill", used)
    return Retrieval(method=method, hits=picked, trace=timer.steps)


def _place_links(index: SearchIndex, scores: stages.Scores, seeds: list[int], places: int,
                 taken: dict[int, None], take: Callable[..., None], namesakes: dict[str, int] | None = None) -> None:
    """Place up to `places` chunks linked from the seeds: breadth first — every seed's best link
    (the most about its name, then the best-scored) before any seed's second — so a comparison of
    two films gets both directors, not two people from one film. A link made by a name the
    question says (case-folded, a key of `namesakes`) leads to a namesake: it is placed only while
    that name has places left."""
    queues: dict[int, list[tuple[int, int]]] = {}
    weight: dict[int, float] = {}
    links = stages.linked_from(index, seeds)
    for (target, seed, name_id), w in zip(links, stages.link_weights_from(index, seeds), strict=True):
        if target not in taken and target not in weight:
            weight[target] = w
            queues.setdefault(seed, []).append((target, name_id))
    for queue in queues.values():  # where the name is the subject first, then by the ranker
        queue.sort(key=lambda pair: (-weight[pair[0]], -scores[pair[0]]))
    placed = 0
    for depth in range(max(map(len, queues.values()), default=0)):
        for seed, queue in queues.items():
            if placed >= places:
                return
            if depth < len(queue) and queue[depth][0] not in taken:
                target, name_id = queue[depth]
                name = index.name_surfaces.get(name_id, "").casefold()
                if namesakes is not None and name in namesakes:
                    if namesakes[name] == 0:
                        continue
                    namesakes[name] -= 1
                take(target, "link", Via(int(index.table.ids[seed]), index.title_of_row(seed),
                                         index.name_surfaces.get(name_id, "?")))
                placed += 1


def _hit(index: SearchIndex, row: int, score: float, how: FoundBy, via: Via | None) -> Hit:
    return Hit(chunk_id=int(index.table.ids[row]), doc_id=int(index.table.doc_ids[row]),
               title=index.title_of_row(row), text=index.table.texts[row], score=score,
               found_by=how, via=via, source=index.source_of_row(row))
