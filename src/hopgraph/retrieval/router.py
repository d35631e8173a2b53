"""The router: is a question a lookup, a multi-hop question or a global one — and the `auto` method.

Cheap signals first, in this order, each a rule about the *form* of questions (refined by reading
how the shared sets' questions were routed — their wording only, never their answers or gold
paragraphs; examples/router_questions.csv was written afterwards and never tuned against):
1. global — words that ask about the collection as a whole ("main themes", "across", "keep
   showing up", "summarize", "trends") while the question names no document of its own;
2. multi-hop, comparison — two or more named things, or a comparing form ("both", "same", "X or Y",
   "which … first / older / larger …", "compare");
3. multi-hop, bridge — a fact about something the question only describes: a relative clause after
   a noun ("the actor who starred in …"), a chain of relations ("the birthplace of the director
   of …"), a relation nested in another predicate ("Where was the director of X born?"), or a
   kinship word that is itself two hops ("grandfather", "mother-in-law");
4. lookup — one named thing, or a plain "what/who/when is …" form, with none of the above.
What none of these decides goes to the LLM when one is configured; otherwise it is multi-hop,
because the multi-hop method starts from the ranker's own best hits and loses least when wrong.
`auto` runs the routed method (METHOD_OF) and falls open to hybrid search when it finds nothing.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any, Literal

from hopgraph.llm import LLMClient, LLMError
from hopgraph.prompts import route as route_prompt
from hopgraph.records.retrieval import Budget, Hit, Retrieval, TraceStep
from hopgraph.retrieval import stages
from hopgraph.retrieval.index import SearchIndex
from hopgraph.retrieval.methods import run_method
from hopgraph.text.tokens import count_tokens, fit

Kind = Literal["lookup", "multihop", "global"]
AUTO = "auto"
# A question can read as a lookup and still hide a hop ("What Italian region does Slinzega come
# from?": the region is in another paragraph); measured on HotpotQA, sending lookups to plain hybrid
# search cost 0.955 → 0.890 bridge both-found@5. The graph method keeps the named document and the
# ranker's best hits, so lookups run it too; the kind still decides global search and is reported.
METHOD_OF: dict[str, str] = {"lookup": "hybrid+names+links+ppr", "multihop": "hybrid+names+links+ppr",
                             "global": "hybrid"}
FALLBACK = "hybrid"
# Issue 21, the graph never hurts: when a hit the graph placed (by a link or the walk) lies in a
# document the named or ranked hits already come from, the graph is following names around inside
# one long document (a novel's chapters all name the same people) and displacing the ranker's
# passages: `auto` steps aside to hybrid. The share was chosen on half A of the novel set (0.01,
# 0.34 and 0.5 tied at 0.555 against 0.548 at 1.0 and 0.514 without the rule; hybrid 0.565) and
# holds on half B (0.546 against 0.520); it never fires on HotpotQA's one-chunk paragraphs
# (docs/BENCHMARKS.md, bench/graph_signal.py).
STEP_ASIDE_SHARE = 0.01
GRAPH_PLACED = ("link", "ppr")
# When `auto` steps aside, the graph's hits in a document none of its other hits come from stay:
# only the hops inside the seeds' own documents are the weak evidence the rule is about, and a link
# to a new document is the second hop a bridge question needs ("Which brake-pad maker buys its
# friction compound from a company in Hosur?": the link from the Hosur move to the buyer's audit).
KEEP_CROSS_DOCUMENT = True
# The second step-aside signal: every named or ranked hit (two or more) comes from one document, so
# the question is about that document, and the graph's hops out of it follow a name the document
# shares with others ("Wood", "The Jews" in a novel) rather than the question.
STEP_ASIDE_ONE_DOCUMENT = True

# The third: the question's ranked hits lie in long documents (most of them in a document of at
# least LONG_DOCUMENT_CHUNKS chunks). Inside a book or a guideline every chapter names the same
# people and things, so a name link is no evidence that a passage is about the question; `auto`
# gives hybrid's hits. The length sits in the gap between the shared sets' documents: none of the
# supplier profiles, docs3 documents or paragraphs has more than 8 chunks, no novel fewer than 45.
LONG_DOCUMENT_CHUNKS = 20
# There hybrid counts a BM25 rank 1.5 times a vector rank. A long passage's vector is a mean over
# its windows (text/embed.py) and blurs the one detail a question asks about, where BM25 counts the
# detail's own words. Chosen on half A of the novels (weights 0.5–2 at k 10, 30, 60: 1.5 at k 10 is
# best, 0.570 against 0.565) and read on half B (0.559 against 0.551, bm25 alone 0.566):
# docs/BENCHMARKS.md, "Long documents lean on keywords".
LONG_DOCUMENT_KEYWORD_WEIGHT = 1.5

_GLOBAL = re.compile(
    r"\b(main|key|major|recurring|common|overall|general)\s+(themes?|topics?|issues?|risks?|patterns?|trends?|"
    r"problems?|ideas?|findings?|lessons?)\b|\bthemes?\b|\bacross\s+(the|all|these|every)\b|\boverall\b|"
    r"\bsummari[sz]e\b|\bsummary\b|\boverview\b|\btrends?\b|\bkeeps?\s+(showing|coming|cropping|turning)\s+up\b|"
    r"\brecurr|\bin general\b|\bthe big picture\b|\bas a whole\b|\bmost (common|frequent|often)\b|"
    r"\bwhat do (the|all|these) [\w\s]+ have in common\b", re.I)
_COMPARE = re.compile(
    r"\bboth\b|\bthe same\b|\bin common\b|\bcompared?\b|\bdifference between\b|\bolder\b|\byounger\b|"
    r"\b(first|earlier|later|longer|larger|bigger|smaller|higher|lower|more|fewer|less)\b.*\bor\b|"
    r"\bor\b.*\b(first|earlier|later|older|younger|longer|larger|bigger|smaller|higher|more|fewer)\b|"
    r"^(are|were|is|was|do|did)\b.+\band\b.+\b(both|same|either)?", re.I)
_RELATIVE = re.compile(r"\b\w+,?\s+((to|in|of|from|for|by|on|at|with) )?(who|that|which|whose|whom|where)\s+\S",
                       re.I)
# An indefinite description stands for something the question does not name: "a film released on
# June 14th", "a man born in …", "a network founded by …" — the bridge entity of a two-hop question.
_DESCRIBED = re.compile(r"\b(a|an)\s+([\w-]+\s+){0,3}?(\w+ed|born|known|made|written|built|founded|from|"
                        r"including|starring)\s+(in|on|by|for|as|from|under|at|with|\w+)\b", re.I)
_OF_CHAIN = re.compile(r"\bthe\s+(\w+\s+){0,2}?(of|in|from|for|by)\s+the\s+(\w+\s+){0,3}?(of|by|in|that|who)\b", re.I)
# A relation of something named or described: "the director of film X", "X's father".
_RELATION = re.compile(r"\bthe\s+(\w+[\s-]+){0,3}?\w+\s+of\b|[\w)]['’]s?\s+(\w+\s+)?(father|mother|husband|wife|"
                       r"spouse|son|daughter|child|brother|sister|parent|director|author|creator|founder|owner|"
                       r"producer|composer|writer|performer|designer|manufacturer|publisher|successor|predecessor|"
                       r"capital|headquarters|birthplace|home)\b", re.I)
_ATTRIBUTE = re.compile(r"\b(date|place|year|cause|country|city|time)\s+of\s+(birth|death|burial|origin|"
                        r"citizenship|release|founding)\b", re.I)
_MARKER = re.compile(r"\bof\b|['’]s\b", re.I)  # relation markers: two of them are a chain of relations
# "Who is the director of X?" asks for the relation itself: a lookup. Anything else around a
# relation ("Where was the director of X born?", "What nationality is X's husband?") nests it.
_COPULA_LOOKUP = re.compile(r"^(who|what)\s+(is|was|are|were)\s+(the\s+[\w\s-]+?\s+of\s+[^,]+?|[^,]+?'s\s+\w+)\??$",
                            re.I)
_KINSHIP = re.compile(r"\b(grand(father|mother|son|daughter|child|parent)\w*|\w+-in-law|uncle|aunt|nephew|niece|"
                      r"cousin|step(father|mother|son|daughter))\b", re.I)
_LOOKUP_FORM = re.compile(r"^(what|who|when|where|how many|how much|how old|which year|define)\b", re.I)


@dataclass(frozen=True)
class Route:
    """The router's decision: the kind of question, the retrieval method for it, and why."""

    kind: Kind
    method: str
    reason: str
    decided_by: str = "rules"  # "rules" | "llm" | "default"
    signals: dict[str, Any] = field(default_factory=dict)

    def describe(self) -> str:
        return f"{self.kind} → {self.method} ({self.decided_by}): {self.reason}"


