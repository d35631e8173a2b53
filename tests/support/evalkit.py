"""Three HotpotQA-format records over the tiny corpus, for the evaluation tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from testkit import TINY_CORPUS

PARAGRAPHS = {doc.title: doc.text for doc in TINY_CORPUS}


def record(qid: str, question: str, answer: str, type_: str, gold: list[str], context: list[str]) -> dict[str, Any]:
    return {"_id": qid, "question": question, "answer": answer, "type": type_, "level": "easy",
            "supporting_facts": [[title, 0] for title in gold],
            "context": [[title, [PARAGRAPHS[title]]] for title in context]}


RECORDS = [
    record("q1", "Where is the director of Big Stone Gap based?", "Greenwich Village", "bridge",
           ["Big Stone Gap (film)", "Adriana Trigiani"], ["Big Stone Gap (film)", "Adriana Trigiani", "Stone Age"]),
    record("q2", "Are Donna Gigliotti and Adriana Trigiani both American?", "yes", "comparison",
           ["Donna Gigliotti", "Adriana Trigiani"], ["Donna Gigliotti", "Adriana Trigiani", "Gap Inc."]),
    record("q3", "Which retailer is based in San Francisco?", "Gap Inc.", "bridge",
           ["Gap Inc."], ["Gap Inc.", "Romantic comedy", "Greenwich Village"]),
]


def write(path: Path, content: Any) -> Path:
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return path


# An evidence-claim set over the tiny corpus (GraphRAG-Bench's format, with reference answers).
CORPUS = [{"title": doc.title, "text": doc.text} for doc in TINY_CORPUS]
# Sources chosen so that both halves hold one: half_of("Novel-10146") == "b", half_of("Novel-10762") == "a".
CLAIMS = [
    {"id": "c1", "source": "Novel-10146", "question": "Where is the director of Big Stone Gap based?",
     "type": "Complex Reasoning", "answer": "Greenwich Village",
     "evidence": ["Big Stone Gap was directed by Adriana Trigiani.",
                  "Adriana Trigiani is based in Greenwich Village."]},
    {"id": "c2", "source": "Novel-10146", "question": "Which retailer is based in San Francisco?",
     "type": "Fact Retrieval", "answer": "Gap Inc.", "evidence": ["Gap Inc. is a retailer based in San Francisco."]},
    {"id": "c3", "source": "Novel-10762", "question": "What did the Stone Age use stone for?",
     "type": "Fact Retrieval", "answer": "tools",
     "evidence": ["Stone was widely used to make tools.", "The Stone Age ended with the invention of the harp."]},
]
