"""The table tests' TEDS: :mod:`workbench.evaluate.structure`'s (one implementation for the tests,
``benchmarks/cpu_tables.py`` and ``benchmarks/heldout.py``), plus a builder for hand-written
truth tables and a score of 0 for a table the engine did not find.

:func:`parse_tables` reads every table (HTML ``<table>`` or Markdown pipe table) out of a
page's Markdown, in order.
"""

from __future__ import annotations

from workbench.evaluate.structure import Node
from workbench.evaluate.structure import tables as parse_tables
from workbench.evaluate.structure import teds as _teds

__all__ = ["Node", "parse_tables", "table", "teds"]


def table(rows: list[list[str | tuple[str, int, int]]]) -> Node:
    """A table tree from rows of cells: a text, or (text, rowspan, colspan)."""
    out = Node("table")
    for row in rows:
        tr = Node("tr")
        for c in row:
            text, rs, cs = (c, 1, 1) if isinstance(c, str) else c
            tr.children.append(Node("td", " ".join(text.split()), colspan=cs, rowspan=rs))
        out.children.append(tr)
    return out


def teds(pred: Node | None, truth: Node) -> float:
    """TEDS of a found table against the truth; 0.0 when none was found."""
    return 0.0 if pred is None else _teds(pred, truth)
