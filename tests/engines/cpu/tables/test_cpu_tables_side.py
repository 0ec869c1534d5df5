"""Tables set side by side are two tables, read left then right (issue 23), and a text box the
layout model drew over a column of a table's cells does not take them out of the table.

``tables_side_by_side.pdf``: two borderless tables whose rows are not level (the right one
starts half a row lower), so the page's rows alternate left and right; they were one
six-column table with every other row empty on one side, the left one's header and first
rows a paragraph. ``receipt_grocery_layer.pdf``: the model's text box over "Date / Time /
Register" inside the receipt's table sent those keys under the table as a paragraph, their
cells left empty. The rule on synthetic lines: two tables with level rows under one model
box; a label column beside number columns is one table.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.documents import open_document
from workbench.engines.cpu.boxes import LayoutBox, Line, Word
from workbench.engines.cpu.tables.boxes import inner_text
from workbench.engines.cpu.tables.side import side_by_side
from workbench.models.registry import CPU_SPEC
from workbench.pipeline.process import process_document
from workbench.schema import Label

DATA = Path(__file__).resolve().parents[3] / "data"


def _result(engine, name: str):  # type: ignore[no-untyped-def]
    doc = open_document(name, (DATA / name).read_bytes())
    [item] = list(process_document(engine, CPU_SPEC, doc, [1], workers=0))
    assert item.result.error is None, item.result.error
    return item.result


@pytest.mark.slow
def test_two_tables_side_by_side_are_two_tables_left_then_right(engine):
    result = _result(engine, "tables_side_by_side.pdf")
    tables = [r.text for r in result.regions if r.label is Label.TABLE]
    assert len(tables) == 2, result.markdown
    left, right = tables
    head = "| Lot | Weight | Price |"
    assert left.startswith(head) and right.startswith(head)
    assert [f"| A{i} |" in left for i in range(1, 13)] == [True] * 12
    assert [f"| B{i} |" in right for i in range(1, 8)] == [True] * 7
    assert "| A1 | 12.5 | 4.10 |" in left and "| B7 | 13.0 | 4.27 |" in right
    assert "B" not in left and "A" not in right.replace("Lot | Weight", "")


@pytest.mark.slow
def test_text_box_over_table_cells_leaves_them_in_the_table(engine):
    md = _result(engine, "receipt_grocery_layer.pdf").markdown
    for key, value in (("Date", "03/14/2025"), ("Time", "17:42"), ("Register", "04")):
        assert f"| {key} | {value} |" in md, md
        assert md.count(key) == 1, md


def _row(y: float, cells: list[tuple[str, float]], h: float = 30.0) -> list[Line]:
    """One line a cell (the text layer's way with tabbed figures is one line a run)."""
    return [
        Line(t, (x, y, x + 15 * len(t), y + h), 99.0, "text_layer",
             [Word(t, (x, y, x + 15 * len(t), y + h), 99.0)])
        for t, x in cells
    ]  # fmt: skip


def test_two_tables_under_one_box_with_level_rows_are_cut():
    lines: list[Line] = []
    for i in range(10):
        y = 100 + 40 * i
        lines += _row(y, [(str(i + 1), 100), (str(100 + i), 200), (str(200 + i), 300)])
        if i < 7:
            lines += _row(y, [(str(i + 20), 600), (str(300 + i), 700), (str(400 + i), 800)])
    box = LayoutBox("table", (90, 90, 860, 520), 0.6)
    out = side_by_side([box], lines)
    assert len(out) == 2
    assert out[0].box[2] < 600 <= out[1].box[0]


def test_label_column_beside_figures_is_one_table():
    lines: list[Line] = []
    for i in range(8):
        y = 100 + 40 * i
        lines += _row(y, [(f"Item {i}", 100)])
        lines += _row(y, [("12.5", 600), ("13.1", 700), ("14.2", 800)])
    box = LayoutBox("table", (90, 90, 880, 440), 0.6)
    assert side_by_side([box], lines) == [box]


def test_text_box_over_prose_inside_a_table_box_stays():
    """A caption-like paragraph the model boxed inside a too-tall table box shares no row with
    the table's cells: it stays a text box."""
    lines = _row(100, [("a", 100), ("1", 600)]) + _row(140, [("b", 100), ("2", 600)])
    lines += [Line("A sentence under the table.", (100, 300, 700, 330), 99.0, "text_layer")]
    table = LayoutBox("table", (90, 90, 700, 340), 0.6)
    text = LayoutBox("text", (95, 295, 705, 335), 0.8)
    assert inner_text([table, text], lines) == [table, text]
    cells = LayoutBox("text", (95, 95, 200, 175), 0.8)  # over the first column's cells
    assert inner_text([table, cells], lines) == [table]
