"""Token-window chunking with overlap, measured with the embedder's own WordPiece tokenizer.

The tokenizer is the bundled `assets/minilm_tokenizer.json`, so chunking never downloads anything.
Chunk text is cut from the original string by character offsets, never detokenised.
"""

from __future__ import annotations

from hopgraph.errors import InputError
from hopgraph.records.documents import Chunk, Document
from hopgraph.text.tokens import wordpiece


def chunk_document(doc: Document, doc_key: str, size: int = 600, overlap: int = 100) -> list[Chunk]:
    """Windows of `size` tokens, each starting `size - overlap` tokens after the previous one.

    A document that fits in one window stays one chunk, whatever its length in characters. A chunk
    of a paged document (PDF) carries the page its first character is on.
    """
    if size < 1 or not 0 <= overlap < size:
        raise InputError(f"chunk size {size} / overlap {overlap}: need size ≥ 1 and 0 ≤ overlap < size")
    offsets = wordpiece().encode(doc.text, add_special_tokens=False).offsets
    if len(offsets) <= size:
        return [Chunk(doc_key=doc_key, ord=0, text=doc.text, n_tokens=len(offsets), page=doc.page_at(0))]
    chunks: list[Chunk] = []
    step = size - overlap
    for ord_, start in enumerate(range(0, len(offsets) - overlap, step)):
        window = offsets[start : start + size]
        text = doc.text[window[0][0] : window[-1][1]]
        chunks.append(Chunk(doc_key=doc_key, ord=ord_, text=text, n_tokens=len(window),
                            page=doc.page_at(window[0][0])))
    return chunks
