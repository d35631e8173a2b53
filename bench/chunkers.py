"""Chunkers compared on the text they cut: hopgraph's paragraph chunker against semchunk and windows.

    pip install semchunk   # the library compared against (not a hopgraph dependency)
    .venv/bin/python bench/chunkers.py [--data-dir ../shared/data] [--out bench/results/chunkers.json]

Corpora: the shared HotpotQA docs3 corpus (documents of three unrelated paragraphs each, blank
lines between them) and the bundled *A Christmas Carol* (hard-wrapped prose, long paragraphs).
Every chunker counts tokens with the same bundled WordPiece tokenizer (text/tokens.py), at chunk
sizes 256 and 600. Per chunker and size: chunks, median tokens, chunks that hold more than one
paragraph (docs3: a chunk about two or three unrelated things), chunks that end inside a sentence
(no closing punctuation), and seconds. Retrieval quality of the kept chunker is in the untitled
table (bench/untitled.py).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hopgraph.cli.demo import book_path
from hopgraph.ingest.chunking import chunk_document
from hopgraph.records.documents import Document
from hopgraph.text.tokens import count_tokens

_ENDS_SENTENCE = re.compile(r"[.!?\"'”’)\]_:;]\s*$")


def ours(by: str, size: int) -> Callable[[str], list[str]]:
    return lambda text: [c.text for c in chunk_document(Document("x", text, "s"), "x", size, size // 6, by)]


def semchunk_of(size: int) -> Callable[[str], list[str]]:
    import semchunk

    chunker = semchunk.chunkerify(count_tokens, size)
    return lambda text: list(chunker(text))


def measure(chunk: Callable[[str], list[str]], texts: list[str]) -> dict[str, Any]:
    started = time.perf_counter()
    pieces = [piece for text in texts for piece in chunk(text)]
    seconds = time.perf_counter() - started
    return {"chunks": len(pieces), "median_tokens": statistics.median(count_tokens(p) for p in pieces),
            "multi_paragraph": sum("\n\n" in p.strip() for p in pieces),
            "ends_mid_sentence": sum(not _ENDS_SENTENCE.search(p.strip()) for p in pieces),
            "seconds": round(seconds, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data")
    parser.add_argument("--out", type=Path, default=Path("bench/results/chunkers.json"))
    args = parser.parse_args()
    docs3 = [d["text"] for d in json.loads((args.data_dir / "untitled/hotpotqa_200_docs3_corpus.json").read_text())]
    corpora = {"hotpotqa docs3": docs3, "christmas carol": [book_path().read_text(encoding="utf-8")]}
    results: dict[str, Any] = {}
    print(f"{'corpus':16} {'chunker':18} {'size':>4} {'chunks':>6} {'median tok':>10} {'multi-par.':>10} "
          f"{'mid-sent.':>9} {'seconds':>7}")
    for corpus, texts in corpora.items():
        for size in (256, 600):
            for name, chunker in (("paragraphs", ours("paragraphs", size)), ("semchunk", semchunk_of(size)),
                                  ("windows", ours("windows", size))):
                row = measure(chunker, texts)
                results[f"{corpus}/{name}/{size}"] = row
                print(f"{corpus:16} {name:18} {size:>4} {row['chunks']:>6} {row['median_tokens']:>10} "
                      f"{row['multi_paragraph']:>10} {row['ends_mid_sentence']:>9} {row['seconds']:>7}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
