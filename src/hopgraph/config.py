"""Settings: defaults, overridden by `hopgraph.toml` (or $HOPGRAPH_CONFIG), then by HOPGRAPH_* env vars."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from hopgraph.errors import InputError


@dataclass(frozen=True)
class Settings:
    store: str = "hopgraph.db"
    # Chunking (ingest/chunking.py): "paragraphs" — a paragraph per chunk, a long one cut between
    # sentences into pieces of at most `chunk_tokens` that repeat up to `chunk_overlap` tokens of
    # whole sentences — or "windows" of `chunk_tokens` tokens that overlap by `chunk_overlap`.
    chunking: str = "paragraphs"
    chunk_tokens: int = 600
    chunk_overlap: int = 100
    # Where names come from (linkgraph/naming.py): "auto" (the text, plus the titles that are
    # names, decided per document), "titles", "text" or "both".
    names_from: str = "auto"
    # Embedder: "minilm" (bundled ONNX model) or "openai" (any /v1/embeddings endpoint).
    embedder: str = "minilm"
    embed_url: str = "http://127.0.0.1:11434/v1"
    embed_model: str = "nomic-embed-text"
    embed_api_key: str = ""
    # Retrieval budget and fusion.
    top: int = 5
    seeds: int = 3
    rrf_k: int = 10  # measured against 30/60/100 in docs/BENCHMARKS.md
    # Vector search through an ANN index (faiss IVF, retrieval/vector_search.py) from this many chunks
    # on, exact below: where exact search starts to cost more than a few ms (docs/BENCHMARKS.md, scale).
    ann_threshold: int = 50_000
    # Where retrieval ranks (retrieval/search_in.py): "snapshot" (in process, over a snapshot kept
    # on disk), "database" (a postgresql:// store ranks in SQL, nothing local) or "auto": database
    # for a postgresql:// store, snapshot otherwise.
    search_in: str = "auto"
    # `serve`: every this many seconds a background thread reads the store's generation and, when
    # another process wrote (an index run, a removal, a knowledge-graph rebuild), loads a fresh
    # reader, so a replica sees the write without waiting for a request to find it (0 = only when a
    # request finds the store changed). docs/BENCHMARKS.md, "Stateless query replicas".
    refresh_seconds: float = 1.0
    # Name filter: names shorter than this, or mentioned by more than this share of documents,
    # make no links (they are words or hubs, not entities); see docs/BENCHMARKS.md for the effect.
    min_name_chars: int = 3
    max_name_doc_share: float = 0.01
    # Knowledge graph: an OpenAI-compatible chat endpoint for extraction and answers ("" = none).
    llm_url: str = ""
    llm_model: str = ""
    llm_api_key: str = ""
    llm_concurrency: int = 4
    # Seconds one LLM reply may take in all (it is streamed), seconds to its first byte (a server
    # that accepts and never answers is given up on then, retried once, and then no call is tried),
    # the deadline all the LLM calls of one question share (`ask`; 0 = none): past it, the call
    # fails; and the one of a long job (`extract`, `extract --backfill`; 0 = none): past it the
    # job stops, keeps what it extracted, and says so.
    llm_timeout: float = 60.0
    llm_first_byte: float = 12.0
    llm_deadline: float = 300.0
    llm_job_deadline: float = 0.0
    gleanings: int = 0
    # `ask --mode local|paths` with an LLM whose extraction the store holds: the question's top hits
    # from chunks it has not read yet are extracted first, at most this many (0 = never; query/live.py).
    live_extract_chunks: int = 3
    entity_types: str = "PERSON,ORG,PRODUCT,LOCATION,COMPONENT,EVENT,CONCEPT"
    relation_types: str = "SUPPLIES,USES,LOCATED_IN,OWNS,PART_OF,REPORTS_TO,CAUSED_BY,RELATED_TO"
    # Relations whose subject has one object at a time: a newer statement supersedes an older one
    # (kg/supersession.py): the old fact ends where the new one begins.
    functional_relations: str = "LOCATED_IN,REPORTS_TO"
    # Entity resolution: merge names whose embeddings are this similar; between review and auto,
    # ask a person (`hopgraph review-merges`).
    merge_auto: float = 0.93
    merge_review: float = 0.80
    # The answer of `ask` in search and auto modes: with an LLM, the hits it reads (in rank order)
    # hold at most this many tokens.
    answer_tokens: int = 3000
    # `--mode iterative` (IRCoT): retrievals at most per question, and the method each one runs.
    iterative_steps: int = 3
    iterative_method: str = "hybrid"
    # Communities (hierarchical Leiden) and their reports: communities larger than this are split
    # again one level down, at most `community_levels` deep; an LLM report reads at most
    # `report_tokens` of material (else its children's reports stand in).
    community_max_size: int = 10
    community_levels: int = 4
    report_tokens: int = 6000
    # Global search and DRIFT: the community level read, the reports per map call and the points in
    # the reduce call (estimated tokens; a small local model wants small batches), and DRIFT's
    # follow-up questions per round and rounds of them.
    global_level: int = 0
    global_batch_tokens: int = 2000
    global_context_tokens: int = 4000
    drift_followups: int = 3
    drift_depth: int = 1
    # A writer waits this many seconds for another writer to finish before giving up and naming it.
    lock_timeout: float = 30.0


def _coerce(value: Any, like: Any, key: str) -> Any:
    """`value` as the type of the default `like` (env strings are parsed; toml values must match)."""
    kind = type(like)
    if isinstance(value, kind) and not (kind is int and isinstance(value, bool)):
        return value
    if isinstance(value, str) or (kind is float and isinstance(value, int)):
        try:
            return kind(value)
        except ValueError:
            pass
    raise InputError(f"setting {key}={value!r} is not a valid {kind.__name__}")


def load_settings(config_path: str | None = None, **overrides: Any) -> Settings:
    """Defaults ← toml file ← HOPGRAPH_<NAME> environment ← explicit overrides (None is ignored)."""
    settings = Settings()
    known = {f.name: getattr(settings, f.name) for f in fields(Settings)}
    path = Path(config_path or os.environ.get("HOPGRAPH_CONFIG", "hopgraph.toml"))
    values: dict[str, Any] = {}
    if path.is_file():
        try:
            values.update(tomllib.loads(path.read_text(encoding="utf-8")))
        except tomllib.TOMLDecodeError as err:
            raise InputError(f"config file {path} is not valid TOML: {err}") from None
    for key, default in known.items():
        env = os.environ.get(f"HOPGRAPH_{key.upper()}")
        if env is not None:
            values[key] = _coerce(env, default, key)
    values.update({k: v for k, v in overrides.items() if v is not None})
    unknown = sorted(set(values) - set(known))
    if unknown:
        raise InputError(f"unknown setting(s): {', '.join(unknown)}")
    return replace(settings, **{key: _coerce(value, known[key], key) for key, value in values.items()})
