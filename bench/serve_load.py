"""/ask under load: 20 concurrent questions against `hopgraph serve`, against `HopGraph.ask` in-process.

    PYTHONPATH=src taskset -c 1 .venv/bin/python bench/serve_load.py [--records 20] [--rounds 5]
                                 [--concurrency 20] [--store STORE] [--out bench/results/serve_load.json]

One run, one store (the first `--records` of the bundled HotpotQA sample, indexed with the bundled
MiniLM, unless `--store` names one): (1) in-process, each question asked `--rounds` times one after
another through `HopGraph.ask` (auto mode, with the extractive answer); (2) the same questions over
HTTP one at a time (what the API adds to a question); (3) `--rounds` rounds of `--concurrency`
questions sent at once. Reported: the median and 95th percentile of each question's latency, and
questions per second. The server is started as a user starts it (`hopgraph serve`) and inherits this
process's CPU affinity, so under `taskset -c 1` client and server share one core.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))
from serve_kit import build_sample_store, running_server

from hopgraph.cli.demo import sample_path
from hopgraph.config import Settings
from hopgraph.engine import HopGraph


def percentiles(ms: list[float]) -> dict[str, float]:
    cuts = statistics.quantiles(ms, n=20, method="inclusive")  # 19 cuts: the 10th is p50, the 19th p95
    return {"p50_ms": round(cuts[9], 1), "p95_ms": round(cuts[18], 1), "n": len(ms)}


def in_process(store: Path, questions: list[str], rounds: int) -> tuple[list[float], float, int]:
    with HopGraph(str(store), Settings(), create=False) as hg:
        hg.ask(questions[0])  # loads the search index, the graph and the model, as the server does at start
        times, started = [], time.perf_counter()
        for _ in range(rounds):
            for question in questions:
                t = time.perf_counter()
                hg.ask(question)
                times.append((time.perf_counter() - t) * 1000)
        return times, time.perf_counter() - started, len(hg.search_index)


def timed_ask(client: httpx.Client, base: str, question: str) -> float:
    t = time.perf_counter()
    answered = client.post(f"{base}/ask", json={"question": question}, timeout=600)
    answered.raise_for_status()
    return (time.perf_counter() - t) * 1000


def over_http(store: Path, questions: list[str], rounds: int, concurrency: int) -> dict[str, object]:
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    with running_server(store) as base, httpx.Client(limits=limits) as client:
        timed_ask(client, base, questions[0])
        sequential = [timed_ask(client, base, q) for _ in range(rounds) for q in questions]
        loaded, started = [], time.perf_counter()
        with ThreadPoolExecutor(concurrency) as pool:
            for round_ in range(rounds):
                batch = [questions[(round_ * concurrency + i) % len(questions)] for i in range(concurrency)]
                loaded += pool.map(lambda q: timed_ask(client, base, q), batch)
        wall = time.perf_counter() - started
    return {"sequential": sequential, "loaded": loaded, "loaded_seconds": wall}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--concurrency", type=int, default=20)
    parser.add_argument("--store", type=Path)
    parser.add_argument("--out", type=Path, default=Path("bench/results/serve_load.json"))
    args = parser.parse_args()
    records = json.loads(sample_path().read_text(encoding="utf-8"))[: args.records]
    questions = [record["question"] for record in records][: args.concurrency]
    with tempfile.TemporaryDirectory() as tmp:
        store = args.store or build_sample_store(Path(tmp) / "load.db", args.records)
        local, local_seconds, chunks = in_process(store, questions, args.rounds)
        http = over_http(store, questions, args.rounds, args.concurrency)
    rows = {"in-process HopGraph.ask (one at a time)": percentiles(local)
            | {"per_second": round(len(local) / local_seconds, 1)},
            "HTTP /ask, one at a time": percentiles(http["sequential"]),  # type: ignore[arg-type]
            f"HTTP /ask, {args.concurrency} concurrent": percentiles(http["loaded"])  # type: ignore[arg-type]
            | {"per_second": round(len(http["loaded"]) / http["loaded_seconds"], 1)}}  # type: ignore[arg-type]
    print(f"{len(questions)} questions over {chunks} chunks, {args.rounds} rounds\n")
    print(f"{'':44} {'p50 ms':>8} {'p95 ms':>8} {'n':>5} {'q/s':>6}")
    for name, row in rows.items():
        print(f"{name:44} {row['p50_ms']:>8} {row['p95_ms']:>8} {row['n']:>5} {row.get('per_second', ''):>6}")
    loaded, alone = rows[f"HTTP /ask, {args.concurrency} concurrent"], rows["in-process HopGraph.ask (one at a time)"]
    ratios = {"loaded_p50_over_in_process_p50": round(loaded["p50_ms"] / alone["p50_ms"], 2),
              "loaded_p95_over_in_process_p95": round(loaded["p95_ms"] / alone["p95_ms"], 2),
              "loaded_throughput_over_in_process": round(loaded["per_second"] / alone["per_second"], 2)}
    print("\n" + "  ".join(f"{k}: {v}" for k, v in ratios.items()))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"records": args.records, "chunks": int(chunks), "questions": len(questions),
                                    "rounds": args.rounds, "concurrency": args.concurrency, "rows": rows,
                                    "ratios": ratios}, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