def question_signals(question: str, index: SearchIndex | None) -> dict[str, Any]:
    """What the cheap rules look at, all of it reported in the route."""
    names = sorted({s for _, s in stages.names_in_question(index, question)}) if index is not None else []
    return {"names": names,
            "global_words": _match(_GLOBAL, question), "comparison_words": _match(_COMPARE, question),
            "relative_clause": _match(_RELATIVE, question), "described_entity": _match(_DESCRIBED, question),
            "relation_chain": _match(_OF_CHAIN, question)
            or _nested_relation(question), "kinship": _match(_KINSHIP, question),
            "lookup_form": _match(_LOOKUP_FORM, question)}


def route(question: str, index: SearchIndex | None = None, llm: LLMClient | None = None) -> Route:
    """Classify a question by cheap signals; the LLM only when they leave it undecided."""
    signals = question_signals(question, index)
    decided = _by_rules(signals)
    if decided is not None:
        kind, reason = decided
        return Route(kind, METHOD_OF[kind], reason, "rules", signals)
    if llm is not None:
        try:
            reply = llm.complete_json(route_prompt.messages(question, _summary(signals)), route_prompt.RouteReply,
                                      max_tokens=120, step="route").value
            return Route(reply.kind, METHOD_OF[reply.kind], f"LLM: {reply.reason}", "llm", signals)
        except LLMError as err:  # the router must never be the reason a question fails
            signals = {**signals, "llm_error": str(err)}
    return Route("multihop", METHOD_OF["multihop"], "no signal decided; multi-hop search also starts from the "
                 "ranker's best hits, so it loses least if the question was a lookup", "default", signals)


