"""What many tests share: a deterministic bag-of-words embedder (no model), a tiny two-hop corpus,
and where the shared QA sets live. Fixtures built on them are in conftest.py."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from hopgraph.records.documents import Document

REPO = Path(__file__).resolve().parents[2]
SUPPLIERS = REPO / "examples" / "suppliers"  # the supplier corpus, gold edges and chains
TEST_DATA = REPO / "tests" / "data"  # recorded replies and store fixtures
# The shared QA sets beside the checkout (present on developer machines and in CI, not on a user's).
SHARED_DATA = REPO.parent / "shared" / "data"
E2E_RECORDS = 50  # 50 sample records pool 488 paragraphs: 38 bridge and 12 comparison questions
E2E_METHODS = ["hybrid", "hybrid+links", "hybrid+names+links"]


class BagOfWordsEmbedder:
    """Hashes lower-cased words into 256 buckets: texts sharing words get similar vectors.

    Fast and deterministic, so retrieval-logic tests do not depend on a neural model.
    """

    name = "test-bag-of-words"
    dim = 256

    def __init__(self) -> None:
        self.calls = 0
        self.texts_embedded = 0
        self.texts: list[str] = []  # every text embedded, in order

    def _vector(self, text: str) -> np.ndarray:
        vector = np.zeros(self.dim, dtype=np.float32)
        for word in re.findall(r"\w+", text.lower()):
            vector[int(hashlib.md5(word.encode()).hexdigest(), 16) % self.dim] += 1.0
        norm = np.linalg.norm(vector)
        return vector / norm if norm else vector

    def embed(self, texts: Sequence[str], progress: object = None) -> np.ndarray:
        self.calls += 1
        self.texts_embedded += len(texts)
        self.texts.extend(texts)
        return np.vstack([self._vector(t) for t in texts]) if texts else np.zeros((0, self.dim), np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return self._vector(text)


# A tiny two-hop world: the film's paragraph names its director; her paragraph holds the answer.
TINY_CORPUS = [
    Document("Big Stone Gap (film)", "Big Stone Gap is a 2014 American drama romantic comedy film written "
             "and directed by Adriana Trigiani and produced by Donna Gigliotti.", "tiny"),
    Document("Adriana Trigiani", "Adriana Trigiani is an Italian American best-selling author of sixteen "
             "books, television writer, film director, and entrepreneur based in Greenwich Village, "
             "New York City.", "tiny"),
    Document("Greenwich Village", "Greenwich Village is a neighborhood on the west side of Lower Manhattan.",
             "tiny"),
    Document("Donna Gigliotti", "Donna Gigliotti is an American film producer who won an Academy Award.",
             "tiny"),
    Document("Stone Age", "The Stone Age was a broad prehistoric period during which stone was widely used "
             "to make tools.", "tiny"),
    Document("Gap Inc.", "Gap Inc. is an American clothing retailer based in San Francisco.", "tiny"),
    Document("Romantic comedy", "Romantic comedy is a genre of film with light-hearted plots about love; "
             "many are American drama films.", "tiny"),
]


def write_folder(folder: Path, texts: dict[str, str]) -> Path:
    """A folder of UTF-8 files, name → text; returns the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in texts.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder
