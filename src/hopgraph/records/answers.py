"""What answering a question spent: LLM calls and tokens, and the seconds of each stage."""

from __future__ import annotations

from dataclasses import dataclass, field


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
