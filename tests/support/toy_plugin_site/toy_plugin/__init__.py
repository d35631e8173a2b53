"""A plugin that lives outside hopgraph: tests put its folder on PYTHONPATH, and its dist-info
beside it makes `importlib.metadata` see its entry points, as if it were pip-installed."""
