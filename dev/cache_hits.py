"""Dev only: retrieve auto top-5 hits for every question of a set once and cache them as JSON."""
import json, sys, hashlib
from dataclasses import asdict
from pathlib import Path
from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.eval.retrieval import build_index, load_eval_set

data, out = Path(sys.argv[1]), Path(sys.argv[2])
settings = Settings()
qa = load_eval_set(data, None, None, None, settings)
rows = []
with HopGraph(qa.store, settings, quiet=True) as hg:
    build_index(hg, qa.docs)
    for q in qa.questions:
        r = hg.search(q.text, method="auto")
        rows.append({"id": q.id, "question": q.text, "answer": q.answer, "type": q.type,
                     "hits": [{"chunk_id": h.chunk_id, "title": h.title, "text": h.text, "found_by": str(h.found_by),
                               "via": asdict(h.via) if h.via else None} for h in r.hits]})
out.write_text(json.dumps(rows))
print(len(rows))
