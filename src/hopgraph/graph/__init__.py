"""Corpus-level graph algorithms: communities (Leiden), Personalized PageRank."""
