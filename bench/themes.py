"""Community labels, measured: c-TF-IDF phrases against KeyBERT-style noun phrases, on three corpora.

    HOPGRAPH_CACHE=cache .venv/bin/python bench/themes.py [--data-dir ../shared/data] [--corpora book,...]

Corpora (each its no-LLM concept graph and Leiden tree, built once into $HOPGRAPH_CACHE/themes/):
the bundled *A Christmas Carol*, the supplier documents (examples/suppliers/docs) and the pooled
paragraphs of the shared HotpotQA sample. Methods (hopgraph.communities.labels holds the shared
parts: phrase counting, chunk shares, sibling ownership, the choice of labels):

  nouns        c-TF-IDF of noun phrases per level (what hopgraph ships since issue 22): spaCy's noun
               chunks and names, trimmed (hopgraph.text.noun_phrases), counted as the phrases
  ctfidf       c-TF-IDF of 1-3 word n-grams per level (hopgraph's labels before issue 22; without spaCy)
  ctfidf-np    the n-grams' scores, candidates restricted to spaCy noun phrases
  ctfidf-free  ctfidf without the sibling rule (any sibling may take any phrase)
  ctfidf-plain ctfidf without the two readability rules: reporting verbs are not stopwords, and a
               phrase never gives way to a longer one ("Tiny" stays "Tiny")
  keybert      spaCy noun phrases (determiners dropped, ≤ 4 words) ranked by cosine to the community's
               centroid (its chunks' MiniLM vectors weighted by its share of each), sibling rule,
               MMR (diversity 0.5) for the five labels, as KeyBERT does
  keybert-top  the same without MMR: the five nearest noun phrases

Metrics over every community that has siblings to be told from (the label text is its first three
labels joined, what an answer shows):
  auc_bm25 / auc_dense  ROC AUC of the label as a query (BM25, MiniLM cosine) separating the
        community's chunks (weighted by its share of each) from its siblings' other chunks; 0.5 = chance
  p1_bm25 / p1_dense  the community's share of the first chunk the label retrieves among those
        chunks (1 = a chunk wholly its own comes first)
  coverage  weighted share of the community's chunks that contain one of its three labels
  redundancy  share of shown labels repeating the words of a sibling's shown label (the same
        overlap rule the labeller uses: half the content words of the shorter one)
  seconds  labelling time, all communities (keybert and ctfidf-np: spaCy and embedding included;
        nouns: with its phrases cached, as a store keeps them — the parse is `nouns_parse_seconds`)
Differences are paired over communities with a bootstrap 95 % interval (1,000 resamples, seed 7).
Writes bench/results/themes.json.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
from platformdirs import user_cache_dir
from scipy import sparse

from hopgraph.communities import labels as lab
from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.eval import load_questions, pooled_corpus
from hopgraph.records.communities import Community
from hopgraph.text.bm25 import KeywordIndex
from hopgraph.text.nlp import NAME_LABELS, NOUN_CHUNK, concepts
from hopgraph.text.noun_phrases import noun_phrases as noun_phrases_of

REPO = Path(__file__).resolve().parents[1]
SHOWN = 3  # labels an answer shows
DIVERSITY = 0.5  # KeyBERT's MMR default
NP_WORDS = 4
_LEADING = re.compile(r"^(?:(?:the|a|an|his|her|its|their|my|your|our|this|that|these|those|some|any|every|each|"
                      r"no|all|such)\s+)+", re.IGNORECASE)


# --- corpora -------------------------------------------------------------------------------------------

def corpus_paths(data_dir: Path) -> dict[str, Callable[[HopGraph], object]]:
    book = Path(str(resources.files("hopgraph.assets").joinpath("a_christmas_carol.txt")))
    suppliers = sorted((REPO / "examples" / "suppliers" / "docs").glob("*.md"))
    hotpot = data_dir / "hotpotqa" / "hotpotqa_200.json"

    def index_hotpot(hg: HopGraph) -> object:
        _, records, _ = load_questions(hotpot)
        return hg.index_documents(pooled_corpus(records, "bench:hotpotqa"))

    return {"book": lambda hg: hg.index([book]), "suppliers": lambda hg: hg.index(suppliers),
            "hotpotqa": index_hotpot}


def open_corpus(name: str, index: Callable[[HopGraph], object]) -> HopGraph:
    """The corpus's store with its concept graph and tree, built on the first run and reused after."""
    root = Path(os.environ.get("HOPGRAPH_CACHE", user_cache_dir("hopgraph"))) / "themes"
    root.mkdir(parents=True, exist_ok=True)
    hg = HopGraph(str(root / f"{name}.db"), Settings())
    if not hg.store.has_knowledge_graph():
        index(hg)
        hg.extract_concepts()
    hg.communities()
    return hg


