"""Touching lines of a large hand (workbench/engines/cpu/signatures/rules.py: ``sheet_lines``,
``split_lines``, the closing's ``name`` length), each on ink built for the case; the real
pages (Tracy 1892) are in test_cpu_signatures_letters.py."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

from workbench.engines.cpu.boxes import Box
from workbench.engines.cpu.signatures import rules
from workbench.engines.cpu.signatures.closing import NAME_MERGED, closing_signature

LINE = 40.0
Shape = tuple[str, tuple[float, ...]]


def _ink(draw: list[Shape], size: tuple[int, int] = (1100, 1000)) -> np.ndarray:
    im = Image.new("L", size, 0)
    d = ImageDraw.Draw(im)
    for kind, xy in draw:
        if kind == "rect":
            d.rectangle(xy, fill=255)
        else:
            d.line(xy, fill=255, width=3)
    return np.asarray(im).copy()


def _words(y: float, x0: float = 100, x1: float = 1000, h: float = LINE) -> list[Shape]:
    """A line of handwriting from x0 to x1: words of 200 px, each a zigzag of slanted strokes
    ``h`` tall (no straight run, as a pen writes), 40 px apart."""
    out: list[Shape] = []
    x = x0
    while x + 200 <= x1:
        pts = [(x + 6 * i, y + (h if i % 2 else 0)) for i in range(34)]
        out.append(("line", tuple(v for pt in pts for v in pt)))
        x += 240
    return out


def test_sheet_lines_removes_a_leaning_edge_and_keeps_pen_strokes():
    edge = ("line", (40.0, 50.0, 52.0, 950.0))  # a sheet's edge, 12 px over 900 rows
    stroke = ("line", (500.0, 300.0, 560.0, 500.0))  # a long pen stroke, slanted as a hand writes
    ink = _ink([edge, stroke, *_words(600)])
    out = rules.sheet_lines(ink, LINE)
    assert out[100:900, 30:62].sum() < 0.05 * ink[100:900, 30:62].sum()  # the edge is gone
    assert out[300:500, 490:570].sum() > 0.8 * ink[300:500, 490:570].sum()  # the stroke stays
    assert out[600:640, 100:1000].sum() > 0.8 * ink[600:640, 100:1000].sum()  # so does the text


def _touching(n: int) -> list[Shape]:
    """``n`` lines 70 px apart, each joined to the next by a descender (x=150)."""
    out = []
    for i in range(n):
        y = 100 + 70 * i
        out += _words(y)
        if i < n - 1:
            out.append(("line", (150.0, y + LINE, 150.0, y + 70)))
    return out


def test_split_lines_cuts_touching_lines_into_lines():
    ink = _ink(_touching(5))
    blob: Box = (100.0, 100.0, 1000.0, 100 + 70 * 4 + LINE)
    pieces = rules.split_lines(ink, [blob], LINE)
    rows = sorted({round(p[1] / 70) for p in pieces})
    assert len(rows) == 5, pieces  # one row of pieces per written line
    assert all(p[3] - p[1] < 2 * LINE for p in pieces), pieces  # a line and its descenders


def test_split_lines_keeps_a_blob_lower_than_three_lines():
    blob: Box = (100.0, 100.0, 1000.0, 100 + 2.5 * LINE)
    assert rules.split_lines(_ink(_words(100)), [blob], LINE) == [blob]


def test_split_lines_finds_a_last_line_whose_strokes_reach_the_line_above():
    """No row valley between the last two lines (strokes every 60 px join them, many hang
    from the line above to just short of the bottom): the last line is the run of columns
    whose lowest ink lies within a line height of the bottom, from the valley above it."""
    above = _words(100, 100, 1000)
    name = _words(200, 520, 980, h=1.8 * LINE)  # a name written large
    joins = [("line", (float(x), 100 + LINE, float(x) + 4, 200.0)) for x in range(530, 960, 60)]
    hang = [("line", (float(x), 100 + LINE, float(x), 215.0)) for x in range(110, 480, 10)]
    ink = _ink(above + name + joins + hang)
    blob: Box = (100.0, 100.0, 1000.0, 200 + 1.8 * LINE)
    pieces = rules.split_lines(ink, [blob], LINE)
    last = max(pieces, key=lambda p: p[3])
    assert last[0] >= 510 and last[2] <= 990, pieces  # the name's columns, not the hanging ones
    assert last[1] >= 100 + LINE / 2, pieces  # ...below the line above


def test_closing_as_long_as_three_lines_only_where_lines_touch():
    body: list[Box] = []
    for i in range(6):
        y = 100 + 70 * i
        body += [(100, y, 380, y + LINE), (420, y, 700, y + LINE), (740, y, 1000, y + LINE)]
    name = (560.0, 600.0, 700.0, 670.0)  # "B. F. Tracy": 3.5 lines long
    assert closing_signature([*body, name], LINE) is None
    assert closing_signature([*body, name], LINE, NAME_MERGED) == name


def test_closing_joins_the_words_of_a_name_written_apart():
    body = [(100.0, 100 + 70.0 * i, 1000.0, 140 + 70.0 * i) for i in range(6)]
    first, last = (400.0, 600.0, 600.0, 670.0), (670.0, 605.0, 900.0, 665.0)  # 1.75 lines apart
    assert closing_signature([*body, first, last], LINE) == (400.0, 600.0, 900.0, 670.0)


def test_closing_does_not_join_a_word_far_beside_the_name():
    body = [(100.0, 100 + 70.0 * i, 1000.0, 140 + 70.0 * i) for i in range(6)]
    yrs, name = (300.0, 610.0, 400.0, 650.0), (520.0, 600.0, 900.0, 670.0)  # 3 lines apart
    assert closing_signature([*body, yrs, name], LINE) == name
