"""Facts from text: LLM extraction, no-LLM concept extraction, and structured triple import."""