# --- what every method shares --------------------------------------------------------------------------

@dataclass
class Corpus:
    hg: HopGraph
    communities: list[Community]
    phrases: lab.Phrases
    shares: sparse.csr_matrix  # community × chunk (rows of phrases.chunk_ids)
    vectors: np.ndarray  # chunk rows, MiniLM


def load(hg: HopGraph) -> Corpus:
    tree, graph = hg.communities(), hg.knowledge_graph
    chunk_ids = sorted({c for e in graph.entities.values() for c in e.chunks})
    phrases = lab.phrase_counts(hg.chunk_texts(set(chunk_ids)))
    index = hg.search_index
    rows = [index.row_of_chunk[c] for c in phrases.chunk_ids]
    return Corpus(hg, tree.communities, phrases, lab.chunk_shares(graph, tree, phrases.chunk_ids),
                  index.vectors[rows])


def noun_phrases(corpus: Corpus) -> tuple[sparse.csr_matrix, list[lab.Key], list[str]]:
    """spaCy noun chunks and named entities of every chunk: chunk × phrase counts, keys, written forms."""
    texts = corpus.hg.chunk_texts(set(corpus.phrases.chunk_ids))
    found = concepts([texts[c] for c in corpus.phrases.chunk_ids])
    return lab.count_matrix(_noun_phrase_items(found), len(found))


def _noun_phrase_items(found: list[list[Any]]) -> Iterator[tuple[int, lab.Key, str]]:
    """(chunk row, phrase key, written form) of the noun chunks and names of every chunk."""
    for row, items in enumerate(found):
        for item in items:
            if item.label != NOUN_CHUNK and item.label not in NAME_LABELS:
                continue
            surface = _LEADING.sub("", " ".join(item.surface.split())).strip(" '\"’“”")
            words = lab._WORD.findall(surface)
            key = tuple(lab.stem(w) for w in words)
            if not words or len(words) > NP_WORDS or not lab.content_words(key):
                continue
            yield row, key, surface


def levels(corpus: Corpus) -> list[tuple[list[Community], list[Community]]]:
    """Per level: the partition (at_level) and the communities labelled at it."""
    tree = corpus.hg.communities()
    return [(tree.at_level(n), [c for c in tree.at_level(n) if c.level == n]) for n in range(tree.levels)]


def pick(pools: dict[int, lab.Candidates], labelled: list[Community], surface: Callable[[lab.Key], str],
         chooser: Callable[[lab.Candidates, Callable[[lab.Key], bool]], list[lab.Key]],
         longer: dict[lab.Key, list[lab.Key]], siblings_rule: bool = True) -> dict[int, list[str]]:
    out = {}
    for group in lab.sibling_groups(labelled):
        owner = lab.owners(pools, group, longer) if siblings_rule else {}
        for community in group:
            chosen = chooser(pools[community.id],
                             lambda key, c=community.id, owner=owner: not siblings_rule or owner.get(key) == c)
            out[community.id] = [surface(k) for k in chosen]
    return out


# --- the methods --------------------------------------------------------------------------------------

def ctfidf(corpus: Corpus, only: set[lab.Key] | None = None, siblings_rule: bool = True,
           phrases: lab.Phrases | None = None, longer_forms: bool = True) -> dict[int, list[str]]:
    phrases = phrases or corpus.phrases
    longer = lab.longer_forms(phrases) if longer_forms else {}
    if only is not None:
        longer = {key: [f for f in forms if f in only] for key, forms in longer.items()}
    out: dict[int, list[str]] = {}
    for partition, labelled in levels(corpus):
        counts = sparse.csr_matrix(corpus.shares[[c.id for c in partition]] @ phrases.counts)
        scores = lab.class_tfidf(counts)
        if only is not None:  # zero every phrase outside the allowed set
            keep = np.array([k in only for k in phrases.keys], dtype=float)
            scores = sparse.csr_matrix(scores @ sparse.diags(keep))
            scores.eliminate_zeros()
        pools = {c.id: lab.candidates_of(scores, counts, row, phrases.keys) for row, c in enumerate(partition)}
        out.update(pick(pools, labelled, lambda k: phrases.surfaces[phrases.column[k]],
                        lambda pool, allowed: lab.choose(pool, allowed, longer, lab.LABELS), longer, siblings_rule))
    return out


