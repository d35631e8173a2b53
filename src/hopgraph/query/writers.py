"""The writers of an answer's text (`Draft`): the LLM given the evidence, or extractive when no LLM
is configured. A mode turns a draft into the `Answer` record (records/answers.py) it returns.

Extractive answers list each relation chain and, under every hop, the sentence of its source chunk
that states it, so a reader can check each step; either way the citations are chunk ids.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from contextlib import closing
from dataclasses import dataclass, field

from hopgraph.llm import LLMClient, StepUsage, strip_fences
from hopgraph.llm.partial import field_text
from hopgraph.prompts import answer as answer_prompt
from hopgraph.prompts import search_answer as search_answer_prompt
from hopgraph.records.answers import Spend
from hopgraph.records.knowledge import Hop, KnowledgeGraph, Relation
from hopgraph.records.retrieval import Hit
from hopgraph.text.sentences import is_question, prose_sentences, split_sentences
from hopgraph.text.tokens import pack

NO_ANSWER = "(the model "  # how every no-answer below begins: eval scores it as an empty answer
NO_ANSWER_EMPTY = "(the model gave an empty answer)"
NO_ANSWER_REFUSED = "(the model found no answer in the hits)"
ChunkTexts = Callable[[Iterable[int]], dict[int, str]]  # chunk ids → their texts (the store's lookup)
OnToken = Callable[[str], None]  # told each piece of an answer's text as the model writes it


@dataclass
class Draft:
    """The text of an answer as one writer made it (the LLM, or extractive), with its checked
    citations: what a mode puts in its `Answer`."""

    text: str
    citations: list[int] = field(default_factory=list)
    mode: str = "extractive"
    dropped: int = 0  # citations of chunks the model was not given: dropped, never shown as sources


# What a model writes when the evidence does not hold the answer: shown as such, never scored or cited
# as an answer. Matched at the start of the reply, so "No" (an answer to a yes/no question) is not one.
_REFUSAL = re.compile(r"^\W*(i (do not|don't|cannot|can't) (know|answer|tell|say|find|determine)|unknown\W*$|"
                      r"not (stated|mentioned|given|found|known|available|specified)\b|"
                      r"(the )?(chunks?|passages?|context|evidence|text)s? (do(es)? not|don't|doesn't)|"
                      r"(it )?(cannot|can't) be (determined|answered|found)|no (information|answer)\b|"
                      r"there is no (information|mention)|insufficient)", re.IGNORECASE)


def refused(text: str) -> bool:
    """The reply says the evidence does not answer ("I don't know", "The chunks do not say …")."""
    return bool(_REFUSAL.match(text.strip()))


def checked_citations(cited: Sequence[int], given: Iterable[int]) -> tuple[list[int], int]:
    """The one citation policy of every mode: a citation to a chunk that was given stays (once, in
    order); one to a chunk that was not is dropped and counted."""
    allowed = set(given)
    kept = list(dict.fromkeys(c for c in cited if c in allowed))
    return kept, len({c for c in cited if c not in allowed})


def supporting_sentence(text: str, names: Sequence[str]) -> str:
    """The sentence of `text` that mentions the most of `names` (case-insensitive), first on ties."""
    prose = prose_sentences(text)  # a question or a heading only when nothing else
    sentences = [s for s in prose if not is_question(s)] or prose or split_sentences(text)
    if not sentences:
        return text.strip()
    folded = [n.casefold() for n in names if n]
    return max(sentences, key=lambda s: sum(n in s.casefold() for n in folded))


def _names(graph: KnowledgeGraph | None, name: str) -> list[str]:
    entity = graph.find(name) if graph else None
    return [name, *(entity.aliases if entity else [])]


def hop_evidence(hop: Hop, chunk_texts: dict[int, str], graph: KnowledgeGraph | None) -> str:
    text = chunk_texts.get(hop.chunk_id, "")
    sentence = supporting_sentence(text, _names(graph, hop.source) + _names(graph, hop.target))
    return f'    {hop.source} —{hop.relation}→ {hop.target}  [chunk {hop.chunk_id}]: "{sentence}"'


def chain_text(path: Sequence[Hop]) -> str:
    """The path as a walk from its first entity: `A —SUPPLIES→ B` forward, `B ←SUPPLIES— A` against
    an edge (a relation followed in reverse)."""
    if not path:
        return ""
    first = path[0]
    shared = {path[1].source, path[1].target} if len(path) > 1 else set()
    current = first.target if first.source in shared and first.target not in shared else first.source
    parts = [current]
    for hop in path:
        if hop.source == current:
            parts.append(f"—{hop.relation}→ {hop.target}")
            current = hop.target
        else:
            parts.append(f"←{hop.relation}— {hop.source}")
            current = hop.source
    return " ".join(parts)


def extractive_from_paths(paths: Sequence[Sequence[Hop]], chunk_texts: dict[int, str],
                          graph: KnowledgeGraph | None = None) -> Draft:
    if not paths:
        return Draft("No path in the knowledge graph answers this.")
    lines, cited = [], []
    for number, path in enumerate(paths, start=1):
        lines.append(f"{number}. {chain_text(path)}")
        lines += [hop_evidence(hop, chunk_texts, graph) for hop in path]
        cited += [hop.chunk_id for hop in path]
    return Draft("\n".join(lines), list(dict.fromkeys(cited)))


def relation_hop(graph: KnowledgeGraph, relation: Relation) -> Hop:
    """The relation as a hop between entity names, cited by its first source chunk (the one way
    every mode and `paths` turn a relation into a hop)."""
    first = min(relation.sources, key=lambda s: s.chunk_id)
    return Hop(graph.entities[relation.source].name, relation.relation, graph.entities[relation.target].name,
               first.chunk_id, first.doc_id)


def relation_hops(graph: KnowledgeGraph, relations: Sequence[Relation]) -> list[Hop]:
    return [relation_hop(graph, relation) for relation in relations]


def extractive_from_relations(graph: KnowledgeGraph, relations: Sequence[Relation],
                              chunk_texts: dict[int, str]) -> Draft:
    if not relations:
        return Draft("The knowledge graph holds no relation about this.")
    hops = relation_hops(graph, relations)
    lines = [hop_evidence(hop, chunk_texts, graph).strip() for hop in hops]
    return Draft("\n".join(lines), list(dict.fromkeys(h.chunk_id for h in hops)))


def llm_answer(client: LLMClient, question: str, chains: list[str], chunk_texts: dict[int, str]) -> Draft:
    """The model answers from the chains and chunks; citations outside the evidence are dropped
    and counted (`checked_citations`)."""
    reply = client.complete_json(answer_prompt.messages(question, chains, chunk_texts), answer_prompt.Answer,
                                 max_tokens=800, step="answer").value
    citations, dropped = checked_citations(reply.citations, chunk_texts)
    return Draft(reply.answer, citations, mode=f"llm:{client.model}", dropped=dropped)


def llm_answer_from_hits(client: LLMClient, question: str, hits: Sequence[Hit], context_tokens: int,
                         on_token: OnToken | None = None) -> Draft:
    """The model answers from the search hits packed into `context_tokens` in rank order (a first
    hit over the budget is cut between sentences, text/tokens.pack); citations are checked against
    the chunks it was given. With `on_token`, the reply streams and the answer's text is told to it
    piece by piece as the model writes it; the checks are the same once the reply is whole."""
    messages, given = hits_prompt(question, hits, context_tokens)
    if on_token is None:
        reply = client.complete_json(messages, search_answer_prompt.Answer, max_tokens=400, step="answer").value
    else:
        reply = streamed_reply(client, messages, on_token)
    return checked_hits_answer(reply, given, f"llm:{client.model}")


def hits_prompt(question: str, hits: Sequence[Hit], context_tokens: int) -> tuple[list[dict], dict[int, str]]:
    """The answer prompt's messages, and the chunks it gives the model (id → the text it reads)."""
    texts = pack([hit.text for hit in hits], context_tokens)
    given = {hit.chunk_id: text for hit, text in zip(hits, texts, strict=False)}
    return search_answer_prompt.messages(question, given), given


