"""Peak memory and time of `hopgraph index` on one big synthetic text file (issue 9 part 5).

    python bench/big_file.py --sizes 10 50 200 --reindex
    python bench/big_file.py --sizes 10 50 200 --shape one-paragraph
    python bench/big_file.py --sizes 10 --label before --src /path/to/older/checkout/src
    python bench/big_file.py --sizes 1 --run-kib 16 --embedder minilm   # the real model: small sizes only

The file is deterministic prose: sentences of made-up and common words (with "Dr." and "U.S." that
do not end a sentence), paragraphs of 2 to 80 sentences, a Markdown heading now and then, and one
run of 1 MiB without a space in the middle. `--shape one-paragraph` writes the same text with no
blank line, so the whole file is one paragraph (the worst case for paragraph chunking).

Each size is indexed by a fresh `hopgraph index` process (`--src` picks the checkout) into a fresh
store. Vectors come from a stub OpenAI-compatible `/v1/embeddings` endpoint that this script
serves on 127.0.0.1 (8-dimensional hash vectors): the product's own `openai` embedder talks to it,
so no code path is bench-only, but model inference is left out — the bundled MiniLM would take
hours for 200 MB on 2 cores (`--embedder minilm` runs it, for a small size, to see what the model
adds). Peak RSS is the child's own (`os.wait4`), so the stub server in this process is not counted.
`--reindex` indexes the unchanged file a second time: read, check and hash only.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "big_file.json"
MIB = 1 << 20
NO_SPACE_RUN = MIB  # the case: 1 MB without a space
STUB_DIM = 8
WORDS = ["the", "of", "and", "to", "in", "a", "is", "that", "for", "it", "as", "was", "with", "be", "by", "on",
         "not", "he", "this", "are", "or", "his", "from", "at", "which", "but", "have", "an", "they", "you",
         "were", "her", "she", "there", "been", "one", "all", "we", "their", "has", "would", "when", "if", "so",
         "what", "up", "out", "said", "about", "into", "than", "them", "can", "only", "other", "new", "some",
         "could", "time", "these", "two", "may", "then", "first", "any", "such", "like", "our", "over", "man",
         "even", "most", "made", "after", "also", "did", "many", "before", "must", "through", "back", "years",
         "where", "much", "your", "way", "well", "down", "should", "because", "each", "just", "those", "people"]
SYLLABLES = ("ka", "re", "mi", "to", "su", "la", "no", "vi", "de", "ra", "po", "ne", "zu", "bo", "ti")


class _StubEmbeddings(BaseHTTPRequestHandler):
    """`POST /v1/embeddings`: a unit vector per input, from the text's hash (no model)."""

    def do_POST(self) -> None:  # the name http.server calls
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        data = [{"index": i, "embedding": _hash_vector(t)} for i, t in enumerate(texts)]
        reply = json.dumps({"data": data}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args: object) -> None:  # one line a request would drown the report
        pass


def _hash_vector(text: str) -> list[float]:
    raw = np.frombuffer(hashlib.sha256(text.encode()).digest()[: STUB_DIM * 4], dtype=np.int32).astype(float)
    return (raw / np.linalg.norm(raw)).tolist()


def _sentence(rng: random.Random, names: list[str]) -> str:
    words = [rng.choice(names) if rng.random() < 0.2 else rng.choice(WORDS) for _ in range(rng.randint(5, 28))]
    if rng.random() < 0.1:
        words.insert(rng.randrange(len(words)), rng.choice(("Dr.", "U.S.", "Mr.")) + " " + rng.choice(names))
    return words[0].capitalize() + " " + " ".join(words[1:]) + rng.choice(".....!?")


def _paragraphs(rng: random.Random) -> tuple[list[str], list[str]]:
    """A pool of sentences and of headings; paragraphs are drawn from it (generating 200 MB word by
    word would take minutes); each paragraph also gets a numbered sentence so no two are alike."""
    names = ["".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))).capitalize() for _ in range(3000)]
    return [_sentence(rng, names) for _ in range(20000)], [f"# {rng.choice(names)} {rng.choice(names)}"
                                                           for _ in range(500)]


