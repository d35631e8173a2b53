"""One module per LLM task: the prompt text and the typed (pydantic) reply it must validate against."""

from typing import Any


def question_over_reports(system: str, question: str, reports: list[str]) -> list[dict[str, Any]]:
    """The messages of a task that reads community reports for a question (map, rating)."""
    return [{"role": "system", "content": system},
            {"role": "user", "content": f"Question: {question}\n\nReports:\n\n" + "\n\n".join(reports)}]
