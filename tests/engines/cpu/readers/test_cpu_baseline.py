"""Text set on its side (issue 35): the layer's words of a turned line are one line, in the
layer's order, never scripts; on real pages: an arXiv-style stamp up the margin of
``headings_pdftex.pdf`` and the candidates' names up the column heads of a county's primary
return (``ruled_turned_heads.pdf``, camelot's vertical_header page), whose table reads them
as cells; a drop cap ("T" over four lines) is tall but not turned."""

from __future__ import annotations

from pathlib import Path

from workbench.documents.textlayer import extract_pdf
from workbench.engines.cpu.readers.baseline import stacked, upright
from workbench.engines.cpu.readers.pdftext import lines_from_layer
from workbench.engines.cpu.tables import ruled
from workbench.schema import TextWord

DATA = Path(__file__).resolve().parents[3] / "data"
W, H = 1700, 2200


def _lines(name: str):  # type: ignore[no-untyped-def]
    layer = extract_pdf(DATA / name, 1)
    assert layer is not None
    return layer, lines_from_layer(layer, W, H)


def test_a_stamp_up_the_margin_is_one_line_in_its_order():
    layer, lines = _lines("headings_pdftex.pdf")
    assert [w.text for w in layer.words if "u" in w.style][:2] == ["arXiv:2601.01234v2", "[cs.DL]"]
    stamp = [ln for ln in lines if ln.text.startswith("arXiv")]
    assert [ln.text for ln in stamp] == ["arXiv:2601.01234v2 [cs.DL] 14 Jan 2026"]


def test_turned_column_heads_are_lines_and_cells_in_reading_order():
    layer, lines = _lines("ruled_turned_heads.pdf")
    texts = [ln.text for ln in lines]
    for head in ("Number of Registered voters", "Poll Book Totals", "Melissa A. Cordes"):
        assert head in texts  # not "voters Registered of Number", not "Number_(of)^(…)"
    grid = ruled.grids(layer.edges, *layer.scale(W, H))[0]
    table, _, _ = ruled.grid_table(grid, lines)
    rows = table.rows()
    heads = next(r for r in rows if "Poll Book Totals" in r)
    assert heads[:3] == ["Number of Registered voters", "Poll Book Totals", "Brian Calley"]
    assert not any(all(c == "" for c in r) for r in rows)  # double rules make no empty row


def test_a_drop_cap_is_not_turned():
    drop = TextWord("This", (164.6, 290.6, 212.9, 371.6), 47.6)  # labor.pdf's opening "This"
    assert not upright(drop, drop.box)
    turned = TextWord("Registered", (94, 167, 105, 209), 11.0, style="u")
    assert upright(turned, turned.box)
    assert stacked((94, 211, 105, 219), turned.box, 11.0)  # "of", then "Registered" above it
    assert not stacked((94, 211, 105, 219), (130, 167, 141, 209), 11.0)  # the next column
