"""The evaluation tables as plain text, drawn by rich: no colour and no borders, so a table reads
the same in a terminal, a log file and a pasted note."""

from __future__ import annotations

from collections.abc import Sequence
from io import StringIO

from rich.console import Console
from rich.table import Table

WIDE = 10_000  # never wrap a cell: a table wider than the terminal scrolls rather than breaks a number


def text_table(title: str, header: Sequence[str], rows: Sequence[Sequence[str]], notes: Sequence[str] = ()) -> str:
    """`title`, then the header and one line per row (the first column left, the rest right-aligned),
    then `notes`, one a line."""
    table = Table(box=None, pad_edge=False, show_edge=False, header_style="", highlight=False)
    for i, name in enumerate(header):
        table.add_column(name, justify="left" if i == 0 else "right", no_wrap=True)
    for row in rows:
        table.add_row(*map(str, row))
    out = StringIO()
    Console(file=out, width=WIDE, color_system=None, force_terminal=False, highlight=False).print(table)
    lines = [line.rstrip() for line in out.getvalue().splitlines() if line.strip()]
    return "\n".join([title, *lines, *notes])
