"""Plugins: code outside the package that adds a ranker, a reader, an answer mode or a store backend.

A plugin is a distribution that declares an entry point in the group `hopgraph.plugins`; its object
is a callable taking no arguments that registers what it adds with the registries (for example
`hopgraph.retrieval.rankers.register`). The command line and `HopGraph` call `load_plugins()` once,
before they read a registry, so a plugin's names show in `--help`, in the HTTP descriptions and in
the errors that list what is known.
"""

from __future__ import annotations

import sys
from importlib import metadata

GROUP = "hopgraph.plugins"
_loaded = False


def load_plugins() -> list[str]:
    """Run every installed plugin's registration once per process; returns the names that loaded.

    A plugin that fails to import or register is reported in one line on stderr and skipped: one
    broken extension must not take the command line down with it.
    """
    global _loaded
    if _loaded:
        return []
    _loaded = True
    names = []
    for entry in metadata.entry_points(group=GROUP):
        try:
            entry.load()()
        except Exception as err:  # any failure in foreign code is reported, not raised
            print(f"hopgraph: warning: plugin {entry.name!r} ({entry.value}) failed to load: {err}",
                  file=sys.stderr)
            continue
        names.append(entry.name)
    return names
