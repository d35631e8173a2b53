"""hopgraph: GraphRAG that answers multi-hop questions from one SQLite file, no LLM required."""

from hopgraph.engine import HopGraph
from hopgraph.records.documents import Document
from hopgraph.records.retrieval import Budget, Hit, Retrieval

__all__ = ["Budget", "Document", "Hit", "HopGraph", "Retrieval"]
__version__ = "0.1.0"
