"""Stateless query replicas over one PostgreSQL store: 1 writer, R `hopgraph serve` replicas (issue 24).

    PYTHONPATH=src /work/main/.venv/bin/python bench/replicas.py [--replicas 3] [--seconds 60]
        [--concurrency 20] [--seed-dir DIR] [--pg URL] [--json bench/results/replicas.json]

The store, in a fresh schema (a local `pgserver` unless `--pg`):
- by default the HotpotQA 200 and 2Wiki 500 paragraphs (5,267 chunks), their embeddings copied from
  `--seed-dir` as bench/parity.py does, all but `HELD_OUT` documents indexed before the replicas start;
- with `--chunks N`, bench/scale.py's synthetic corpus of N chunks (clustered vectors under the
  bundled model's name, Zipf texts, titled documents whose chunks mention other titles) written
  through the store API as an index run writes it, and the same corpus in a SQLite file for the
  in-process comparison. The held-out documents are HotpotQA paragraphs, indexed by a writer that
  takes names from titles: reading names from the text of the whole synthetic corpus at its first
  write would take about 30 s per 1,000 chunks (docs/BENCHMARKS.md, big files). The questions are
  bench/scale.py's ("What <four words of a chunk> does <its title> have?").

1. R replicas, each started as a user starts one (`hopgraph serve --store URL`, `search_in` left at
   "auto": the database) with an empty cache directory of its own; `cold_start_s` is the time from
   the start of the process to its first answered `/ask`.
2. `--seconds` of bounded load: `--concurrency` clients post `/ask` (auto mode, no LLM), replica by
   replica in turn, while the writer (this process) indexes a held-out document, waits until every
   replica finds it (`write_visible_s`: from the index run's return to the replica's first hit of
   it, a request that waits in the replica's queue like the load's; `write_loaded_s`: to the moment
   the replica swapped in a reader of that write, from its GET /health), removes it, and goes on.
3. Per replica: `rss_mb` (VmRSS at the end), `requests`, `errors`, `p50_ms`, `p95_ms`, and the write
   visibility times; and the same questions asked in this process over the embedded SQLite copy.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))
from serve_kit import clean_env, free_port

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.eval.retrieval import load_eval_set
from parity import SETS, local_server, schema_store, seed_from

HELD_OUT = 10  # documents the writer adds and removes during the load
VISIBLE_WITHIN = 60.0  # seconds a replica is given to see a write before it counts as not seen


@dataclass
class Replica:
    base: str
    process: subprocess.Popen
    cold_start_s: float = 0.0
    ms: list[float] = field(default_factory=list)
    errors: int = 0
    visible_s: list[float] = field(default_factory=list)
    visible_idle_s: list[float] = field(default_factory=list)  # seen after the load had ended
    loaded_s: list[float] = field(default_factory=list)  # the replica serving the write (GET /health)
    loaded_idle_s: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)  # what each error was (the first few are kept)

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
        return 0.0

    def summary(self) -> dict[str, Any]:
        return {"cold_start_s": round(self.cold_start_s, 2), "rss_mb": self.rss_mb(),
                "requests": len(self.ms) + self.errors, "errors": self.errors, **percentiles(self.ms),
                "write_visible_s": [round(s, 2) for s in self.visible_s],
                "write_visible_after_load_s": [round(s, 2) for s in self.visible_idle_s],
                "write_loaded_s": [round(s, 2) for s in self.loaded_s],
                "write_loaded_after_load_s": [round(s, 2) for s in self.loaded_idle_s],
                "failures": self.failures[:5]}


def failure(error: httpx.HTTPError) -> str:
    if isinstance(error, httpx.HTTPStatusError):
        return f"{error.response.status_code} {error.response.text[:300]}"
    return f"{type(error).__name__}: {error}"


def percentiles(ms: list[float]) -> dict[str, float]:
    if len(ms) < 2:
        return {"p50_ms": round(ms[0], 1) if ms else 0.0, "p95_ms": round(ms[0], 1) if ms else 0.0}
    cuts = statistics.quantiles(ms, n=20, method="inclusive")
    return {"p50_ms": round(cuts[9], 1), "p95_ms": round(cuts[18], 1)}


def titles(client: httpx.Client, base: str, question: str) -> list[str]:
    answered = client.post(f"{base}/ask", json={"question": question, "mode": "search"}, timeout=120)
    answered.raise_for_status()
    return [hit["title"] for hit in answered.json()["hits"]]


@contextmanager
def started_replica(url: str, work: Path, question: str) -> Any:
    """`hopgraph serve` with an empty cache of its own; its cold start timed to the first answer."""
    home = work / f"replica-{uuid.uuid4().hex[:6]}"
    home.mkdir()
    port = free_port()
    env = clean_env() | {"XDG_CACHE_HOME": str(home / "cache"), "HOPGRAPH_CACHE": str(home / "cache")}
    started = time.perf_counter()
    with (home / "serve.log").open("w") as log:
        process = subprocess.Popen([sys.executable, "-m", "hopgraph.cli.app", "serve", "--store", url,
                                    "--port", str(port), "--quiet"], cwd=home, env=env, stdout=log,
                                   stderr=subprocess.STDOUT)
    replica = Replica(f"http://127.0.0.1:{port}", process)
    try:
        with httpx.Client() as client:
            while True:
                if process.poll() is not None:
                    raise RuntimeError(f"replica exited: {(home / 'serve.log').read_text()[-2000:]}")
                try:
                    titles(client, replica.base, question)
                    break
                except (httpx.TransportError, httpx.HTTPStatusError):
                    time.sleep(0.2)
        replica.cold_start_s = time.perf_counter() - started
        yield replica
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
        if replica.errors:  # what the server said about them
            print((home / "serve.log").read_text(encoding="utf-8", errors="replace")[-4000:], file=sys.stderr)


def load(replicas: list[Replica], questions: list[str], seconds: float, concurrency: int,
         stop: threading.Event) -> None:
    if concurrency == 0:  # no load: the writes alone, for the replicas' own visibility time
        stop.wait(seconds)
        return
    turn = itertools.cycle(range(len(replicas)))
    lock = threading.Lock()
    deadline = time.perf_counter() + seconds

    def client_loop(offset: int) -> None:
        with httpx.Client() as client:
            for i in itertools.count(offset, concurrency):
                if time.perf_counter() > deadline or stop.is_set():
                    return
                with lock:
                    replica = replicas[next(turn)]
                started = time.perf_counter()
                try:
                    answered = client.post(f"{replica.base}/ask", json={"question": questions[i % len(questions)]},
                                           timeout=120)
                    answered.raise_for_status()
                    replica.ms.append((time.perf_counter() - started) * 1000)
                except httpx.HTTPError as error:
                    replica.errors += 1
                    replica.failures.append(failure(error))

    with ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(client_loop, range(concurrency)))


def write_while_loaded(writer: HopGraph, held_out: list, replicas: list[Replica], stop: threading.Event,
                       runs: dict[str, list[float]]) -> None:
    """Index one held-out document, wait until every replica finds it (each polled by a thread of
    its own, so one replica's queue does not delay another's time), remove it; the next one. A
    time seen after the load ended is kept apart; `runs` gets each index and remove run's seconds."""

    def seen_by(replica: Replica, doc: Any, written: float) -> None:
        seconds = float("inf")
        with httpx.Client() as client:
            while time.perf_counter() - written <= VISIBLE_WITHIN:
                if doc.title in titles(client, replica.base, doc.text[:200]):
                    seconds = time.perf_counter() - written
                    break
                time.sleep(0.05)
        (replica.visible_idle_s if stop.is_set() else replica.visible_s).append(seconds)

    def loaded_by(replica: Replica, generation: str, written: float, written_wall: float) -> None:
        """From the index run's return to the replica's swap to a reader of that write, by the
        replica's own clock (`serving_since`: the same machine), so the poll's own wait is not counted."""
        seconds = float("inf")
        with httpx.Client() as client:
            while time.perf_counter() - written <= VISIBLE_WITHIN:
                health = client.get(f"{replica.base}/health", timeout=VISIBLE_WITHIN).json()
                if health["generation"] == generation:
                    seconds = max(0.0, health["serving_since"] - written_wall)
                    break
                time.sleep(0.05)
        (replica.loaded_idle_s if stop.is_set() else replica.loaded_s).append(seconds)

    with ThreadPoolExecutor(2 * len(replicas)) as pool:
        for doc in held_out:
            if stop.is_set():
                return
            started = time.perf_counter()
            writer.index_documents([doc], replace_sources=False)
            written, written_wall = time.perf_counter(), time.time()
            generation = writer.store.meta()["generation"]
            runs["index_s"].append(round(written - started, 2))
            waits = [pool.submit(seen_by, r, doc, written) for r in replicas]
            waits += [pool.submit(loaded_by, r, generation, written, written_wall) for r in replicas]
            for wait in waits:
                wait.result()
            stored = writer.store.active_documents()[(doc.source, doc.title)]
            started = time.perf_counter()
            writer.remove([str(stored.id)])
            runs["remove_s"].append(round(time.perf_counter() - started, 2))


