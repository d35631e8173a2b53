"""Names from text instead of titles: the six methods on both shared sets, titled next to extracted.

    .venv/bin/python bench/names_from_text.py [--data-dir ../shared/data] [--store-dir DIR]
                                               [--out bench/results/names_from_text.json]

With `--names-from extracted` the titles are hidden from the name graph: each document is named
by what its first chunk is about (hopgraph.text.nlp, spaCy's small English model, no LLM).
Titles still decide which paragraphs are gold. Diagnostics: how often a paragraph's "about" name
is its title, how many names and links each graph has, and how many questions have their gold
paragraphs linked. `--store-dir` keeps the indexes (embeddings are reused between the titled and
the extracted store of a set); without it everything is built fresh in a temporary folder.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import tempfile
import time
from collections import Counter, defaultdict
from importlib import metadata
from pathlib import Path
from typing import Any

from hopgraph.config import Settings
from hopgraph.eval import load_questions, run_eval
from hopgraph.linkgraph.names import strip_disambiguation
from hopgraph.store import open_store
from hopgraph.text.nlp import EXTRACTOR_VERSION, MODEL_PACKAGE

SETS = {"hotpotqa": "hotpotqa/hotpotqa_200.json", "2wiki": "2wikimultihopqa/2wiki_dev_500.json"}
SOURCES = ("titles", "extracted")


def graph_of(store_path: str) -> tuple[dict[int, str], dict[str, list[tuple[str, str]]], set[tuple[str, str]]]:
    """Chunk id → title, title → [(name, filter reason)] in name order, linked (title, title) pairs."""
    store = open_store(store_path)
    table = store.chunk_table()
    graph = store.name_graph()
    store.close()
    title_of_chunk = {int(c): table.titles[int(d)] for c, d in zip(table.ids, table.doc_ids, strict=True)}
    doc_names: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for name in graph.names:
        if name.doc_id is not None and name.doc_id in table.titles:
            doc_names[table.titles[name.doc_id]].append((name.surface, name.filtered))
    pairs = {(title_of_chunk[k.source_chunk], title_of_chunk[k.target_chunk]) for k in graph.links
             if k.source_chunk in title_of_chunk and k.target_chunk in title_of_chunk}
    return title_of_chunk, doc_names, pairs


def about_vs_title(doc_names: dict[str, list[tuple[str, str]]], titles: list[str]) -> dict[str, Any]:
    """How the first extracted ("about") name of each paragraph compares with its hidden title."""
    kinds: Counter[str] = Counter()
    for title in titles:
        names = [surface for surface, _ in doc_names.get(title, [])]
        stripped = strip_disambiguation(title)
        if not names:
            kinds["no name"] += 1
        elif names[0] in (title, stripped):
            kinds["about == title"] += 1
        elif stripped in names or title in names:
            kinds["title among its aliases"] += 1
        elif stripped in names[0] or names[0] in stripped:
            kinds["about contains / is contained in title"] += 1
        else:
            kinds["other"] += 1
    n = len(titles)
    return {"paragraphs": n, **{k: {"n": v, "share": round(v / n, 3)} for k, v in sorted(kinds.items())}}


def gold_linked(data: Path, pairs: set[tuple[str, str]]) -> dict[str, float]:
    """Share of questions (per type) whose gold paragraphs are linked in either direction."""
    questions, _, _ = load_questions(data)
    by_type: dict[str, list[float]] = defaultdict(list)
    for q in questions:
        gold = sorted(q.gold_titles)
        if len(gold) > 1:
            linked = any((a, b) in pairs for a in gold for b in gold if a != b)
            by_type[q.type].append(float(linked))
            by_type["all"].append(float(linked))
    return {t: round(sum(v) / len(v), 3) for t, v in sorted(by_type.items())}


def diagnostics(data: Path, stores: dict[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for source, path in stores.items():
        title_of_chunk, doc_names, pairs = graph_of(path)
        titles = sorted(set(title_of_chunk.values()))
        all_names = [n for names in doc_names.values() for n in names]
        out[source] = {"names": len(all_names), "names_per_paragraph": round(len(all_names) / len(titles), 2),
                       "filtered": dict(Counter(f for _, f in all_names if f)),
                       "linked_paragraph_pairs": len(pairs), "gold_linked": gold_linked(data, pairs)}
        if source == "extracted":
            out[source]["about_vs_title"] = about_vs_title(doc_names, titles)
    return out


def copy_store(source: str, target: str) -> None:
    """Start the extracted store from the titled one: same chunks and embeddings, graph rebuilt."""
    with sqlite3.connect(source) as src, sqlite3.connect(target) as dst:
        src.backup(dst)


def side_by_side(results: dict[str, dict[str, Any]]) -> str:
    titled, extracted = results["titles"], results["extracted"]
    types = sorted({t for m in titled["methods"].values() for t in m["by_type"]})
    header = ["method", "titles", "extracted", *[f"{t} t/e" for t in types]]
    rows = []
    for method, t in titled["methods"].items():
        e = extracted["methods"][method]
        rows.append([method, f"{t['all']['both_found']:.3f}", f"{e['all']['both_found']:.3f}",
                     *[f"{t['by_type'][k]['both_found']:.2f}/{e['by_type'][k]['both_found']:.2f}" for k in types]])
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in [header, *rows])


def bench_set(name: str, data: Path, store_dir: Path, quiet: bool) -> dict[str, Any]:
    stores = {source: str(store_dir / f"{name}_{source}.db") for source in SOURCES}
    results: dict[str, Any] = {}
    for source in SOURCES:
        if source == "extracted" and not Path(stores[source]).exists():
            copy_store(stores["titles"], stores[source])
        started = time.perf_counter()
        results[source] = run_eval(data, store=stores[source], settings=Settings(), quiet=quiet, names_from=source)
        results[source]["wall_seconds"] = round(time.perf_counter() - started, 1)
    out = {**results, "diagnostics": diagnostics(data, stores)}
    first = results["titles"]
    print(f"\n== {name}: {first['n_questions']} questions, {first['n_paragraphs']} paragraphs, top {first['top']} "
          f"(both found)")
    print(side_by_side(results))
    for source in SOURCES:
        d = out["diagnostics"][source]
        print(f"{source:9s}: {d['names']} names ({d['names_per_paragraph']}/paragraph, filtered {d['filtered']}), "
              f"{d['linked_paragraph_pairs']} linked paragraph pairs, gold paragraphs linked {d['gold_linked']}; "
              f"index {json.dumps(results[source]['index_seconds'])}")
    about = out["diagnostics"]["extracted"]["about_vs_title"]
    print("about name vs hidden title: " + ", ".join(f"{k} {v['share']:.1%}" for k, v in about.items()
                                                      if isinstance(v, dict)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_data = Path(__file__).resolve().parents[2] / "shared" / "data"
    parser.add_argument("--data-dir", type=Path, default=default_data)
    parser.add_argument("--out", type=Path, default=Path("bench/results/names_from_text.json"))
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--store-dir", type=Path, help="Keep (and reuse) the indexes here.")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args()
    results: dict[str, Any] = {"extractor": EXTRACTOR_VERSION, "spacy": metadata.version("spacy"),
                               "model": f"{MODEL_PACKAGE} {metadata.version(MODEL_PACKAGE.replace('_', '-'))}"}
    with tempfile.TemporaryDirectory(prefix="hopgraph-names-") as tmp:
        store_dir = args.store_dir or Path(tmp)
        store_dir.mkdir(parents=True, exist_ok=True)
        for name in args.sets.split(","):
            results[name] = bench_set(name, args.data_dir / SETS[name], store_dir, args.quiet)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