def write_prose(path: Path, size_mb: int, shape: str, run_kib: int = NO_SPACE_RUN // 1024, seed: int = 9) -> None:
    """`size_mb` MiB of deterministic prose with a run of `run_kib` KiB without spaces half way through."""
    rng = random.Random(seed)
    sentences, headings = _paragraphs(rng)
    gap = "\n" if shape == "one-paragraph" else "\n\n"
    target, written, number, run_written = size_mb * MIB, 0, 0, False
    with path.open("w", encoding="utf-8") as out:
        while written < target:
            number += 1
            parts = [f"Entry {number} is noted here."]
            parts += rng.sample(sentences, rng.choice((2, 3, 5, 8, 12, 40, 80)))
            block = (rng.choice(headings) + gap if rng.random() < 0.05 else "") + " ".join(parts) + gap
            if not run_written and written >= target // 2:
                alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
                block += "".join(rng.choice(alphabet) for _ in range(run_kib * 1024)) + gap
                run_written = True
            out.write(block)
            written += len(block.encode("utf-8"))


def run_index(src: Path, text: Path, store: Path, port: int, embedder: str) -> dict[str, float]:
    """One `hopgraph index` process: wall seconds, its own peak RSS, and its exit code."""
    env = {**os.environ, "PYTHONPATH": str(src), "HOPGRAPH_CONFIG": str(store.with_suffix(".none.toml")),
           "HOPGRAPH_EMBEDDER": "openai", "HOPGRAPH_EMBED_URL": f"http://127.0.0.1:{port}/v1",
           "HOPGRAPH_EMBED_MODEL": "stub"}
    if embedder == "minilm":  # the real bundled model: only for small sizes (hours for 200 MB)
        env["HOPGRAPH_EMBEDDER"] = "minilm"
    command = [sys.executable, "-m", "hopgraph.cli.app", "index", str(text), "--store", str(store), "--quiet",
               "--json"]
    started = time.perf_counter()
    child = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)  # this child's own rusage, not the max over all children
    seconds = time.perf_counter() - started
    out, err = child.stdout.read().decode(), child.stderr.read().decode()  # type: ignore[union-attr]
    code = os.waitstatus_to_exitcode(status)
    if code:
        print(f"  exit {code}: {err.strip()[-400:]}", file=sys.stderr)
    return {"seconds": round(seconds, 1), "peak_rss_mb": round(usage.ru_maxrss / 1024, 1), "exit": code,
            "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 1), **phases(out)}


def phases(out: str) -> dict[str, object]:
    """From `index --json`: chunks, names, links, each phase's seconds, and seconds per 1,000 chunks of
    the two slow ones — embedding and name reading ("plan" is reading, chunking and hashing)."""
    try:
        report = json.loads(out)
    except ValueError:
        return {"output": out.strip()[-400:]}
    seconds = {k: round(v, 1) for k, v in report.get("seconds", {}).items()}
    chunks = report.get("chunks_written", 0)
    per_1000 = {k: round(seconds.get(k, 0.0) * 1000 / chunks, 2) for k in ("embed", "read_names", "total")} \
        if chunks else {}
    return {"chunks": chunks, "paragraphs_read": report.get("paragraphs_read"), "names": report.get("names"),
            "links": report.get("links"), "phase_seconds": seconds, "seconds_per_1000_chunks": per_1000}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 50, 200], help="file sizes in MiB")
    parser.add_argument("--shape", choices=("prose", "one-paragraph"), default="prose")
    parser.add_argument("--src", type=Path, default=ROOT / "src", help="the hopgraph source tree to run")
    parser.add_argument("--label", default="after", help="what this run measures (before / after)")
    parser.add_argument("--embedder", choices=("stub", "minilm"), default="stub")
    parser.add_argument("--run-kib", type=int, default=NO_SPACE_RUN // 1024, help="the run without spaces, KiB")
    parser.add_argument("--reindex", action="store_true", help="index the unchanged file a second time too")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _StubEmbeddings)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    results = json.loads(args.out.read_text()) if args.out.exists() else {"runs": []}
    with tempfile.TemporaryDirectory(prefix="big_file_") as work:
        for size in args.sizes:
            text, store = Path(work) / f"prose_{size}mb.txt", Path(work) / f"store_{size}.db"
            write_prose(text, size, args.shape, args.run_kib)
            for run in ("first", "unchanged") if args.reindex else ("first",):
                row = {"label": args.label, "shape": args.shape, "size_mb": size, "embedder": args.embedder,
                       "run": run, "run_kib": args.run_kib, "cpus": os.cpu_count(),
                       "loadavg_1m_before": round(os.getloadavg()[0], 2),  # other work on the machine slows runs
                       **run_index(args.src.resolve(), text, store, server.server_address[1], args.embedder)}
                row["seconds_per_mb"] = round(row["seconds"] / size, 1)
                print(json.dumps(row), flush=True)
                key = ("label", "shape", "size_mb", "embedder", "run", "run_kib")
                results["runs"] = [r for r in results["runs"] if [r.get(k) for k in key] != [row[k] for k in key]]
                results["runs"].append(row)
            text.unlink()
    server.shutdown()
    results["note"] = ("embedder stub: vectors from a stub /v1/embeddings endpoint served by the bench (hash "
                       "vectors, no model); minilm: the bundled model. peak_rss_mb is the index process's own "
                       "maximum resident set (os.wait4); run 'unchanged' indexes the same file again")
    args.out.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