def in_process(store: str, questions: list[str]) -> dict[str, float]:
    with HopGraph(store, Settings(), create=False) as hg:
        hg.ask(questions[0])
        ms = []
        for question in questions:
            started = time.perf_counter()
            hg.ask(question)
            ms.append((time.perf_counter() - started) * 1000)
    return percentiles(ms)


def in_database(url: str, model: str, queries: int) -> dict[str, Any]:
    """What the store costs on disk, and the served vector search against the exact scan: recall@10
    of `nearest_chunks` at the depth fusion asks for (the IVF index above `ann_threshold`, with the
    lists and probes it served), over stored chunks' vectors plus noise (cos ≈ 0.8, as
    bench/pg_vector_index.py), and its p50/p95."""
    from hopgraph.retrieval.vector_search import MIN_CANDIDATES
    from hopgraph.store import open_store
    from hopgraph.store.postgres import vector_index

    store = open_store(url, create=False)
    try:
        disk = sum(store.disk_bytes().values())
        lists, probed = vector_index.built_lists(store._db, model), vector_index.probes_now(store._db, model)
        hashes = [h for (h,) in store._db.execute(
            "SELECT text_hash FROM chunks ORDER BY md5(id::text) LIMIT ?", (queries,)).fetchall()]
        rng = np.random.default_rng(7)
        probes = np.stack(list(store.cached_vectors(hashes, model).values())).astype(np.float32)
        probes += 0.04 * rng.standard_normal(probes.shape, dtype=np.float32)
        probes /= np.linalg.norm(probes, axis=1, keepdims=True)
        kept, ms = [], []
        for probe in probes:
            truth = {c for c, _ in store.nearest_chunks(probe, model, 10, exact=True)}
            started = time.perf_counter()
            served = store.nearest_chunks(probe, model, MIN_CANDIDATES, exact=False)
            ms.append((time.perf_counter() - started) * 1000)
            kept.append(len(truth & {c for c, _ in served[:10]}) / 10)
    finally:
        store.close()
    return {"disk_mb": round(float(disk) / 2**20, 1), "queries": len(kept), "vector_index": lists, "probes": probed,
            "vector_recall_at_10": round(float(np.mean(kept)), 3), "vector_ms": percentiles(ms)}


