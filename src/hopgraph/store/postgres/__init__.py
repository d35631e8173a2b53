"""The shared PostgreSQL + pgvector backend of the store protocols (store/base.py): `pip install 'hopgraph[postgres]'`."""
