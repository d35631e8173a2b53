"""Dev: score short answers on cached hits, by half and type."""
import json, sys, hashlib, time, collections
from types import SimpleNamespace
from hopgraph.records.retrieval import Hit, Via
from hopgraph.query.short import short_answer
from hopgraph.query.short.expected import expected_answer
from hopgraph.eval.answers import exact_match, token_f1
from hopgraph.text.nlp import load_model

def half(qid): return "ab"[int.from_bytes(hashlib.sha256(qid.encode()).digest()[:8], "big") % 2]
nlp = load_model()
rows = json.load(open(sys.argv[1]))
want = sys.argv[2] if len(sys.argv) > 2 else None
stats = collections.defaultdict(lambda: [0, 0.0, 0.0, 0])
show = "-v" in sys.argv
times = []
for r in rows:
    h = half(r["id"])
    hits = [Hit(x["chunk_id"], 0, x["title"], x["text"], 0.0, x["found_by"], Via(**x["via"]) if x["via"] else None) for x in r["hits"]]
    t = time.perf_counter(); a = short_answer(r["question"], hits, nlp); times.append(time.perf_counter() - t)
    pred = a.text if a else ""
    f1, em = token_f1(pred, r["answer"]), exact_match(pred, r["answer"])
    kind = expected_answer(r["question"]).kind
    for key in [(h, "all"), (h, r["type"]), (h, "kind:" + kind)]:
        s = stats[key]; s[0] += 1; s[1] += f1; s[2] += em; s[3] += a is not None
    if show and h == (want or "a") and f1 < 0.5:
        print(f"{r['type'][:6]} {kind[:6]} | {r['question'][:90]} | gold={r['answer']!r} pred={pred!r}")
for key in sorted(stats):
    n, f1, em, ans = stats[key]
    print(f"{key[0]} {key[1]:28} n={n:4} F1={f1/n:.3f} EM={em/n:.3f} answered={ans/n:.2f}")
times.sort(); print("p50 ms", round(1000*times[len(times)//2], 1), "p95", round(1000*times[int(len(times)*.95)], 1))
