"""Row labels left of a ruled table are its first column (issue 35,
:mod:`workbench.engines.cpu.tables.stubs`): a county's primary return
(``ruled_turned_heads.pdf``, camelot's vertical_header page) rules its figures only, and each
township's name stands left of its ruled row; the table was read without its townships, their
names a paragraph beside it ("Alcona Caledonia Curtis …"). Units: what is and is not a
column of row labels."""

from __future__ import annotations

from pathlib import Path

import pypdfium2 as pdfium
import pytest

from workbench.documents.textlayer import extract_pdf
from workbench.engines.base import PageRequest
from workbench.engines.cpu.boxes import Line
from workbench.engines.cpu.page import Grid
from workbench.engines.cpu.tables import stubs
from workbench.schema import Label

HEADS = Path(__file__).resolve().parents[3] / "data" / "ruled_turned_heads.pdf"
LINE_H = 20.0


def _grid(rows: int, top: float = 100.0, h: float = 30.0) -> Grid:
    """A ruled grid of ``rows`` rows of ``h`` and three columns, from x 300 to 600."""
    return Grid(
        tuple(
            (300.0 + 100 * c, top + h * r, 400.0 + 100 * c, top + h * (r + 1))
            for r in range(rows)
            for c in range(3)
        )
    )


def _line(text: str, x0: float, y0: float, x1: float | None = None) -> Line:
    return Line(text, (x0, y0, x1 or x0 + 10 * len(text), y0 + LINE_H), 100.0, "text_layer")


def _body(grid: Grid) -> list[Line]:
    return [_line("12", c[0] + 5, c[1] + 5) for c in grid.cells]


def test_a_label_left_of_each_row_is_the_first_column():
    grid = _grid(4)
    names = ["Alcona", "Curtis", "Hawes", "Mikado"]
    labels = [_line(name, 200, 105 + 30 * r) for r, name in enumerate(names)]
    found = stubs.stub_column(grid, _body(grid), [labels], LINE_H)
    assert found is not None
    wider, taken = found
    assert taken == [0]
    assert wider.box[0] < 200 and len(wider.cells) == len(grid.cells) + 4
    for ln in labels:  # each in a new cell of its own row
        assert any(c[0] < 200 and c[1] <= ln.box[1] and ln.box[3] <= c[3] for c in wider.cells)


def test_a_paragraph_beside_a_table_is_no_column_of_labels():
    grid = _grid(6)
    prose = [
        _line("text of a paragraph", 50, 100 + 24 * k, 290) for k in range(7)
    ]  # lines cross rows
    assert stubs.stub_column(grid, _body(grid), [prose], LINE_H) is None
    above = [_line("Alcona", 200, 105 + 30 * r) for r in range(4)] + [_line("Notes", 200, 40)]
    assert stubs.stub_column(grid, _body(grid), [stubs.beside(grid, above)], LINE_H) is not None
    assert stubs.stub_column(grid, _body(grid), [above], LINE_H) is None  # a line above the grid


def test_labels_far_from_the_grid_or_too_few_are_not_its_column():
    grid = _grid(6)
    far = [_line("Alcona", 170, 105 + 30 * r) for r in range(6)]  # ends 3.5 line heights away
    assert stubs.stub_column(grid, _body(grid), [far], LINE_H) is None
    two = [_line("Alcona", 200, 105 + 30 * r) for r in range(2)]
    assert stubs.stub_column(grid, _body(grid), [two], LINE_H) is None
    three = [_line("Alcona", 200, 105 + 30 * r) for r in range(3)]  # 3 of 6 rows: half
    assert stubs.stub_column(grid, _body(grid), [three], LINE_H) is not None


@pytest.mark.slow
def test_engine_reads_each_township_at_the_head_of_its_row(engine):
    image = pdfium.PdfDocument(HEADS)[0].render(scale=200 / 72).to_pil().convert("RGB")
    req = PageRequest(key=HEADS.name, image=image, text_layer=extract_pdf(HEADS, 1))
    [now, before] = [next(iter(e.run([req]))) for e in (engine, engine.without("row_labels"))]
    tables = [r.text for r in now.regions or [] if r.label is Label.TABLE]
    assert len(tables) == 1
    for row in ("| Alcona | 963 | 439 | 55 |", "| City Harrisville | 389 | 171 | 16 |"):
        assert row in tables[0]
    text, old = ("\n".join(r.text for r in out.regions or []) for out in (now, before))
    assert "Alcona Caledonia" not in text  # no paragraph of names beside the table
    assert "| Alcona | 963 |" not in old and "Alcona Caledonia" in old
