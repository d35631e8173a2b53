"""Scale: build a synthetic store of N chunks through the real store API and time search on it.

Per size: the store is written with `open_store`, `save_vectors` and `apply` (with a `build_graph`
returning synthetic GraphRows, as an index run would), then opened for search once to write the
snapshot and once more to add the ANN index. Then, for exact and ANN vector search, a fresh
process per mode: `hybrid+names+links` p50/p95 over warm in-process queries, its peak RSS, ANN
recall@10 against exact; and the cold start of `hopgraph ask … --mode search --quiet` (median of
runs, the OS page cache warm: a fresh process, not a cold disk).

Synthetic data (bench/synthetic.py): 384-d clustered unit vectors stored under the bundled MiniLM's
model name — so `hopgraph ask` runs unchanged; its question vector is from another space, which is
fine for timing, and recall uses synthetic query vectors — texts of Zipf-distributed words (real
English stopwords at the head), a two-word title per document that its chunks' text mentions, and
chunks mentioning other documents' titles (mostly of the same topic), each mention linking to
every chunk of the named document as a title does.

`measure_location(location, n)` takes any store location; `--postgres` measures a PostgreSQL one.

Usage: python bench/scale.py --sizes 100000 1000000 [--work DIR] [--json bench/results/scale.json]
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import scale_postgres
from hopgraph.ingest.carry import carry_facts
from hopgraph.records.documents import Chunk, Document, DocumentChange, RunRecord, utc_now
from hopgraph.records.names import GraphRows, Name
from hopgraph.records.retrieval import Budget
from hopgraph.retrieval.methods import run_method
from hopgraph.retrieval.snapshot import load_search_index, snapshot_root
from hopgraph.retrieval.stages import top_rows
from hopgraph.retrieval.vector_search import ExactSearch
from hopgraph.store import is_url, open_store
from synthetic import ClusterModel, docs_of_chunks, recall_at

MODEL = "all-MiniLM-L6-v2-int8"  # the bundled embedder's name: `hopgraph ask` finds these vectors
METHOD = "hybrid+names+links"
CHUNKS_PER_DOC = 4.0
MENTIONS_PER_CHUNK = 1.0
# real stopwords at the head of the Zipf list, as in English text (BM25 drops them)
STOPWORDS = ["the", "of", "and", "to", "in", "a", "is", "that", "for", "it", "as", "was", "with", "be", "by", "on",
             "not", "he", "this", "are", "or", "his", "from", "at", "which"]


class Corpus:
    """Documents with titles, chunk texts, the documents each chunk mentions, and a question per query."""

    def __init__(self, n: int, seed: int = 11) -> None:
        self.rng = np.random.default_rng(seed)
        self.doc_of_row = docs_of_chunks(n, CHUNKS_PER_DOC, seed)
        self.n_docs = int(self.doc_of_row[-1]) + 1
        self.model = ClusterModel(self.n_docs)
        self.words = _pseudo_words(30_000, self.rng)
        self.titles = _titles(self.n_docs, self.rng)
        zipf = 1.0 / np.arange(1, len(STOPWORDS) + len(self.words) + 1) ** 1.07
        self.vocab = np.array(STOPWORDS + self.words, dtype=object)
        self.p = zipf / zipf.sum()
        self.mentions = self._mentions()

    def _mentions(self) -> list[list[int]]:
        """Per chunk row, the documents it mentions: 70% of the same topic (topics link within), else any."""
        counts = self.rng.poisson(MENTIONS_PER_CHUNK, len(self.doc_of_row))
        by_topic: dict[int, np.ndarray] = {}
        order = np.argsort(self.model.topic_of_doc, kind="stable")
        bounds = np.searchsorted(self.model.topic_of_doc[order], np.arange(self.model.topic_of_doc.max() + 2))
        for topic in range(len(bounds) - 1):
            by_topic[topic] = order[bounds[topic] : bounds[topic + 1]]
        out = []
        for row, count in enumerate(counts.tolist()):
            own = int(self.doc_of_row[row])
            same = by_topic[int(self.model.topic_of_doc[own])]
            picks = [int(same[self.rng.integers(len(same))]) if self.rng.random() < 0.7
                     else int(self.rng.integers(self.n_docs)) for _ in range(count)]
            out.append([d for d in dict.fromkeys(picks) if d != own])
        return out

    def texts(self) -> list[str]:
        lengths = np.clip(self.rng.poisson(45, len(self.doc_of_row)), 8, None)
        words = self.vocab[self.rng.choice(len(self.vocab), size=int(lengths.sum()), p=self.p)]
        out, at = [], 0
        first = np.r_[True, self.doc_of_row[1:] != self.doc_of_row[:-1]]
        for row, length in enumerate(lengths.tolist()):
            body = list(words[at : at + length])
            at += length
            for doc in self.mentions[row]:
                body.insert(int(self.rng.integers(len(body) + 1)), self.titles[doc])
            head = f"{self.titles[self.doc_of_row[row]]} is " if first[row] else ""
            out.append(head + " ".join(body) + ".")
        return out


def _pseudo_words(n: int, rng: np.random.Generator) -> list[str]:
    syllables = [c + v for c in "bdfgklmnprstvz" for v in ("a", "e", "i", "o", "u", "ai", "or", "en")]
    seen: dict[str, None] = {}
    while len(seen) < n:
        seen["".join(syllables[i] for i in rng.integers(len(syllables), size=int(rng.integers(2, 5))))] = None
    return list(seen)


def _titles(n: int, rng: np.random.Generator) -> list[str]:
    """n distinct two-word capitalised names ("Vorkal Dessimen"), none a word of the text vocabulary."""
    first = [w.capitalize() + "q" for w in _pseudo_words(800, rng)]
    last = [w.capitalize() + "x" for w in _pseudo_words(max(800, n // 400 + 1), rng)]
    pairs = rng.permutation(len(first) * len(last))[:n]
    return [f"{first[p % len(first)]} {last[p // len(first)]}" for p in pairs.tolist()]


def corpus_upserts(corpus: Corpus, texts: list[str], hashes: list[str]) -> list:
    """The corpus as an index run's upserts: one document a run of rows, its chunks with their hashes."""
    upserts = []
    rows = [*np.flatnonzero(np.r_[True, corpus.doc_of_row[1:] != corpus.doc_of_row[:-1]]).tolist(), len(texts)]
    for doc, (a, b) in enumerate(itertools.pairwise(rows)):
        title = corpus.titles[doc]
        chunks = [(Chunk(title, r - a, texts[r], len(texts[r].split())), hashes[r]) for r in range(a, b)]
        upserts.append((Document(title, "", f"synthetic/{doc}.txt"), f"doc{doc}", chunks))
    return upserts