def _by_rules(s: dict[str, Any]) -> tuple[Kind, str] | None:
    names = s["names"]
    if s["global_words"] and not names:
        return "global", f'asks about the collection as a whole ("{s["global_words"]}") and names no document'
    if len(names) >= 2:
        return "multihop", f"names {len(names)} documents: {', '.join(names[:4])}"
    if s["comparison_words"]:
        return "multihop", f'comparison form ("{s["comparison_words"]}")'
    for signal, label in (("relative_clause", "a relative clause"), ("described_entity", "an unnamed thing described"),
                          ("relation_chain", "a chain of relations"),
                          ("kinship", "a two-hop kinship word")):
        if s[signal]:
            return "multihop", f'bridge form: {label} ("{s[signal]}")'
    if s["global_words"]:
        return None  # summary words about a named document: a lookup or a global question, undecided
    if names:
        return "lookup", f"one named document ({names[0]}) and no multi-hop form"
    if s["lookup_form"]:
        return "lookup", f'a plain question form ("{s["lookup_form"]}") naming nothing, no multi-hop form'
    return None


def _nested_relation(question: str) -> str:
    """A relation phrase the question does something more with than ask for it, or two relations."""
    flat = _ATTRIBUTE.sub("attribute", question.strip())  # "date of birth" is one attribute, not a hop
    relation = _match(_RELATION, flat)
    if relation and len(_MARKER.findall(flat)) >= 2:
        return relation
    return relation if relation and not _COPULA_LOOKUP.match(flat) else ""


