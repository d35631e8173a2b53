"""One token count for everything: the embedder's own WordPiece tokenizer, bundled with the package.

Chunk sizes, context budgets, report material and LLM batches are all measured with it, so a
budget means the same thing everywhere; `assets/minilm_tokenizer.json` ships in the wheel, so
counting never downloads anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from importlib import resources

from tokenizers import Tokenizer

from hopgraph.text.sentences import split_sentences


@cache
def wordpiece() -> Tokenizer:
    """The bundled MiniLM tokenizer, without truncation or padding (callers set their own)."""
    path = resources.files("hopgraph.assets").joinpath("minilm_tokenizer.json")
    tokenizer = Tokenizer.from_str(path.read_text(encoding="utf-8"))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


def count_tokens(text: str) -> int:
    """The text's length in the embedder's WordPiece tokens (what every budget is measured in)."""
    return len(wordpiece().encode(text, add_special_tokens=False).ids)


def fit(costs: Sequence[int], budget: int) -> int:
    """How many items, in order, fit in `budget` tokens: the longest prefix that does, and never
    fewer than one (a context needs one passage). Items are ranked best first by the caller, so
    stopping at the first that overflows keeps the best; skipping it to squeeze in a worse one would not."""
    total = 0
    for kept, cost in enumerate(costs):
        if kept and total + cost > budget:
            return kept
        total += cost
    return len(costs)


def pack(texts: Sequence[str], budget: int) -> list[str]:
    """The texts that fit in `budget` tokens (the rule of `fit`). A first text that alone is over the
    budget is cut to its leading sentences that fit — never mid-sentence; its first sentence stays
    even when that alone is over."""
    if not texts:
        return []
    costs = [count_tokens(text) for text in texts]
    kept = list(texts[: fit(costs, budget)])
    if costs[0] > budget:
        sentences = split_sentences(kept[0])
        kept[0] = " ".join(sentences[: fit([count_tokens(s) for s in sentences], budget)])
    return kept