def streamed_reply(client: LLMClient, messages: list[dict], on_token: OnToken) -> search_answer_prompt.Answer:
    """The reply streamed, its `answer` field told to `on_token` as it grows; the whole reply parsed
    at the end. An `on_token` that raises stops the stream (the connection to the model is closed)."""
    raw: list[str] = []

    def kept(pieces: Iterable[str]) -> Iterable[str]:
        for piece in pieces:
            raw.append(piece)
            yield piece

    with closing(client.stream_text(messages, 400, "answer", response_model=search_answer_prompt.Answer)) as pieces:
        for piece in field_text(kept(pieces), "answer"):
            on_token(piece)
    return search_answer_prompt.Answer.model_validate_json(strip_fences("".join(raw)))  # validated by stream_text


def checked_hits_answer(reply: search_answer_prompt.Answer, given: dict[int, str], mode: str) -> Draft:
    """The one check of a reply to the hits, streamed or not: citations of chunks not given are
    dropped and counted; an empty reply or a refusal is said to be one, never shown as an answer."""
    citations, dropped = checked_citations(reply.citations, given)
    said = reply.answer.strip()
    if not said:
        return Draft(NO_ANSWER_EMPTY, [], mode, dropped)
    if refused(said):
        return Draft(f"{NO_ANSWER_REFUSED}: \"{said}\"", [], mode, dropped)
    return Draft(said, citations, mode, dropped)


def with_dropped(note: str, dropped: int) -> str:
    """The note, plus how many citations of chunks the model was not given were dropped."""
    if not dropped:
        return note
    said = f"{dropped} citation(s) of chunks the model was not given were dropped"
    return f"{note}; {said}" if note else said


def spend_of(used: StepUsage, total_seconds: float, answer_seconds: float) -> Spend:
    """What one `ask` spent: the LLM calls and tokens (paid and cached), and the seconds of its
    stages (retrieval as the search measured it; `answer`, the search answer written after it)."""
    return Spend(used.calls, used.cached, used.tokens_in + used.cached_tokens_in,
                 used.tokens_out + used.cached_tokens_out,
                 {"total": round(total_seconds, 4), "answer": round(answer_seconds, 4)})
