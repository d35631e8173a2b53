"""Records of communities: the hierarchical community tree and the reports written about it."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field

EXTRACTIVE = "extractive"  # the writer of reports made without a model


@dataclass
class Community:
    id: int
    level: int  # 0 = coarsest
    parent: int | None
    entities: list[int]  # entity ids, sorted
    children: list[int] = field(default_factory=list)
    hash: str = ""  # of its members and internal relations: which stored report is still valid

    @property
    def size(self) -> int:
        return len(self.entities)


@dataclass
class CommunityTree:
    communities: list[Community]  # position = id; parents before children
    seconds: float = 0.0
    how: str = ""  # how this tree came to be, when it was just made (communities/incremental.py)

    def __len__(self) -> int:
        return len(self.communities)

    @property
    def levels(self) -> int:
        return 1 + max((c.level for c in self.communities), default=-1)

    def at_level(self, level: int) -> list[Community]:
        """A partition of every community entity at this depth (leaves from above fill the gaps)."""
        return [c for c in self.communities if c.level == level or (c.level < level and not c.children)]

    def stats(self) -> dict[str, object]:
        """Levels, communities per level and their size distribution — what `hopgraph communities` prints."""
        per_level = []
        for level in range(self.levels):
            sizes = sorted(c.size for c in self.communities if c.level == level)
            per_level.append({"level": level, "communities": len(sizes), "min": sizes[0], "median":
                              statistics.median(sizes), "max": sizes[-1], "singletons": sizes.count(1)})
        return {"levels": self.levels, "communities": len(self), "per_level": per_level,
                "seconds": round(self.seconds, 3)}


@dataclass
class Finding:
    summary: str
    explanation: str = ""
    chunk_ids: list[int] = field(default_factory=list)


@dataclass
class CommunityReport:
    community_id: int
    level: int
    title: str
    summary: str
    rating: float  # importance, 0-10
    entities: list[str]  # key entities, most central first
    relations: list[str]  # key relations, heaviest first
    findings: list[Finding]
    model: str = EXTRACTIVE
    hash: str = ""
    # The community's most distinctive phrases (communities/labels.py), best first; None = not
    # labelled yet (a report stored before labels existed). Not part of `text()`: what an LLM reads
    # of a report is unchanged, so recorded map requests stay byte-identical.
    labels: list[str] | None = None
    labelled_by: str = ""  # how the labels were made (labels.NOUN_PHRASES, …): other ones are made again

    @property
    def citations(self) -> list[int]:
        return list(dict.fromkeys(c for f in self.findings for c in f.chunk_ids))

    def text(self) -> str:
        """The report as plain text: what ranking embeds and what an LLM reads."""
        lines = [f"# {self.title}", self.summary, "Entities: " + ", ".join(self.entities[:12])]
        lines += [f"- {f.summary} {f.explanation}".rstrip() + cite(f.chunk_ids) for f in self.findings]
        return "\n".join(lines)


def cite(chunk_ids: Sequence[int]) -> str:
    return f" [chunks {', '.join(map(str, chunk_ids))}]" if chunk_ids else ""