def shared_sets(args: argparse.Namespace, work: Path, url: str, writer: HopGraph) -> tuple[list, list, list[str], str]:
    """(documents to index now, held-out documents, questions, the embedded store to compare with)."""
    docs, questions = [], []
    for name, (data, seed_file) in SETS.items():
        qa = load_eval_set(args.data_dir / data, None, None, str(work / f"{name}.db"), Settings())
        docs += qa.docs
        questions += [q.text for q in qa.questions]
        seed_from(args.seed_dir / seed_file, url, writer.embedder.name)
    embedded = str(work / "embedded.db")
    shutil.copy(args.seed_dir / SETS["hotpotqa"][1], embedded)  # the in-process comparison: HotpotQA's store
    return docs[:-HELD_OUT], docs[-HELD_OUT:], questions, embedded


def synthetic_sets(args: argparse.Namespace, work: Path, url: str) -> tuple[list, list, list[str], str]:
    """bench/scale.py's corpus of `--chunks` chunks written to PostgreSQL and to a SQLite file (each
    from a corpus made afresh with the same seed: the texts come out the same); HotpotQA's first
    paragraphs held out; questions from the chunks' own words and titles."""
    import scale

    embedded = str(work / "embedded.db")
    for location, kind in ((url, "postgresql"), (embedded, "embedded")):
        seconds = scale.build_store(location, scale.Corpus(args.chunks))
        args.build_s[kind] = {step: round(s, 1) for step, s in seconds.items()}  # apply includes the vector index build
        print(f"synthetic {args.chunks:,} chunks → {location.split('?')[0]}: {seconds}", file=sys.stderr)
    corpus = scale.Corpus(args.chunks)
    texts = corpus.texts()
    rows = np.random.default_rng(5).choice(len(texts), size=300, replace=False)
    questions = []
    for row in rows.tolist():
        words = [w for w in texts[row].rstrip(".").split() if w[:1].islower() and w not in scale.STOPWORDS]
        questions.append(f"What {' '.join(words[:4])} does {corpus.titles[corpus.doc_of_row[row]]} have?")
    qa = load_eval_set(args.data_dir / SETS["hotpotqa"][0], None, None, str(work / "hotpotqa.db"), Settings())
    return [], qa.docs[:HELD_OUT], questions, embedded


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    parser.add_argument("--seed-dir", type=Path, help="SQLite stores to copy embeddings from (the shared sets)")
    parser.add_argument("--chunks", type=int, help="a synthetic store of this many chunks instead of the shared sets")
    parser.add_argument("--pg", help="a PostgreSQL URL (default: a local pgserver in a temporary folder)")
    parser.add_argument("--replicas", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--concurrency", type=int, default=20, help="clients at once (0: no load, writes only)")
    parser.add_argument("--json", type=Path, default=Path("bench/results/replicas.json"))
    parser.add_argument("--recall-queries", type=int, default=100,
                        help="with --chunks: questions for the in-database vector recall (0: skip)")
    args = parser.parse_args()
    args.build_s = {}
    if not args.chunks and not args.seed_dir:
        parser.error("give --seed-dir (the shared sets) or --chunks N (a synthetic store)")
    with tempfile.TemporaryDirectory(prefix="hopgraph-replicas-", dir="/tmp") as tmp, ExitStack() as stack:
        work = Path(tmp)
        base = args.pg or local_server(work / "pg")
        url = schema_store(base, f"replicas_{uuid.uuid4().hex[:6]}")
        started = time.perf_counter()
        if args.chunks:
            indexed, held_out, questions, embedded = synthetic_sets(args, work, url)
            writer = stack.enter_context(HopGraph(url, Settings(names_from="titles"), quiet=True))
        else:
            writer = stack.enter_context(HopGraph(url, Settings(), quiet=True))
            indexed, held_out, questions, embedded = shared_sets(args, work, url, writer)
            writer.index_documents(indexed)
        index_s = time.perf_counter() - started
        replicas = [stack.enter_context(started_replica(url, work, questions[0])) for _ in range(args.replicas)]
        stop = threading.Event()
        runs: dict[str, list[float]] = {"index_s": [], "remove_s": []}
        def writing_job() -> None:
            try:
                write_while_loaded(writer, held_out, replicas, stop, runs)
            except Exception as error:  # kept in the result: a failed write is a finding, not a crash
                runs["error"] = [f"{type(error).__name__}: {error}"]  # type: ignore[list-item]

        writing = threading.Thread(target=writing_job)
        writing.start()
        load(replicas, questions, args.seconds, args.concurrency, stop)
        stop.set()
        writing.join()
        result = {"chunks": len(writer.search_index), "index_seconds": round(index_s, 1),
                  "concurrency": args.concurrency, "seconds": args.seconds,
                  "replicas": [r.summary() for r in replicas],
                  "all": {**percentiles([m for r in replicas for m in r.ms]),
                          "requests": sum(len(r.ms) + r.errors for r in replicas),
                          "errors": sum(r.errors for r in replicas),
                          "write_visible_s_max": round(max((s for r in replicas for s in r.visible_s), default=0), 2),
                          "write_loaded_s_max": round(max((s for r in replicas for s in r.loaded_s), default=0), 2)},
                  "writer_runs": runs,
                  "store": f"synthetic {args.chunks}" if args.chunks else "HotpotQA 200 + 2Wiki 500",
                  "embedded_in_process": in_process(embedded, questions[:200])}
        if args.chunks:
            result["build_s"] = args.build_s
            if args.recall_queries:
                result["in_database"] = in_database(url, writer.embedder.name, args.recall_queries)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=2), encoding="utf-8")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    main()
