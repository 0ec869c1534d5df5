"""The cells of a table: :class:`Table` (what :mod:`.render` writes) and the rows of
fragments placed in columns that :mod:`.grid` and :mod:`.multiline` build it from."""

from __future__ import annotations

from dataclasses import dataclass, field

from workbench.engines.cpu.boxes import Box, median
from workbench.engines.cpu.tables import fragments as frag


@dataclass
class Cell:
    text: str
    row: int
    col: int
    rowspan: int = 1
    colspan: int = 1


@dataclass
class Table:
    """Cells of a grid ``n_rows`` × ``n_cols``; a spanned position belongs to the cell that
    spans it and has no cell of its own; positions no cell covers are empty."""

    n_rows: int
    n_cols: int
    header_rows: int
    cells: list[Cell] = field(default_factory=list)

    @property
    def spanning(self) -> bool:
        return any(c.rowspan > 1 or c.colspan > 1 for c in self.cells)

    def rows(self) -> list[list[str]]:
        """Plain rows × columns of text; a spanning cell's text at its first position."""
        out = [[""] * self.n_cols for _ in range(self.n_rows)]
        for c in self.cells:
            out[c.row][c.col] = c.text
        return out


@dataclass
class Slot:
    text: str
    c0: int
    c1: int
    box: Box


@dataclass
class Row:
    slots: dict[int, Slot]  # by first column
    top: float
    bottom: float

    def cols(self) -> set[int]:
        return {k for s in self.slots.values() for k in range(s.c0, s.c1 + 1)}

    def numeric(self) -> bool:
        return any(frag.is_numeric(s.text) for s in self.slots.values())

    def height(self) -> float:
        return median([s.box[3] - s.box[1] for s in self.slots.values()], 1.0)


def union(a: Box, b: Box) -> Box:
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))


def join_rows(a: Row, b: Row) -> Row:
    """``b`` (below ``a``) merged into ``a``: texts of a shared first column joined."""
    slots = {k: Slot(s.text, s.c0, s.c1, s.box) for k, s in a.slots.items()}
    for k, s in b.slots.items():
        home = next((t for t in slots.values() if t.c0 <= k <= t.c1), None)
        if home is None:
            slots[k] = Slot(s.text, s.c0, s.c1, s.box)
        else:
            home.text, home.box = f"{home.text} {s.text}", union(home.box, s.box)
    return Row(slots, min(a.top, b.top), max(a.bottom, b.bottom))
