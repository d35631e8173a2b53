"""/ask while `POST /documents` indexes an upload, against /ask with no upload, in one run.

    PYTHONPATH=src .venv/bin/python bench/serve_upload.py [--upload-kb 1024] [--records 6]
                                   [--idle-questions 20] [--out bench/results/serve_upload.json]

One server (`hopgraph serve`, started as a user starts it) over the first `--records` of the bundled
HotpotQA sample. First the sample's questions are asked one after another (auto mode, with the
extractive answer) with no upload: `--idle-questions` of them. Then a generated prose document of
`--upload-kb` KB is uploaded (multipart, as a .txt file) and the same questions are asked one after
another until the upload's response arrives. Reported: p50/p95/max of /ask in both phases, how many
questions each asked, and the upload's seconds. A reader that waits for the writer shows up as a p95
(or max) near the upload's seconds.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))
from serve_kit import build_sample_store, running_server

sys.path.insert(0, str(Path(__file__).resolve().parent))
from big_file import write_prose
from hopgraph.cli.demo import sample_path


def summary(ms: list[float]) -> dict[str, float]:
    cuts = statistics.quantiles(ms, n=20, method="inclusive") if len(ms) > 1 else [ms[0]] * 19
    return {"p50_ms": round(cuts[9], 1), "p95_ms": round(cuts[18], 1), "max_ms": round(max(ms), 1), "n": len(ms)}


def timed_ask(client: httpx.Client, base: str, question: str) -> float:
    t = time.perf_counter()
    client.post(f"{base}/ask", json={"question": question}, timeout=900).raise_for_status()
    return (time.perf_counter() - t) * 1000


def during_upload(client: httpx.Client, base: str, questions: list[str], text: str) -> tuple[list[float], float]:
    """The questions asked round and round while the upload runs; and the upload's seconds."""
    took: list[float] = []

    def upload() -> None:
        t = time.perf_counter()
        with httpx.Client() as uploader:
            uploader.post(f"{base}/documents", files={"file": ("big.txt", text.encode("utf-8"), "text/plain")},
                          timeout=3600).raise_for_status()
        took.append(time.perf_counter() - t)

    thread = threading.Thread(target=upload)
    thread.start()
    time.sleep(1.0)  # the upload is being indexed, not still being sent
    times, i = [], 0
    while thread.is_alive():
        times.append(timed_ask(client, base, questions[i % len(questions)]))
        i += 1
    thread.join()
    return times, took[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--upload-kb", type=int, default=1024)
    parser.add_argument("--records", type=int, default=6)
    parser.add_argument("--idle-questions", type=int, default=20)
    parser.add_argument("--out", type=Path, default=Path("bench/results/serve_upload.json"))
    args = parser.parse_args()
    questions = [r["question"] for r in json.loads(sample_path().read_text(encoding="utf-8"))[: args.records]]
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "prose.txt"  # big_file.py's prose, without its run of letters
        write_prose(source, args.upload_kb // 1024 + 1, "paragraphs", run_kib=0)
        text = source.read_text(encoding="utf-8")[: args.upload_kb * 1024]
        store = build_sample_store(Path(tmp) / "upload.db", args.records)
        with running_server(store) as base, httpx.Client() as client:
            timed_ask(client, base, questions[0])  # warm
            idle = [timed_ask(client, base, questions[i % len(questions)]) for i in range(args.idle_questions)]
            busy, upload_seconds = during_upload(client, base, questions, text)
    rows = {"/ask, no upload": summary(idle), f"/ask during a {args.upload_kb} KB upload": summary(busy)}
    print(f"upload of {args.upload_kb} KB indexed in {upload_seconds:.1f} s\n")
    print(f"{'':36} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8} {'n':>4}")
    for name, row in rows.items():
        print(f"{name:36} {row['p50_ms']:>8} {row['p95_ms']:>8} {row['max_ms']:>8} {row['n']:>4}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"upload_kb": args.upload_kb, "upload_seconds": round(upload_seconds, 1),
                                    "records": args.records, "rows": rows}, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