def _match(pattern: re.Pattern[str], text: str) -> str:
    found = pattern.search(text)
    return found.group(0).strip() if found else ""


def _summary(signals: dict[str, Any]) -> str:
    return "; ".join(f"{k}: {v}" for k, v in signals.items() if v) or "nothing"


def own_document_share(hits: list[Hit]) -> float:
    """Of the hits placed through the graph (a link or the walk), the share that lie in a document
    a named or ranked hit comes from; 0 when the graph placed none."""
    placed = [h for h in hits if h.found_by in GRAPH_PLACED]
    others = {h.doc_id for h in hits if h.found_by not in GRAPH_PLACED}
    return sum(h.doc_id in others for h in placed) / len(placed) if placed else 0.0


def seeds_in_one_document(hits: list[Hit]) -> bool:
    """Whether the graph placed a hit while every other hit (at least two) lies in one document."""
    others = [h.doc_id for h in hits if h.found_by not in GRAPH_PLACED]
    return len(others) < len(hits) and len(others) >= 2 and len(set(others)) == 1


def in_long_documents(index: SearchIndex, hits: list[Hit]) -> bool:
    """Whether most of the named or ranked hits lie in documents of `LONG_DOCUMENT_CHUNKS` or more."""
    ranked = [h.doc_id for h in hits if h.found_by not in GRAPH_PLACED]
    lengths = index.chunks_in_document(ranked)
    return bool(ranked) and 2 * sum(n >= LONG_DOCUMENT_CHUNKS for n in lengths) > len(ranked)


def cross_document_hits(graph_hits: list[Hit], fallback_hits: list[Hit], top: int) -> list[Hit]:
    """The hits the graph placed in a document none of the fallback's kept hits come from, reached
    from one of those kept hits (a hop from a hit that itself goes is no evidence for the question)
    and among a ranker's candidates for the question (`ranks`: a hop through a name every book
    shares, "Wood", "The French", lands on a passage the question's words do not reach at all)."""
    kept: list[Hit] = []
    for hit in graph_hits:
        staying = fallback_hits[: top - len(kept) - 1]
        if (hit.found_by in GRAPH_PLACED and hit.via is not None and hit.ranks
                and hit.doc_id not in {h.doc_id for h in staying}
                and hit.via.from_chunk in {h.chunk_id for h in staying}):
            kept.append(hit)
    return kept


def step_aside_hits(graph_hits: list[Hit], fallback_hits: list[Hit], top: int) -> list[Hit]:
    """The fallback's best hits, with the graph's cross-document hits kept in the last places."""
    kept = cross_document_hits(graph_hits, fallback_hits, top) if KEEP_CROSS_DOCUMENT else []
    ids = {h.chunk_id for h in kept}
    return [h for h in fallback_hits if h.chunk_id not in ids][: max(0, top - len(kept))] + kept


def leaning_on_keywords(index: SearchIndex, question: str, budget: Budget, rrf_k: int) -> Retrieval | None:
    """Hybrid search with BM25's ranks weighted LONG_DOCUMENT_KEYWORD_WEIGHT×, when most of its hits
    lie in documents of LONG_DOCUMENT_CHUNKS or more; else None. Decided before any graph stage
    runs, so on long documents `auto` costs one hybrid search; a store without such a document
    runs nothing here."""
    if index.longest_document() < LONG_DOCUMENT_CHUNKS:
        return None
    leaning = run_method(index, question, FALLBACK, budget, rrf_k, keyword_weight=LONG_DOCUMENT_KEYWORD_WEIGHT)
    return leaning if in_long_documents(index, leaning.hits) else None


