"""A hopgraph run that kills itself with SIGKILL at a chosen moment (run as a child process by
tests/test_crash.py): `python crash_run.py STORE DOCS.json WHERE`.

WHERE: `embed` — after the second committed batch of vectors; `apply` — inside the index run's
final write transaction, after its documents and chunks are written and before the commit;
`extract` — after the first committed batch of the no-LLM extractors; `backfill` — during
`extract --backfill` with the LLM at $CRASH_LLM_URL, once the second batch's replies are in the reply
cache and before that batch's facts are committed; `remove` — after the no-LLM graph is built, a
`remove` of two documents whose withdrawal is committed and whose graph rebuild has not started;
`communities` — inside the transaction that writes the community tree, before its commit;
`communities-committed` — just after that transaction's commit; `rechunk` — after the no-LLM graph
is built, inside the final write of an index run that edits one document and moves another (`rechunked`),
once its facts are carried and before the commit. SIGKILL
is what `kill -9` and the OOM killer send: no handler, no cleanup, no flush."""

from __future__ import annotations

import json
import os
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from testkit import BagOfWordsEmbedder

import hopgraph.kg.build
import hopgraph.kg.extractors.llm
from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.ingest import embedding
from hopgraph.kg.backfill import backfill
from hopgraph.records.documents import Document
from hopgraph.store import Store

REMOVED = 2  # `remove` withdraws the documents of the first two titles


def doomed(store: Store) -> list[str]:
    """The ids, as `hopgraph remove` takes them, of the documents the `remove` run withdraws."""
    documents = sorted(store.active_documents().values(), key=lambda d: d.title)
    return [str(d.id) for d in documents[:REMOVED]]


def die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def rechunked(docs: list[Document]) -> list[Document]:
    """The documents with the first one edited (a paragraph added: its first chunk unchanged) and the
    second moved to another source (withdrawn and added again, same text)."""
    first, second = docs[0], docs[1]
    return [replace(first, text=first.text + "\n\nA paragraph added later."),
            replace(second, source=second.source + "-moved"), *docs[2:]]


def die_inside_apply(hg: HopGraph) -> None:
    """The next index run's final write is killed once its rows are written, before the commit."""
    original_apply = hg.store.apply

    def apply_then_die(change, build_graph, meta, run, carry):
        def build_and_die(table):
            build_graph(table)
            die()  # the documents, chunks, carried facts and graph rows are written, the commit is not
        return original_apply(change, build_and_die, meta, run, carry)
    hg.store.apply = apply_then_die


def main() -> None:
    store, docs_file, where = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
    docs = [Document(**d) for d in json.loads(docs_file.read_text(encoding="utf-8"))]
    embedding.EMBED_COMMIT_EVERY = 16  # several batches, so a kill lands between two of them
    hopgraph.kg.build.BATCH = 8
    hopgraph.kg.extractors.llm.BATCH = 8
    saved = {"batches": 0}
    if where == "embed":
        original = embedding._embed_batch

        def embed_then_die(*args, **kwargs):
            original(*args, **kwargs)
            saved["batches"] += 1
            if saved["batches"] == 2:
                die()
        embedding._embed_batch = embed_then_die
    settings = Settings(llm_url=os.environ.get("CRASH_LLM_URL", ""), llm_model="qwen-test")
    with HopGraph(store, settings if where == "backfill" else Settings(), embedder=BagOfWordsEmbedder(),
                  quiet=True) as hg:
        if where == "apply":
            die_inside_apply(hg)
        hg.index_documents(docs)
        if where == "extract":
            original_save = hg.store.save_facts

            def save_then_die(facts):
                original_save(facts)
                die()
                return []
            hg.store.save_facts = save_then_die
            hg.extract_without_llm()
        if where in ("remove", "rechunk") or where.startswith("communities"):
            hg.extract_without_llm()
        if where == "rechunk":
            die_inside_apply(hg)
            hg.index_documents(rechunked(docs))
        if where == "remove":
            hg.build_graph = lambda *args, **kwargs: die()  # the withdrawal is committed, the rebuild not
            hg.remove(doomed(hg.store))
        if where.startswith("communities"):
            transaction = hg.store._transaction

            @contextmanager
            def dies_around_the_commit() -> Iterator[None]:
                with transaction():
                    yield
                    if where == "communities":
                        die()  # every row of the tree is written, the commit is not
                die()  # "communities-committed": the first write transaction of the step has committed
            hg.store._transaction = dies_around_the_commit
            hg.communities()
        if where == "backfill":
            save_facts = hg.store.save_facts

            def second_save_dies(facts):
                saved["batches"] += 1
                if saved["batches"] == 2:
                    die()
                return save_facts(facts)
            hg.store.save_facts = second_save_dies
            backfill(hg)


if __name__ == "__main__":
    main()
