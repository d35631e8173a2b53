"""Compare BM25 keyword-search libraries on multi-hop QA paragraph retrieval.

Corpus per data set: the pooled unique context paragraphs (one per title, first
occurrence wins); queries: the questions. A question counts as "both found"
when every gold supporting title is among the top-k results.

Usage: python bench/keyword_libraries.py [--data FILE ...] [--json OUT] [--k 5]
"""

from __future__ import annotations

import argparse
import io
import json
import re
import sqlite3
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Any, Protocol

import bm25s
import numpy as np
import Stemmer
import tantivy

DEFAULT_DATA = [
    Path("/work/shared/data/hotpotqa/hotpotqa_200.json"),
    Path("/work/shared/data/2wikimultihopqa/2wiki_dev_500.json"),
]
# Letters and digits only: "_" and punctuation would make tantivy's parser
# build phrase queries or hit its syntax (field:, +, -, quotes, parentheses).
TOKEN = re.compile(r"[^\W_]+")
BUILD_RUNS = 3


class KeywordIndex(Protocol):
    name: str

    def build(self, texts: list[str]) -> None: ...
    def search(self, query: str, k: int) -> list[int]: ...
    def size_bytes(self) -> int: ...


class TantivyIndex:
    def __init__(self, tokenizer: str) -> None:
        self.tokenizer = tokenizer
        self.name = f"tantivy/{tokenizer}"
        self.texts: list[str] = []

    def _make(self, texts: list[str], path: str | None) -> tantivy.Index:
        builder = tantivy.SchemaBuilder()
        builder.add_text_field("text", tokenizer_name=self.tokenizer)
        builder.add_unsigned_field("idx", stored=True)
        index = tantivy.Index(builder.build(), path=path)
        writer = index.writer()
        for i, text in enumerate(texts):
            writer.add_document(tantivy.Document(text=text, idx=i))
        writer.commit()
        writer.wait_merging_threads()
        index.reload()
        return index

    def build(self, texts: list[str]) -> None:
        self.texts = texts
        self.index = self._make(texts, path=None)
        self.searcher = self.index.searcher()

    def search(self, query: str, k: int) -> list[int]:
        # Lower-casing also neutralises the AND/OR/NOT/IN operators.
        terms = TOKEN.findall(query.lower())
        if not terms:
            return []
        parsed = self.index.parse_query(" ".join(terms), ["text"])
        hits = self.searcher.search(parsed, limit=k, count=False).hits
        return [self.searcher.doc(addr)["idx"][0] for _, addr in hits]

    def size_bytes(self) -> int:
        # Only a directory can be persisted: measure an on-disk copy.
        with tempfile.TemporaryDirectory() as tmp:
            self._make(self.texts, path=tmp)
            return sum(p.stat().st_size for p in Path(tmp).rglob("*") if p.is_file())


class Bm25sIndex:
    def __init__(self, stem: bool) -> None:
        self.stemmer = Stemmer.Stemmer("english") if stem else None
        self.name = "bm25s/stem" if stem else "bm25s/plain"

    def _tokenize(self, texts: list[str], ids: bool) -> Any:
        kwargs = {"stopwords": "en", "stemmer": self.stemmer, "show_progress": False}
        return bm25s.tokenize(texts, return_ids=ids, **kwargs)

    def build(self, texts: list[str]) -> None:
        self.retriever = bm25s.BM25()
        self.retriever.index(self._tokenize(texts, ids=True), show_progress=False)

    def search(self, query: str, k: int) -> list[int]:
        tokens = self._tokenize([query], ids=False)
        if not any(t in self.retriever.vocab_dict for t in tokens[0]):
            return []
        docs, _ = self.retriever.retrieve(tokens, k=k, show_progress=False)
        return [int(d) for d in docs[0]]

    def size_bytes(self) -> int:
        # The whole index is three CSC arrays plus a vocab dict: blob-friendly.
        size = len(json.dumps(self.retriever.vocab_dict).encode())
        for key in ("data", "indices", "indptr"):
            buf = io.BytesIO()
            np.save(buf, self.retriever.scores[key], allow_pickle=False)
            size += len(buf.getvalue())
        return size


class Fts5Index:
    def __init__(self, tokenizer: str) -> None:
        self.tokenizer = tokenizer
        self.name = f"fts5/{tokenizer.replace(' ', '+')}"

    def build(self, texts: list[str]) -> None:
        self.con = sqlite3.connect(":memory:")
        self.con.execute(
            "CREATE VIRTUAL TABLE docs USING fts5"
            f"(text, content='', tokenize='{self.tokenizer}')"
        )
        with self.con:
            self.con.executemany(
                "INSERT INTO docs(rowid, text) VALUES (?, ?)", enumerate(texts)
            )
            self.con.execute("INSERT INTO docs(docs) VALUES ('optimize')")

    def search(self, query: str, k: int) -> list[int]:
        terms = TOKEN.findall(query)
        if not terms:
            return []
        # Quoted tokens are literal strings: no FTS5 operator or syntax error.
        match = " OR ".join(f'"{t}"' for t in dict.fromkeys(terms))
        rows = self.con.execute(
            "SELECT rowid FROM docs WHERE docs MATCH ? ORDER BY bm25(docs) LIMIT ?",
            (match, k),
        )
        return [r[0] for r in rows]

    def size_bytes(self) -> int:
        return len(self.con.serialize())


