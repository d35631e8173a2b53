"""hopgraph: GraphRAG that answers multi-hop questions from one SQLite file, no LLM required."""

from importlib import metadata

from hopgraph.engine import HopGraph
from hopgraph.query.question import AskLimits
from hopgraph.records.documents import Document
from hopgraph.records.retrieval import Budget, Hit, Retrieval

__all__ = ["AskLimits", "Budget", "Document", "Hit", "HopGraph", "Retrieval"]

try:  # the installed distribution's version: one number, pyproject.toml's (and the CHANGELOG's)
    __version__ = metadata.version("hopgraph")
except metadata.PackageNotFoundError:  # run from a source tree that was never installed
    __version__ = "0+unknown"
