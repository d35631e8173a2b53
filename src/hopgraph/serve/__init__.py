"""The HTTP side of hopgraph: the API server and the web inspector."""
