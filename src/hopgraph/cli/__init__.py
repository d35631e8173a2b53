"""The `hopgraph` command line (app.py), its commands by group, and how results are rendered."""