def keybert(corpus: Corpus, nps: tuple[sparse.csr_matrix, list[lab.Key], list[str]], mmr: bool) -> dict[int, list[str]]:
    counts_np, keys, surfaces = nps
    phrase_vectors = corpus.hg.embedder.embed(surfaces) if surfaces else np.zeros((0, 384), np.float32)
    column = {k: i for i, k in enumerate(keys)}
    out: dict[int, list[str]] = {}
    for partition, labelled in levels(corpus):
        counts = sparse.csr_matrix(corpus.shares[[c.id for c in partition]] @ counts_np)
        centroids = np.asarray(corpus.shares[[c.id for c in partition]] @ corpus.vectors)
        centroids /= np.maximum(np.linalg.norm(centroids, axis=1, keepdims=True), 1e-12)
        pools = {}
        for row, community in enumerate(partition):
            held, values = lab.row_items(counts, row)
            cosine = phrase_vectors[held] @ centroids[row]
            order = np.lexsort((held, -cosine))[:lab.CANDIDATES]
            pools[community.id] = lab.Candidates([(keys[held[i]], float(cosine[i])) for i in order],
                                                 {keys[c]: float(v) for c, v in zip(held, values, strict=True)})

        def choose(pool: lab.Candidates, allowed: Callable[[lab.Key], bool]) -> list[lab.Key]:
            ranked = [(k, s) for k, s in pool.ranked if allowed(k)]
            if not mmr:
                return [k for k, _ in ranked[:lab.LABELS]]
            return _mmr(ranked, phrase_vectors[[column[k] for k, _ in ranked]])

        out.update(pick(pools, labelled, lambda k: surfaces[column[k]], choose, {}))
    return out


def _mmr(ranked: list[tuple[lab.Key, float]], vectors: np.ndarray) -> list[lab.Key]:
    """KeyBERT's maximal marginal relevance: relevance to the centroid against likeness to the chosen."""
    if not ranked:
        return []
    relevance = np.array([s for _, s in ranked])
    chosen = [0]
    while len(chosen) < min(lab.LABELS, len(ranked)):
        rest = [i for i in range(len(ranked)) if i not in chosen]
        likeness = (vectors[rest] @ vectors[chosen].T).max(axis=1)
        gain = (1 - DIVERSITY) * relevance[rest] - DIVERSITY * likeness
        chosen.append(rest[int(np.argmax(gain))])
    return [ranked[i][0] for i in chosen]


# --- the measurement --------------------------------------------------------------------------------------

def weighted_auc(scores: np.ndarray, positive: np.ndarray, negative: np.ndarray, weights: np.ndarray) -> float:
    """P(a positive outscores a negative), positives weighted, ties counting one half."""
    neg = np.sort(scores[negative])
    below = np.searchsorted(neg, scores[positive], side="left")
    ties = np.searchsorted(neg, scores[positive], side="right") - below
    return float(np.sum(weights * (below + 0.5 * ties)) / (weights.sum() * len(neg)))


def first_hit(scores: np.ndarray, candidates: np.ndarray, share: np.ndarray) -> float:
    """The community's share of the best-scoring chunk among its own and its siblings' chunks
    (ties: the mean share of the tied chunks)."""
    pool = np.flatnonzero(candidates)
    best = pool[scores[pool] == scores[pool].max()]
    return float(share[best].mean())


def stemmed_chunks(corpus: Corpus) -> list[str]:
    texts = corpus.hg.chunk_texts(set(corpus.phrases.chunk_ids))
    return [" " + " ".join(lab.stem(w) for w in lab._WORD.findall(texts[c])) + " " for c in corpus.phrases.chunk_ids]


