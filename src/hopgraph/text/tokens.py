"""One token count for everything: the embedder's own WordPiece tokenizer, bundled with the package.

Chunk sizes, context budgets, report material and LLM batches are all measured with it, so a
budget means the same thing everywhere; `assets/minilm_tokenizer.json` ships in the wheel, so
counting never downloads anything.

A "word" (a run without spaces or punctuation) longer than `LONG_WORD_CHARS` is cut into pieces of
that many characters before WordPiece sees it: WordPiece turns a word over 100 characters into one
[UNK], so 1 MB without a space counted as 1 token and became one chunk.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from importlib import resources

from tokenizers import Regex, Tokenizer, pre_tokenizers

from hopgraph.text.sentences import split_sentences

# Below WordPiece's own 100-character limit, and short because its greedy longest match is
# quadratic in a word's length (a 1 MB run: 4 s cut at 50, 8.7 s at 100); no English word is this long.
LONG_WORD_CHARS = 50


@cache
def wordpiece() -> Tokenizer:
    """The bundled MiniLM tokenizer, without truncation or padding (callers set their own)."""
    path = resources.files("hopgraph.assets").joinpath("minilm_tokenizer.json")
    tokenizer = Tokenizer.from_str(path.read_text(encoding="utf-8"))
    # After the BERT split on spaces and punctuation, a longer piece is cut every LONG_WORD_CHARS.
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.BertPreTokenizer(),
        pre_tokenizers.Split(Regex(rf"[\s\S]{{{LONG_WORD_CHARS}}}"), "isolated")])
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
