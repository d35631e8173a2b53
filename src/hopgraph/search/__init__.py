"""Retrieval: the in-memory search index, the ranking and expansion stages, and the methods."""
