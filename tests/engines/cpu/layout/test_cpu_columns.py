"""Multi-column pages read column by column (issue 23, item 5): the real two-column scan
(tests/data/scan_two_columns.pdf) and the column gutter rules on synthetic lines."""

from __future__ import annotations

from pathlib import Path

import pypdfium2 as pdfium
import pytest

from workbench.engines.cpu.boxes import Gutter, LayoutBox, Line, Word
from workbench.engines.cpu.compose import compose
from workbench.engines.cpu.layout import gutters
from workbench.markdown.assemble import assemble_page

DATA = Path(__file__).resolve().parents[3] / "data"
# phrases of the scan's left column, top to bottom, then of its right column (robust to the
# OCR's usual slips: no "torn"/"tom", no hyphenated breaks)
LEFT = (
    "with a plain face",
    "there were a king with a large jaw",
    "things in general were settled for ever",
    "Even the Cock-lane ghost",
    "round dozen of years",
    "chickens of the Cock-lane brood",
    "achievements as sentencing a youth",
)
RIGHT = (
    "hands cut off",
    "procession of monks",
    "bespattered with rustic mire",  # a line Tesseract missed until the page was deskewed
    "pigs, and roosted in by poultry",
    "tumbrils of the Revolution",
    "tradesman in the light",
)


def _words(text: str, x: float, y: float, h: float = 40.0) -> list[Word]:
    out, pos = [], x
    for t in text.split():
        out.append(Word(t, (pos, y, pos + 18 * len(t), y + h), 95.0))
        pos += 18 * len(t) + 14
    return out


def _line(words: list[Word]) -> Line:
    x0, x1 = words[0].box[0], words[-1].box[2]
    box = (x0, words[0].box[1], x1, words[0].box[3])
    return Line(" ".join(w.text for w in words), box, 95.0, "tesseract", words)


PROSE = "the quick brown fox jumps over"


def _columns(bridged: set[int]) -> list[Line]:
    """Two columns of prose, 12 rows; the rows in ``bridged`` read as one line across."""
    out = []
    for k in range(12):
        y = 100 + 50 * k
        left, right = _words(PROSE, 50, y), _words(PROSE, 900, y)
        out += [_line(left + right)] if k in bridged else [_line(left), _line(right)]
    return out


def test_a_line_bridging_two_columns_is_cut_at_the_gutter():
    lines = _columns({0, 5})
    found = gutters.find(lines)
    assert found and all(588 < g.x0 < g.x1 < 900 for g in found)  # between the columns
    cut = gutters.split_lines(lines, found)
    assert len(cut) == 24
    assert all(ln.box[2] < 800 or ln.box[0] > 800 for ln in cut)


def test_a_box_over_both_columns_is_cut_and_the_left_column_reads_first():
    lines = _columns({0, 5})
    lines[-1].text += " LASTLEFT"  # a marker on the right column's last line
    regions = compose(1600, 800, [LayoutBox("text", (40, 90, 1560, 700), 0.9)], lines)
    md = assemble_page(regions)
    assert len(regions) == 2
    boxes = [r.bbox for r in regions if r.bbox is not None]
    assert len(boxes) == 2 and all(b.x1 < 0.55 * 1600 or b.x0 > 0.45 * 1600 for b in boxes)
    assert md.index("LASTLEFT") > md.index("\n\n")
    off = compose(
        1600, 800, [LayoutBox("text", (40, 90, 1560, 700), 0.9)], lines, off=["column_gutters"]
    )
    assert len(off) == 1  # the pass switched off: one block read across both columns


def test_a_table_box_over_two_columns_of_prose_is_their_text():
    # the false table of issue 35 (i1040nr p7): level lines of two prose columns taken for rows
    lines = _columns({0, 5})
    lines[-1].text += " LASTLEFT"
    table = [LayoutBox("table", (40, 90, 1560, 700), 0.9)]
    regions = compose(1600, 800, table, lines)
    md = assemble_page(regions)
    assert "|---" not in md and "<table>" not in md
    assert [r.label.value for r in regions] == ["text", "text"]
    assert md.index("LASTLEFT") > md.index("\n\n")  # the left column, then the right
    off = compose(1600, 800, table, lines, off=["table_gutters"])
    assert [r.label.value for r in off] == ["table"]


def _unruled(box: tuple[float, float, float, float]) -> bool:
    return False