def build_store(location: str, corpus: Corpus) -> dict[str, float]:
    """Write the corpus through the store API as an index run does: vectors first (a cache), then
    one `apply` whose `build_graph` returns the synthetic names, mentions, links and abouts."""
    started = time.perf_counter()
    texts = corpus.texts()
    vectors = corpus.model.sample(corpus.doc_of_row, seed=3)
    hashes = [hashlib.sha256(t.encode()).hexdigest() for t in texts]
    generated = time.perf_counter()
    store = open_store(location)
    for start in range(0, len(texts), 50_000):
        store.save_vectors(dict(zip(hashes[start : start + 50_000], vectors[start : start + 50_000], strict=True)),
                           MODEL)
    del vectors
    upserts = corpus_upserts(corpus, texts, hashes)
    saved = time.perf_counter()
    store.apply(DocumentChange(upserts=upserts), lambda table: synthetic_graph(table, corpus),
                {"graph_signature": "synthetic", "embedder": MODEL, "generation": uuid.uuid4().hex},
                RunRecord("index", utc_now(), lambda: "{}"), carry_facts)
    store.close()
    return {"generate_s": generated - started, "vectors_write_s": saved - generated,
            "apply_s": time.perf_counter() - saved}


def synthetic_graph(table, corpus: Corpus) -> GraphRows:
    """Names (one title per document), mentions, title links (to every chunk of the document, at
    1.0) and abouts (each chunk about its own document's title) over the table's chunk ids."""
    doc_id_of = {title: doc_id for doc_id, title in table.titles.items()}
    doc_ids = [doc_id_of[t] for t in corpus.titles]
    position = {doc_id: i for i, doc_id in enumerate(doc_ids)}
    chunks_of: dict[int, list[int]] = {}
    for chunk_id, doc_id in zip(table.ids.tolist(), table.doc_ids.tolist(), strict=True):
        chunks_of.setdefault(position[doc_id], []).append(chunk_id)
    names = [Name(title, doc_ids[i], "title") for i, title in enumerate(corpus.titles)]
    mentions, links, abouts = [], [], []
    ids = table.ids.tolist()
    for row, chunk_id in enumerate(ids):
        abouts.append((chunk_id, int(corpus.doc_of_row[row]), 1.0))
        for doc in corpus.mentions[row]:
            mentions.append((chunk_id, doc))
            links.extend((chunk_id, target, doc, 1.0) for target in chunks_of[doc])
    return GraphRows(names, mentions, links, abouts)