@dataclass
class Dataset:
    name: str
    titles: list[str]
    texts: list[str]
    questions: list[str]
    gold: list[set[str]]
    types: list[str]


def load_dataset(path: Path) -> Dataset:
    records = json.loads(path.read_text())
    paragraphs: dict[str, str] = {}
    for rec in records:
        for title, sentences in rec["context"]:
            paragraphs.setdefault(title, " ".join(s.strip() for s in sentences))
    return Dataset(
        name=path.stem,
        titles=list(paragraphs),
        texts=list(paragraphs.values()),
        questions=[r["question"] for r in records],
        gold=[{t for t, _ in r["supporting_facts"]} for r in records],
        types=[r["type"] for r in records],
    )


def evaluate(index: KeywordIndex, data: Dataset, k: int) -> dict[str, Any]:
    build_runs = []
    for _ in range(BUILD_RUNS):
        start = time.perf_counter()
        index.build(data.texts)
        build_runs.append(time.perf_counter() - start)
    for q in data.questions:  # warm-up pass (caches, lazy init)
        index.search(q, k)
    latencies, results = [], []
    for q in data.questions:
        start = time.perf_counter()
        results.append(index.search(q, k))
        latencies.append((time.perf_counter() - start) * 1000)

    found: dict[str, list[bool]] = defaultdict(list)
    recalls = []
    for hits, gold, qtype in zip(results, data.gold, data.types, strict=False):
        top = {data.titles[i] for i in hits}
        recalls.append(len(gold & top) / len(gold))
        found[qtype].append(gold <= top)
    every = [f for flags in found.values() for f in flags]
    return {
        "dataset": data.name,
        "variant": index.name,
        "docs": len(data.texts),
        "queries": len(data.questions),
        "build_s": statistics.median(build_runs),
        "build_s_runs": build_runs,
        "p50_ms": float(np.percentile(latencies, 50)),
        "p95_ms": float(np.percentile(latencies, 95)),
        f"both_found@{k}": sum(every) / len(every),
        f"both_found@{k}_by_type": {
            t: sum(f) / len(f) for t, f in sorted(found.items())
        },
        "n_by_type": {t: len(f) for t, f in sorted(found.items())},
        f"recall@{k}": statistics.fmean(recalls),
        "empty_results": sum(not r for r in results),
        "index_bytes": index.size_bytes(),
    }


def _line(cells: list[str], widths: list[int]) -> str:
    pairs = enumerate(zip(cells, widths, strict=False))
    return "  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in pairs)


def print_table(rows: list[dict[str, Any]], k: int) -> None:
    d = rows[0]
    types = list(d[f"both_found@{k}_by_type"])
    head = ["variant", "build_s", "p50_ms", "p95_ms", f"both@{k}", *types]
    head += [f"recall@{k}", "index_KB"]
    widths = [max(len(r["variant"]) for r in rows)] + [max(8, len(h)) for h in head[1:]]
    counts = ", ".join(f"{t}={n}" for t, n in d["n_by_type"].items())
    print(f"\n== {d['dataset']}: {d['docs']} docs, {d['queries']} questions ({counts})")
    print(_line(head, widths))
    for r in rows:
        nums = [r["build_s"], r["p50_ms"], r["p95_ms"], r[f"both_found@{k}"]]
        nums += [*r[f"both_found@{k}_by_type"].values(), r[f"recall@{k}"]]
        cells = [r["variant"], *(f"{x:.3f}" for x in nums)]
        print(_line([*cells, f"{r['index_bytes'] / 1024:.0f}"], widths))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_json = Path("bench/results/keyword_libraries.json")
    parser.add_argument("--data", nargs="+", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--json", type=Path, default=default_json)
    parser.add_argument("--k", type=int, default=5)
    args = parser.parse_args()

    variants: list[KeywordIndex] = [
        TantivyIndex("default"),
        TantivyIndex("en_stem"),
        Bm25sIndex(stem=False),
        Bm25sIndex(stem=True),
        Fts5Index("unicode61"),
        Fts5Index("porter unicode61"),
    ]
    pkgs = ("tantivy", "bm25s", "PyStemmer", "numpy")
    meta = {"python": sys.version.split()[0], "sqlite": sqlite3.sqlite_version}
    meta |= {"k": args.k, **{p: version(p) for p in pkgs}}
    print("versions:", ", ".join(f"{p}={v}" for p, v in meta.items()))
    results = []
    for path in args.data:
        data = load_dataset(path)
        rows = [evaluate(v, data, args.k) for v in variants]
        print_table(rows, args.k)
        results.extend(rows)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    report = {"meta": meta, "results": results}
    args.json.write_text(json.dumps(report, indent=2) + "\n")
    print(f"\nwrote {args.json}")


if __name__ == "__main__":
    main()