def test_a_table_of_cells_over_a_gutter_stays_whole():
    # a gutter the prose above and below found, and a table of figures across it: no part of
    # the table is prose, so it is not cut; a prose part beside the figures is cut off as text
    found = [Gutter(600, 0, 880, 1000)]
    rows = [(f"{1990 + k} 1,{k}00", f"{k}.5 {k}.7") for k in range(10)]
    lines = [_line(_words(a, 50, 100 + 50 * k)) for k, (a, _) in enumerate(rows)]
    lines += [_line(_words(b, 900, 100 + 50 * k)) for k, (_, b) in enumerate(rows)]
    box = LayoutBox("table", (40, 90, 1560, 600), 0.9)
    assert gutters.split_tables([box], lines, found, _unruled) == [box]
    prose = [_line(_words(PROSE, 50, 100 + 50 * k)) for k in range(10)] + lines[10:]
    cut = gutters.split_tables([box], prose, found, _unruled)
    assert [b.native for b in cut] == ["text", "table"]
    # capitalized labels of three words and more are cells, not sentences
    labels = [_line(_words("Net Operating Revenue Total", 50, 100 + 50 * k)) for k in range(10)]
    assert gutters.split_tables([box], labels + lines[10:], found, _unruled) == [box]
    # the PDF's rules frame it as one grid: a table, whatever its cells read like
    assert gutters.split_tables([box], prose, found, lambda b: b == box.box) == [box]


@pytest.mark.parametrize(
    "cells",
    [
        ["Total", "1,234", "5,678"],  # a table: short cells, numbers
        ["Introduction to the subject", "3"],  # a table of contents: page numbers alone
    ],
)
def test_tables_and_contents_have_no_gutter(cells):
    lines = []
    for k in range(10):
        words: list[Word] = []
        x = 50.0
        for c in cells:
            words += _words(c, x, 100 + 50 * k)
            x += 600
        lines.append(_line(words))
    assert gutters.find(lines) == []


def test_a_heading_over_both_columns_is_not_cut():
    title = _line(_words("A heading that runs across the whole page width", 300, 40))
    lines = [title, *_columns(set())]
    found = gutters.find(lines)
    assert gutters.split_lines([title], found) == [title]


@pytest.mark.slow
def test_two_column_scan_reads_column_by_column(engine):
    image = pdfium.PdfDocument(DATA / "scan_two_columns.pdf")[0].render(scale=200 / 72)
    regions, _ = engine.configured(text_layer="never").analyze(image.to_pil())
    md = " ".join(assemble_page(regions).split())
    at = [md.find(p) for p in LEFT + RIGHT]
    assert -1 not in at, [p for p, i in zip(LEFT + RIGHT, at, strict=True) if i < 0]
    assert max(at[: len(LEFT)]) < min(at[len(LEFT) :])  # every left sentence first
    w = image.width
    for r in regions:  # no block spans the gutter (the page's middle tenth)
        assert r.bbox is not None
        assert r.bbox.x1 < 0.55 * w or r.bbox.x0 > 0.45 * w, (r.text[:60], r.bbox)


# the three-column page (pip's UX guidance, rasterised): phrases of each column, top to bottom
THREE = (
    ("This section of the documentation", "At a high level, the UX research"),
    ("See also", "There are many ways to engage users"),
    ("in open source projects", "Surveys are great for collecting broad"),
)
COLUMN_SPANS = ((140, 620), (610, 1100), (1080, 1560))  # px at 200 DPI, gutters ~20 px


@pytest.mark.slow
def test_three_column_scan_reads_column_by_column_and_is_no_table(engine):
    image = pdfium.PdfDocument(DATA / "scan_three_columns.pdf")[0].render(scale=200 / 72)
    regions, _ = engine.configured(text_layer="never").analyze(image.to_pil().convert("RGB"))
    md = " ".join(assemble_page(regions).split())
    assert "|---" not in md and "<table>" not in md
    at = [[md.find(p) for p in col] for col in THREE]
    assert all(i >= 0 for col in at for i in col), at
    assert at[0][1] < at[1][0] and at[1][1] < at[2][0], at  # column after column
    for r in regions:  # each block inside one column
        assert r.bbox is not None
        assert any(lo <= r.bbox.x0 and r.bbox.x1 <= hi for lo, hi in COLUMN_SPANS), r.text[:60]