class QueryVectors:
    """An embedder that answers each benchmark question with its synthetic query vector."""

    name, dim = MODEL, 384

    def __init__(self, vectors: dict[str, np.ndarray]) -> None:
        self.vectors = vectors

    def embed_query(self, text: str) -> np.ndarray:
        return self.vectors[text]

    def embed(self, texts, progress=None) -> np.ndarray:
        return np.stack([self.vectors[t] for t in texts])


def open_for_search(location: str, threshold: int | None) -> dict[str, float]:
    """Open the store for search once (writing the snapshot, or adding the ANN index to it)."""
    store = open_store(location, create=False)
    started = time.perf_counter()
    index = load_search_index(store, QueryVectors({}), threshold)
    seconds = {k: round(v, 2) for k, v in index.load_seconds.items()}
    seconds["total_s"] = round(time.perf_counter() - started, 2)
    store.close()
    return seconds


def query_child(location: str, n: int, threshold: int | None, queries: int) -> dict:
    """In a fresh process: warm in-process latency of METHOD, peak RSS and (ANN) recall@10."""
    rng = np.random.default_rng(5)
    store = open_store(location, create=False)
    started = time.perf_counter()
    index = load_search_index(store, QueryVectors({}), threshold)
    opened = time.perf_counter() - started
    rows = rng.choice(len(index), size=queries + 20, replace=False)
    # A query vector near its chunk's (cos ≈ 0.8, as a document's own chunks are to each other),
    # made from the stored matrix: this process holds nothing but the index and the queries.
    near = index.vectors[np.sort(rows)][np.argsort(np.argsort(rows))]
    near = near + 0.04 * rng.standard_normal(near.shape, dtype=np.float32)
    near /= np.linalg.norm(near, axis=1, keepdims=True)
    questions = {}
    for row, vector in zip(rows.tolist(), near, strict=True):
        words = [w for w in index.table.texts[row].rstrip(".").split() if w[:1].islower() and w not in STOPWORDS]
        questions[f"What {' '.join(words[:4])} does {index.title_of_row(row)} have?"] = vector
    index.embedder = QueryVectors(questions)
    times = []
    for i, question in enumerate(questions):
        t = time.perf_counter()
        run_method(index, question, METHOD, Budget())
        if i >= 20:  # the first 20 warm the caches
            times.append((time.perf_counter() - t) * 1000)
    times.sort()
    peak = _status_mb("VmHWM")  # before recall's exact pass (ru_maxrss would report the parent's peak)
    result = {"open_s": round(opened, 2), "p50_ms": round(statistics.median(times), 2), "peak_rss_mb": round(peak, 1),
              "rss_mb": round(_rss_mb(), 1),
              "p95_ms": round(times[int(0.95 * len(times))], 2), "queries": len(times),
              "load_seconds": {k: round(v, 3) for k, v in index.load_seconds.items()}}
    if threshold is not None and len(index) >= threshold:
        probe = np.stack(list(questions.values()))
        exact = ExactSearch(index.vectors)
        truth = np.array([top_rows(exact.scores(q), 10) for q in probe])
        found = np.array([top_rows(index.vector_search.scores(q, 100), 10) for q in probe])
        result["recall_at_10"] = round(recall_at(found, truth), 4)
    return result