def _checked_graph_hits(index: SearchIndex, question: str, chosen: Route, hits: list[Hit], budget: Budget,
                        rrf_k: int, steps: list[TraceStep]) -> list[Hit]:
    """The routed method's hits, unless it fell open (said in `steps`) or its graph evidence is weak
    (the step-aside rules above): then hybrid's, with the graph's cross-document hits kept."""
    if chosen.method == FALLBACK:
        return hits
    if not any(h.found_by in ("name", "link", "ppr") for h in hits):
        steps.append(TraceStep("fall open", 0.0, f"{chosen.method} found nothing through names or links: "
                               f"these are {FALLBACK} search's hits"))
        return hits
    share_fires = own_document_share(hits) >= STEP_ASIDE_SHARE
    if not share_fires and not (STEP_ASIDE_ONE_DOCUMENT and seeds_in_one_document(hits)):
        return hits
    aside = run_method(index, question, FALLBACK, budget, rrf_k)
    kept = step_aside_hits(hits, aside.hits, budget.top)
    if budget.context_tokens is not None:  # a kept hit took a place hybrid's budget was counted without
        kept = kept[: fit([count_tokens(h.text) for h in kept], budget.context_tokens)]
    why = ("placed a hit through the graph inside a document its other hits come from" if share_fires
           else "left the one document all its other hits come from")
    steps += [TraceStep("step aside", 0.0, f"{chosen.method} {why}: {FALLBACK} search's hits instead, keeping "
                        f"{sum(h.found_by in GRAPH_PLACED for h in kept)} it placed in a new document"),
              *aside.trace]
    return kept


def run_auto(index: SearchIndex, question: str, budget: Budget, rrf_k: int = 10,
             llm: LLMClient | None = None, chosen: Route | None = None) -> Retrieval:
    """Route (unless the caller already did: `chosen`), then run the routed method. A global
    question in a retrieval context gets hybrid search (community search is `hopgraph ask --mode
    auto`'s job); a question whose hits lie in long documents gets keyword-leaning hybrid search
    and no graph method; a graph method that found nothing through the graph says it fell open (its
    hits are then the ranker's), and fewer hits than `top` (a tiny corpus) are topped up from hybrid."""
    started = time.perf_counter()
    chosen = chosen or route(question, index, llm)
    note = " (community search is not a retrieval method: hybrid search here)" if chosen.kind == "global" else ""
    steps = [TraceStep("route", (time.perf_counter() - started) * 1000, chosen.describe() + note)]
    leaning = leaning_on_keywords(index, question, budget, rrf_k)
    if leaning is not None:
        steps += [TraceStep("step aside", 0.0, f"most of {FALLBACK} search's hits lie in documents of "
                            f"{LONG_DOCUMENT_CHUNKS}+ chunks, where name links are weak evidence: its hits with "
                            f"bm25 ranks weighted {LONG_DOCUMENT_KEYWORD_WEIGHT:g}×, no {chosen.method}"),
                  *leaning.trace]
        hits = leaning.hits
    else:
        retrieval = run_method(index, question, chosen.method, budget, rrf_k)
        steps += retrieval.trace
        hits = _checked_graph_hits(index, question, chosen, retrieval.hits, budget, rrf_k, steps)
    if len(hits) < budget.top:
        extra = run_method(index, question, FALLBACK, budget, rrf_k)
        seen = {h.chunk_id for h in hits}
        hits = hits + [h for h in extra.hits if h.chunk_id not in seen][: budget.top - len(hits)]
        steps += [*extra.trace, TraceStep("top up", 0.0, f"{len(hits)} hits after topping up from {FALLBACK}")]
    steps.append(TraceStep("budget", 0.0, f"{budget.describe()}; used {len(hits)} places"))
    return Retrieval(method=f"auto:{chosen.method}", hits=hits, trace=steps)
