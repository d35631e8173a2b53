"""`hopgraph mcp`: the store's ask / paths / entities as MCP tools over stdio (integrations/mcp_server.py)."""

from __future__ import annotations

import typer

from hopgraph.cli.options import StoreOpt, open_hopgraph


# The help is rich markup: `\\[` keeps "[mcp]" from being read as a style tag and dropped.
def mcp(store: StoreOpt = None) -> None:
    """Serve the store to an MCP client over stdin/stdout (the client launches this command); needs
    `pip install 'hopgraph\\[mcp]'`."""
    # Imported here: without the extra every other command still runs, and this one says what to install.
    from hopgraph.integrations.mcp_server import serve_stdio

    with open_hopgraph(store, quiet=True) as hg:
        serve_stdio(hg)


def register(app: typer.Typer) -> None:
    app.command()(mcp)
