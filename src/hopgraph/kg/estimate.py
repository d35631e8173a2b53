"""What LLM extraction would cost, before anything is spent: calls and tokens per chunk.

Input tokens are counted on the real prompt (instructions + vocabulary + chunk) with the bundled
WordPiece tokenizer — within ~10-20 % of what GPT-style BPE tokenizers count for English prose.
Output tokens cannot be known in advance: `out_tokens_per_call` is an assumption, shown as such.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hopgraph.config import Settings
from hopgraph.ingest.chunking import chunk_document
from hopgraph.kg.facts import Vocabulary
from hopgraph.prompts import extraction
from hopgraph.records.documents import Document
from hopgraph.text.tokens import count_tokens

DEFAULT_OUT_TOKENS = 350  # a typical 10-entity, 8-relation JSON reply


@dataclass
class Estimate:
    documents: int
    chunks: int
    calls: int
    tokens_in: int
    tokens_out: int
    out_tokens_per_call: int

    def cost(self, price_in: float, price_out: float) -> float:
        """Money for prices given per million tokens."""
        return (self.tokens_in * price_in + self.tokens_out * price_out) / 1_000_000


def estimate(docs: Sequence[Document], settings: Settings, gleanings: int,
             out_tokens_per_call: int = DEFAULT_OUT_TOKENS) -> Estimate:
    vocabulary = Vocabulary.of(settings)
    chunks = [c for d in docs for c in chunk_document(d, d.title, settings.chunk_tokens, settings.chunk_overlap,
                                                     settings.chunking)]
    empty_prompt = sum(count_tokens(m["content"]) for m in
                       extraction.messages("", vocabulary.entity_types, vocabulary.relation_types))
    first_round = sum(empty_prompt + c.n_tokens for c in chunks)
    # A gleaning round resends the first exchange plus the previous reply and a short follow-up.
    glean_round = first_round + len(chunks) * (out_tokens_per_call + 60)
    calls = len(chunks) * (1 + gleanings)
    return Estimate(len(docs), len(chunks), calls, first_round + gleanings * glean_round,
                    calls * out_tokens_per_call, out_tokens_per_call)
