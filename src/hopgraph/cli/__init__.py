"""The `hopgraph` command line (app.py), its commands by group, and how results are rendered."""

from hopgraph.plugins import load_plugins

# Before any command module is imported: their help texts and choices read the registries, which
# installed plugins extend.
load_plugins()
