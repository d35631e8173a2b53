"""The shared PostgreSQL + pgvector backend of the store protocols (store/base.py).

Installed by `pip install 'hopgraph[postgres]'`."""
