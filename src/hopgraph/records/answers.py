"""The one result every answering mode returns (`Answer`), what it spent (`Spend`), and the steps of
iterative retrieval. `Answer.to_json()` is the schema `hopgraph ask --json` prints (README, "ask --json")."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from hopgraph.records.knowledge import Path
from hopgraph.records.retrieval import Hit, Retrieval

# Bump when a key of `Answer.to_json()` changes meaning or goes away. 2: a hit's `score` is 1/rank
# (monotone), the number of the stage that placed it is `stage_score`.
JSON_SCHEMA_VERSION = 2


@dataclass
class Spend:
    """One question's cost. `tokens_*` count the replies used, fresh or served from the reply cache
    (`cached_calls` of the calls were), so a re-run reports what the answer costs, not what the
    cache saved; `seconds` is per stage (`route`, `retrieve`, `answer`, `total`)."""

    llm_calls: int = 0
    cached_calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    seconds: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Step:
    """One step of iterative retrieval: the search it ran, the chunks that search added, and what
    the model made of everything found so far (an answer, or the next search)."""

    search: str
    added: list[int]
    known: str
    answer: str
    next_search: str


@dataclass(frozen=True)
class ShortAnswer:
    """A short answer copied from the evidence ("Ohio River", "1887", "yes"): the sentence that
    holds it (or that settled a yes/no or a choice), the chunk cited, and the kind of answer the
    question asked for (entity labels such as "GPE,LOC", or YESNO, CHOICE, ANY)."""

    text: str
    sentence: str
    chunk_id: int | None
    kind: str
    score: float = 0.0


@dataclass
class Answer:
    """What `ask` did in any mode: the mode that ran and why, the answer text with its checked
    citations, the hits and relation paths it came from, what it spent, and a note for anything it
    could not do (a fall-open, dropped citations)."""

    question: str
    mode: str
    why: str
    retrieval: Retrieval | None = None
    text: str = ""
    citations: list[int] = field(default_factory=list)
    writer: str = ""  # who wrote `text`: "extractive" or "llm:<model>"; "" when there is none (--no-answer)
    paths: list[Path] = field(default_factory=list)  # `paths` mode: the relation paths it answered from
    details: dict[str, Any] = field(default_factory=dict)  # what the mode itself reports (global: map calls, …)
    note: str = ""
    sources: dict[int, str] = field(default_factory=dict)  # cited chunk id → `report.pdf#p3` (the facade fills it)
    used: Spend = field(default_factory=Spend)  # LLM calls, tokens and seconds per stage (the facade fills it)
    steps: list[Step] = field(default_factory=list)  # `iterative` mode: each retrieval and the model's reply
    short: ShortAnswer | None = None  # search without an LLM: a span of the hits, or None (none good enough)

    @property
    def hits(self) -> list[Hit]:
        return self.retrieval.hits if self.retrieval is not None else []

    def to_json(self) -> dict[str, Any]:
        """The documented JSON form (README, "ask --json"): the same keys for every mode."""
        return {
            "schema": JSON_SCHEMA_VERSION,
            "question": self.question, "mode": self.mode, "why": self.why,
            "answer": {"text": self.text, "writer": self.writer,
                       "citations": [{"chunk": c, "source": self.sources.get(c, "")} for c in self.citations]},
            "short_answer": None if self.short is None else {
                "text": self.short.text, "sentence": self.short.sentence, "chunk": self.short.chunk_id,
                "source": self.sources.get(self.short.chunk_id, "") if self.short.chunk_id is not None else "",
                "kind": self.short.kind},
            "hits": [_hit_json(rank, hit) for rank, hit in enumerate(self.hits, start=1)],
            "paths": [[asdict(hop) for hop in path] for path in self.paths],
            "steps": [asdict(step) for step in self.steps],
            "retrieval": None if self.retrieval is None else {
                "method": self.retrieval.method, "ms": round(self.retrieval.ms, 3),
                "trace": [asdict(step) for step in self.retrieval.trace]},
            "used": asdict(self.used),
            "details": self.details,
            "note": self.note,
        }


def _hit_json(rank: int, hit: Hit) -> dict[str, Any]:
    stage_score = None if hit.stage_score is None else round(hit.stage_score, 6)
    return {"rank": rank, "chunk": hit.chunk_id, "doc": hit.doc_id, "title": hit.title, "source": hit.source,
            "score": round(hit.score, 6), "stage_score": stage_score, "found_by": hit.found_by,
            "how": hit.describe_path(), "via": asdict(hit.via) if hit.via is not None else None,
            "ranks": hit.ranks, "text": hit.text}
