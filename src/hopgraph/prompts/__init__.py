"""One module per LLM task: the prompt text and the typed (pydantic) reply it must validate against."""