def measure(corpus: Corpus, labels: dict[int, list[str]], keyword: KeywordIndex, stemmed: list[str]
            ) -> dict[str, Any]:
    labelled = [c for c in corpus.communities if labels.get(c.id)]
    shown = {c.id: labels[c.id][:SHOWN] for c in labelled}
    queries = [" ".join(shown[c.id]) for c in labelled]
    dense = corpus.hg.embedder.embed(queries) @ corpus.vectors.T if queries else np.zeros((0, 0))
    rows = []
    for i, community in enumerate(labelled):
        share = corpus.shares[community.id].toarray().ravel()
        siblings = [s.id for s in corpus.communities if s.parent == community.parent and s.id != community.id
                    and s.level == community.level]
        sibling_share = np.asarray(corpus.shares[siblings].sum(axis=0)).ravel() if siblings else np.zeros_like(share)
        positive, negative = share > 0, (share == 0) & (sibling_share > 0)
        keys = [" " + " ".join(lab.stem(w) for w in lab._WORD.findall(label)) + " " for label in shown[community.id]]
        covered = np.array([any(k in stemmed[r] for k in keys) for r in np.flatnonzero(positive)])
        row = {"id": community.id, "level": community.level,
               "coverage": float(np.sum(share[positive] * covered) / share[positive].sum()),
               "redundancy": _redundancy(shown, community, siblings)}
        if negative.any():
            for retriever, scores in (("bm25", keyword.scores(queries[i]).astype(float)), ("dense", dense[i])):
                row[f"auc_{retriever}"] = weighted_auc(scores, positive, negative, share[positive])
                row[f"p1_{retriever}"] = first_hit(scores, positive | negative, share)
        rows.append(row)
    return {"rows": rows, "labelled": len(labelled), "communities": len(corpus.communities)}


def _redundancy(shown: dict[int, list[str]], community: Community, siblings: list[int]) -> float:
    words = [lab.content_words(tuple(lab.stem(w) for w in lab._WORD.findall(s))) for s in shown[community.id]]
    theirs = [lab.content_words(tuple(lab.stem(w) for w in lab._WORD.findall(s)))
              for sibling in siblings for s in shown.get(sibling, [])]
    theirs = [t for t in theirs if t]
    return float(np.mean([lab.repeats(w, theirs) for w in words if w])) if any(words) else 0.0


METRICS = ("auc_bm25", "auc_dense", "p1_bm25", "p1_dense", "coverage", "redundancy")


def summary(rows: list[dict[str, Any]]) -> dict[str, float]:
    out = {}
    for metric in METRICS:
        values = [r[metric] for r in rows if metric in r]
        out[metric] = round(float(np.mean(values)), 3) if values else float("nan")
        level0 = [r[metric] for r in rows if metric in r and r["level"] == 0]
        out[f"{metric}_level0"] = round(float(np.mean(level0)), 3) if level0 else float("nan")
    return out


def paired_interval(a: list[dict[str, Any]], b: list[dict[str, Any]], metric: str, seed: int = 7) -> list[float]:
    """Bootstrap 95 % interval of mean(a − b) over the communities both measured."""
    by_id = {r["id"]: r[metric] for r in b if metric in r}
    diffs = np.array([r[metric] - by_id[r["id"]] for r in a if metric in r and r["id"] in by_id])
    if not len(diffs):
        return [float("nan")] * 3
    rng = np.random.default_rng(seed)
    means = diffs[rng.integers(0, len(diffs), size=(1000, len(diffs)))].mean(axis=1)
    return [round(float(diffs.mean()), 3), round(float(np.percentile(means, 2.5)), 3),
            round(float(np.percentile(means, 97.5)), 3)]


# --- the run -------------------------------------------------------------------------------------------------

def timed(make: Callable[[], dict[int, list[str]]]) -> tuple[dict[int, list[str]], float]:
    started = time.perf_counter()
    return make(), time.perf_counter() - started