def _rss_mb() -> float:
    """Resident now (mapped snapshot pages that queries touched included)."""
    return _status_mb("VmRSS")


def _status_mb(field: str) -> float:
    """A memory line of /proc/self/status: VmHWM is this process's own peak since exec, whereas
    getrusage's ru_maxrss carries over the peak of the process that forked it (here 5.6 GB)."""
    with open("/proc/self/status") as f:
        line = next(line for line in f if line.startswith(field + ":"))
    return int(line.split()[1]) / 1024


def cold_ask(location: str, threshold: int, runs: int) -> dict:
    """`hopgraph ask` as a fresh process (bundled MiniLM for the question), seconds per run."""
    env = {**os.environ, "HOPGRAPH_ANN_THRESHOLD": str(threshold), "PYTHONPATH": "src"}
    cmd = [sys.executable, "-m", "hopgraph.cli.app", "ask", "What does Vorkal Dessimen have?", "--store", location,
           "--mode", "search", "--quiet"]
    seconds = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(cmd, env=env, check=True, capture_output=True)
        seconds.append(time.perf_counter() - started)
    return {"median_s": round(statistics.median(seconds), 2), "runs_s": [round(s, 2) for s in seconds]}


def child(location: str, n: int, threshold: int | None, queries: int) -> dict:
    """query_child in a fresh process, so its RSS is its own."""
    cmd = [sys.executable, __file__, "--child", location, "--sizes", str(n), "--queries", str(queries),
           "--threshold", str(-1 if threshold is None else threshold)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def disk_mb(path: Path) -> float:
    if path.is_dir():
        return round(sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 2**20, 1)
    files = [path, *(path.with_name(path.name + suffix) for suffix in ("-wal", "-shm"))]
    return round(sum(p.stat().st_size for p in files if p.is_file()) / 2**20, 1)


def measure_location(location: str, n: int, queries: int, cold_runs: int, reuse: bool,
                     keep_snapshot: bool = False, stamp: Path | None = None) -> dict:
    """Every number for one store location (a file path, or a PostgreSQL URL with `stamp`, the
    path the build's timings are kept beside)."""
    row: dict = {"chunks": n, "location": location}
    stamp = stamp or Path(location)
    timings = Path(f"{stamp}.build.json")  # beside the store: a --reuse run reports its build
    if not (reuse and _exists(location) and timings.is_file()):
        if not is_url(location):  # a URL is a fresh schema each run
            _remove_store(location)
        timings.write_text(json.dumps(build_store(location, Corpus(n))))
    row["build"] = json.loads(timings.read_text())
    print(f"  store written: {row['build']}", flush=True)
    root = snapshot_root(location)
    built = Path(f"{stamp}.snapshot.json")  # the snapshot's build timings, for --keep-snapshot
    if not (keep_snapshot and built.is_file() and root is not None and root.is_dir()):
        if root is not None and root.is_dir():  # measure the snapshot's build, not a read of an old one
            shutil.rmtree(root)
        built.write_text(json.dumps({"snapshot": open_for_search(location, None),
                                     "ann_index": open_for_search(location, 0)}))
    row |= json.loads(built.read_text())
    print(f"  snapshot: {row['snapshot']}\n  ann index: {row['ann_index']}", flush=True)
    row["disk_mb"] = {"store": None if is_url(location) else disk_mb(Path(location)),
                      "snapshot": disk_mb(root) if root else 0.0}
    for mode, threshold in (("exact", None), ("ann", 0)):
        row[mode] = child(location, n, threshold, queries)
        row[mode]["cold_ask"] = cold_ask(location, 0 if mode == "ann" else 10**12, cold_runs)
        print(f"  {mode}: {row[mode]}", flush=True)
    return row


def _exists(location: str) -> bool:
    return Path(location).is_file()


def _remove_store(location: str) -> None:
    for path in Path(location).parent.glob(Path(location).name + "*"):
        shutil.rmtree(path) if path.is_dir() else path.unlink()


def print_postgres(rows: list[dict]) -> None:
    pg = [r for r in rows if "postgres" in r]
    if not pg:
        return
    print(f"{'chunks':>9} {'index build s':>13} {'disk MB':>8} {'server MB':>9} {'index p50/p95 ms':>16} {'R@10':>6} "
          f"{'+links p50':>10} {'BM25 SQL p50':>12}")
    for r in pg:
        p = r["postgres"]
        v = p["vector_search"]
        print(f"{r['chunks']:>9,} {p['vector_index_build_s']:>13} {p['disk_mb']:>8} {p['server_pss_mb']:>9} "
              f"{v['p50_ms']:>7} / {v['p95_ms']:<6} {v['recall_at_10']:>6} {p['one_statement_links']['p50_ms']:>10} "
              f"{p['bm25_in_sql']['p50_ms']:>12}")


def print_table(rows: list[dict]) -> None:
    print(f"{'chunks':>9} {'mode':<6} {'p50 ms':>7} {'p95 ms':>7} {'RSS MB':>7} {'R@10':>6} {'cold ask s':>10} "
          f"{'store MB':>9} {'snap MB':>8}")
    for r in rows:
        for mode in ("exact", "ann"):
            m = r[mode]
            print(f"{r['chunks']:>9,} {mode:<6} {m['p50_ms']:>7} {m['p95_ms']:>7} {m['peak_rss_mb']:>7} "
                  f"{m.get('recall_at_10', ''):>6} {m['cold_ask']['median_s']:>10} "
                  f"{r.get('disk_mb', {}).get('store') or '':>9} {r.get('disk_mb', {}).get('snapshot') or '':>8}")
    print(f"{'chunks':>9} {'generate s':>10} {'vectors s':>9} {'apply s':>8} {'snapshot s':>10} {'ANN build s':>11}")
    for r in rows:
        b = r.get("build", {})
        print(f"{r['chunks']:>9,} {b.get('generate_s', 0):>10.1f} {b.get('vectors_write_s', 0):>9.1f} "
              f"{b.get('apply_s', 0):>8.1f} {r['snapshot']['total_s']:>10} {r['ann_index'].get('ann_build', 0):>11}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--work", default="/tmp/hopgraph-scale", help="where the stores are written")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--cold-runs", type=int, default=3)
    parser.add_argument("--reuse", action="store_true", help="keep a store already written at the same size")
    parser.add_argument("--keep-snapshot", action="store_true",
                        help="with --reuse: keep the snapshot (and its ANN index) a run already built")
    parser.add_argument("--postgres", action="store_true", help="also a PostgreSQL store per size (bench/"
                        "scale_postgres.py): a local pgserver server unless --pg names one")
    parser.add_argument("--pg", help="a PostgreSQL URL to create the schemas in")
    parser.add_argument("--embedded", action=argparse.BooleanOptionalAction, default=True,
                        help="measure the embedded store (default: yes)")
    parser.add_argument("--json", default="bench/results/scale.json")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--threshold", type=int, default=-1, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(query_child(args.child, args.sizes[0], None if args.threshold < 0 else args.threshold,
                                     args.queries)))
        return
    Path(args.work).mkdir(parents=True, exist_ok=True)
    rows = []
    base = (args.pg or scale_postgres.local_server(Path(args.work) / "pg")) if args.postgres else None
    for n in args.sizes:
        print(f"{n:,} chunks", flush=True)
        if args.embedded:
            rows.append(measure_location(str(Path(args.work) / f"scale_{n}.db"), n, args.queries, args.cold_runs,
                                         args.reuse, args.keep_snapshot))
        if base:
            url = scale_postgres.fresh_schema(base, n)
            row = measure_location(url, n, args.queries, args.cold_runs, False, stamp=Path(args.work) / f"pg_{n}")
            row["backend"], row["postgres"] = "postgresql", scale_postgres.measure_postgres(url, MODEL, args.queries)
            print(f"  postgres: {row['postgres']}", flush=True)
            rows.append(row)
    print_table(rows)
    print_postgres(rows)
    result = {"method": METHOD, "cpus": os.cpu_count(), "chunks_per_doc": CHUNKS_PER_DOC,
              "mentions_per_chunk": MENTIONS_PER_CHUNK, "rows": rows}
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
