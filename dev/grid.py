"""Dev: tune short-answer weights on one half with spans cached once."""
import json, sys, hashlib, itertools, collections, pickle, os
from hopgraph.records.retrieval import Hit, Via
from hopgraph.query.short import choose
from hopgraph.query.short.expected import expected_answer, YESNO, CHOICE, ANY
from hopgraph.query.short.spans import candidate_spans, NOUN_LABEL
from hopgraph.query.short.compare import choose_by_date
from hopgraph.eval.answers import token_f1
from hopgraph.text.nlp import load_model

def half(qid): return "ab"[int.from_bytes(hashlib.sha256(qid.encode()).digest()[:8], "big") % 2]
path = sys.argv[1]; cache = path + ".spans.pkl"
rows = json.load(open(path))
items = []
if os.path.exists(cache):
    items = pickle.load(open(cache, "rb"))
else:
    nlp = load_model()
    for r in rows:
        hits = [Hit(x["chunk_id"], 0, x["title"], x["text"], 0.0, x["found_by"], Via(**x["via"]) if x["via"] else None) for x in r["hits"]]
        items.append((r, hits, candidate_spans(hits, nlp, noun_chunks=True)))
    pickle.dump(items, open(cache, "wb"))

def run(weights, min_score, which):
    choose.WEIGHTS.update(weights); choose.MIN_SCORE = min_score
    tot = collections.Counter(); n = collections.Counter()
    for r, hits, spans in items:
        h = half(r["id"])
        if which and h != which: continue
        e = expected_answer(r["question"])
        if e.kind == YESNO: pred = "yes"
        elif e.kind == CHOICE:
            c = choose_by_date(e.options, e.words, hits); pred = c[0] if c else ""
        else:
            sp = spans if e.kind == ANY else [s for s in spans if s.label != NOUN_LABEL]
            a = choose._best(sp, e, r["question"], hits); pred = a.text if a else ""
        f = token_f1(pred, r["answer"])
        for k in ("all", e.kind): tot[k] += f; n[k] += 1
    return {k: round(tot[k] / n[k], 3) for k in n}

base = dict(choose.WEIGHTS)
print("base a", run(base, choose.MIN_SCORE, "a"), "b", run(base, choose.MIN_SCORE, "b"))
if "--grid" in sys.argv:
    best = []
    for ov, op, rk, rc, nc in itertools.product([1, 2, 4], [0, 0.6, 1.2], [0.1, 0.25, 0.5], [0, 0.4, 1.0], [-0.6, -1.5]):
        w = dict(base, overlap=ov, other_passage=op, rank=rk, recurs=rc, noun_chunk=nc)
        best.append((run(w, -99, "a")["all"], w))
    best.sort(key=lambda x: -x[0])
    for s, w in best[:5]:
        print(s, w, "b:", run(w, -99, "b"))
