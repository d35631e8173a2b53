"""Judges of evidence claims: which of a question's reference claims can be found in the retrieved
chunks. One registry (JUDGES), one judge per name:

- `lexical`: the scorer of the novel set's README, no model. A claim's tokens are the runs of
  letters and digits of its NFKC, lower-cased text (’ read as '); the claim is found when at least
  80 % of its distinct tokens occur in ONE chunk.
- `llm`: the configured model is asked, claim by claim, whether the claim can be attributed to the
  retrieved chunks (GraphRAG-Bench's own scorer asks the same). Replies are cached in the store's
  LLM cache as they arrive, so a run that stops resumes where it stopped, and they are counted.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from hopgraph.engine import HopGraph
from hopgraph.errors import InputError
from hopgraph.llm import LLMClient, LLMError, LLMRequest, LLMResult
from hopgraph.prompts import attribution

TOKEN = re.compile(r"[^\W_]+")
FOUND_SHARE = 0.8  # of a claim's distinct tokens, in one chunk
JUDGE_STEP = "judge"  # the LLM client's usage is counted under this step


@dataclass(frozen=True)
class ClaimsToJudge:
    """One question's reference claims and the chunk texts retrieved for it."""

    claims: tuple[str, ...]
    passages: tuple[str, ...]


class Judge(Protocol):
    name: str

    def judge(self, items: Sequence[ClaimsToJudge]) -> list[list[bool]]:
        """One verdict per claim, per item, in order."""
        ...


def claim_tokens(text: str) -> frozenset[str]:
    normal = unicodedata.normalize("NFKC", text).lower().replace("\u2019", "'")
    return frozenset(TOKEN.findall(normal))


def lexically_found(claim: frozenset[str], chunks: Iterable[frozenset[str]]) -> bool:
    """At least FOUND_SHARE of the claim's tokens in one chunk; a claim with no tokens is never found."""
    if not claim:
        return False
    needed = FOUND_SHARE * len(claim)
    return any(len(claim & chunk) >= needed for chunk in chunks)


class LexicalJudge:
    name = "lexical"

    def __init__(self) -> None:
        self._chunk_tokens: dict[str, frozenset[str]] = {}  # a chunk is retrieved by many methods

    def tokens_of(self, text: str) -> frozenset[str]:
        if text not in self._chunk_tokens:
            self._chunk_tokens[text] = claim_tokens(text)
        return self._chunk_tokens[text]

    def judge(self, items: Sequence[ClaimsToJudge]) -> list[list[bool]]:
        verdicts = []
        for item in items:
            chunks = [self.tokens_of(text) for text in item.passages]
            verdicts.append([lexically_found(claim_tokens(claim), chunks) for claim in item.claims])
        return verdicts


class LLMJudge:
    name = "llm"

    def __init__(self, client: LLMClient) -> None:
        self.client = client

    def judge(self, items: Sequence[ClaimsToJudge]) -> list[list[bool]]:
        """Every claim of every item in one concurrent batch; without passages a claim is not found
        and costs no call."""
        asked = [(i, claim) for i, item in enumerate(items) if item.passages for claim in item.claims]
        requests = [LLMRequest(attribution.messages(claim, list(items[i].passages)),
                               attribution.AttributionReply, max_tokens=16, step=JUDGE_STEP)
                    for i, claim in asked]
        replies = complete_or_resume(self.client, requests, "claim judgements")
        verdicts: list[list[bool]] = [[] if item.passages else [False] * len(item.claims) for item in items]
        for (i, _), reply in zip(asked, replies, strict=True):
            verdicts[i].append(bool(reply.value.attributable))
        return verdicts


def complete_or_resume(client: LLMClient, requests: Sequence[LLMRequest], what: str) -> list[LLMResult[Any]]:
    """Every request's reply; if any failed, an LLMError that counts them and says the rest are cached,
    so running the same command again resumes where this run stopped."""
    replies = client.complete_many(requests)
    failed = [reply for reply in replies if isinstance(reply, LLMError)]
    if failed:
        raise LLMError(f"{len(failed)} of {len(replies)} {what} failed ({failed[0]}); the "
                       f"{len(replies) - len(failed)} received are cached: run the same command again to resume")
    return [reply for reply in replies if not isinstance(reply, LLMError)]


def _llm_judge(hg: HopGraph) -> Judge:
    if not hg.has_llm:
        raise InputError("--judge llm needs an LLM: set llm_url and llm_model in hopgraph.toml "
                         "(or HOPGRAPH_LLM_URL / HOPGRAPH_LLM_MODEL)")
    return LLMJudge(hg.llm())


JUDGES: dict[str, Callable[[HopGraph], Judge]] = {"lexical": lambda hg: LexicalJudge(), "llm": _llm_judge}


def check_judge(name: str) -> str:
    if name not in JUDGES:
        raise InputError(f"unknown judge {name!r}; use {' or '.join(JUDGES)}")
    return name