def run_corpus(name: str, hg: HopGraph) -> dict[str, Any]:
    corpus = load(hg)
    tree, graph = hg.communities(), hg.knowledge_graph
    texts = hg.chunk_texts(set(corpus.phrases.chunk_ids))
    keyword = KeywordIndex([texts[c] for c in corpus.phrases.chunk_ids])
    stemmed = stemmed_chunks(corpus)
    methods: dict[str, tuple[dict[int, list[str]], float]] = {}
    found, parse_seconds = timed(lambda: dict(zip(sorted(texts), noun_phrases_of([texts[c] for c in sorted(texts)]),
                                                  strict=True)))  # type: ignore[arg-type,return-value]
    methods["nouns"] = timed(lambda: lab.community_labels(graph, tree, hg.chunk_texts,
                                                          chunk_phrases=lambda wanted: {c: found[c] for c in wanted}))
    assert methods["nouns"][0] == ctfidf(corpus, phrases=lab.noun_phrase_counts(found)), "one c-TF-IDF loop"
    methods["ctfidf"] = timed(lambda: lab.community_labels(graph, tree, hg.chunk_texts))
    assert methods["ctfidf"][0] == ctfidf(corpus), "the bench's c-TF-IDF loop must be the shipped one"
    methods["ctfidf-free"] = timed(lambda: ctfidf(corpus, siblings_rule=False))
    plain = lab.phrase_counts(texts, stop=lab.stopwords() - lab.REPORTING)
    methods["ctfidf-plain"] = timed(lambda: ctfidf(corpus, phrases=plain, longer_forms=False))
    nps, np_seconds = timed(lambda: noun_phrases(corpus))  # type: ignore[arg-type,return-value]
    allowed = set(nps[1])  # type: ignore[index]
    labels, seconds = timed(lambda: ctfidf(corpus, only=allowed))
    methods["ctfidf-np"] = (labels, seconds + np_seconds)
    for method, mmr in (("keybert", True), ("keybert-top", False)):
        labels, seconds = timed(lambda mmr=mmr: keybert(corpus, nps, mmr))  # type: ignore[arg-type]
        methods[method] = (labels, seconds + np_seconds)
    measured = {m: measure(corpus, labels, keyword, stemmed) for m, (labels, _) in methods.items()}
    out: dict[str, Any] = {"chunks": len(corpus.phrases.chunk_ids), "communities": len(tree),
                           "levels": tree.levels, "nouns_parse_seconds": round(parse_seconds, 2), "methods": {}}
    for method, (labels, seconds) in methods.items():
        out["methods"][method] = {**summary(measured[method]["rows"]), "seconds": round(seconds, 2),
                                  "labelled": measured[method]["labelled"], "examples": examples(hg, labels)}
    out["ctfidf_minus"] = {other: {m: paired_interval(measured["ctfidf"]["rows"], measured[other]["rows"], m)
                                   for m in METRICS} for other in methods if other != "ctfidf"}
    out["nouns_minus"] = {other: {m: paired_interval(measured["nouns"]["rows"], measured[other]["rows"], m)
                                  for m in METRICS} for other in ("ctfidf", "keybert")}
    return out


def examples(hg: HopGraph, labels: dict[int, list[str]], n: int = 6) -> list[str]:
    """The shown labels of the level-0 communities that cover the most chunks (the themes an answer leads with)."""
    from hopgraph.communities.reports import community_chunks

    graph = hg.knowledge_graph
    roots = [c for c in hg.communities().communities if c.level == 0]
    roots.sort(key=lambda c: (-len(community_chunks(graph, c)), c.id))
    return [" · ".join(labels.get(c.id, [])[:SHOWN]) for c in roots[:n]]


COLUMNS = (("auc_bm25", "AUC bm25"), ("auc_dense", "AUC dense"), ("p1_bm25", "P@1 bm25"),
           ("p1_dense", "P@1 dense"), ("coverage", "coverage"), ("redundancy", "redund."))


def print_table(results: dict[str, Any]) -> None:
    for suffix, title in (("", "all communities"), ("_level0", "level 0 (the themes an answer shows)")):
        print(f"\n{title}")
        header = f"{'corpus':<10} {'method':<12} " + " ".join(f"{h:>9}" for _, h in COLUMNS) + f" {'seconds':>8}"
        print(header)
        print("-" * len(header))
        for corpus, result in results.items():
            for method, m in result["methods"].items():
                cells = " ".join(f"{m[key + suffix]:>9.3f}" for key, _ in COLUMNS)
                print(f"{corpus:<10} {method:<12} {cells} {m['seconds']:>8.2f}")
    for method in ("ctfidf", "nouns"):
        print(f"\n{method} minus other, mean [95 % bootstrap interval] over communities:")
        for corpus, result in results.items():
            for other, diffs in result[f"{method}_minus"].items():
                cells = "  ".join(f"{m} {d[0]:+.3f} [{d[1]:+.3f}, {d[2]:+.3f}]" for m, d in diffs.items())
                print(f"  {corpus:<10} vs {other:<12} {cells}")
    for corpus, result in results.items():
        print(f"\n{corpus}: noun phrases parsed in {result['nouns_parse_seconds']:.1f} s (once; a store caches them)")
        print(f"{corpus}: the level-0 communities covering the most chunks")
        for method, m in result["methods"].items():
            print(f"  {method:<12} " + " | ".join(m["examples"]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--corpora", default="book,suppliers,hotpotqa")
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "themes.json")
    args = parser.parse_args()
    results = {}
    for name, index in corpus_paths(args.data_dir).items():
        if name in args.corpora.split(","):
            with open_corpus(name, index) as hg:
                results[name] = run_corpus(name, hg)
    print_table(results)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
