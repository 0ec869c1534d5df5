"""Column gutters: the white channel between two columns of prose, found on the page's own
words, and the lines and layout boxes that bridge it split apart.

A reader can join two columns' lines into one: Tesseract's line finder on a skewed page, or
RapidOCR's reading of a line Tesseract missed joined to "its row" in the other column. Such a
line belongs to neither column's box, so its two halves are read together, and the columns'
sentences interleave. A layout box drawn over both columns reads them line by line across.

A *gutter* is a gap between two consecutive words of a line, at least ``GUTTER_GAP`` line
heights wide (a justified line's widest word gap stays under it), whose middle half no word of
another line crosses within ``WINDOW`` line heights above and below (``CROSSING`` of those
lines may: a heading over both columns), with prose on both sides: at least ``SIDE_LINES``
lines of the window hold ``SIDE_WORDS`` words of two letters or more on each side. A table's
columns are short cells (one or two words, figures, dot leaders) and a table of contents' page
numbers stand alone: no gutter.

:func:`split_lines` cuts each line at its gutter gaps (each part keeps its words, reader and
confidence); :func:`split_boxes` cuts a prose layout box (text, title, reference) that spans a
gutter with lines on both sides and none across it, at the gutter's middle.

A *table* box drawn over two columns of prose (the layout model took three columns' lines, set
level beside a small table, for one table: the false table of issue 35) is cut the same way
when a part beside the gutter is prose (``PROSE_SHARE`` of its lines hold ``SIDE_WORDS``
words, over ``LOWER`` of them lower case): its prose parts are text, any other part stays a
table (or is dropped where it lies inside another table box, which then takes its lines). A
table whose parts are all cells (capitalized labels, figures) is left whole, whatever its
column gaps; so is one the PDF rules as a grid.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from itertools import pairwise

from workbench.engines.cpu.boxes import Box, Gutter, LayoutBox, Line, Word, cover, median, union_all

GUTTER_GAP = 1.2  # line heights: justified prose spaces words under this
WINDOW = 8.0  # line heights above and below a gap where the channel must stay clear
CROSSING = 0.15  # share of the window's lines that may cross the channel (a spanning heading)
SIDE_WORDS = 3  # words a line's part needs to count as prose on its side
SIDE_LINES = 3  # prose lines needed on each side of the channel
PROSE_SHARE = 0.6  # share of a table part's lines that are prose for the part to be text
LOWER = 0.5  # ...and more than this share of its words start lower case
_PROSE_BOXES = {"text", "title", "reference"}
_TABLE_BOXES = {"table", "aligned_table"}


def find(lines: list[Line]) -> list[Gutter]:
    """The gutters the page's word gaps show (one per gap that qualifies; see module doc)."""
    worded = [ln for ln in lines if len(ln.words) >= 2]
    out: list[Gutter] = []
    for ln in worded:
        # its words' height: a line bridging two columns of a skewed page is twice as tall
        h = max(median([w.box[3] - w.box[1] for w in ln.words]), 1.0)
        words = sorted(ln.words, key=lambda w: w.box[0])
        for a, b in pairwise(words):
            gap = b.box[0] - a.box[2]
            if gap < GUTTER_GAP * h:
                continue
            quarter = gap / 4
            g = Gutter(a.box[2] + quarter, ln.box[1] - WINDOW * h, b.box[0] - quarter,
                       ln.box[3] + WINDOW * h)  # fmt: skip
            if _clear(g, worded):
                out.append(g)
    return out


def _clear(g: Gutter, lines: list[Line]) -> bool:
    near = [ln for ln in lines if ln.box[3] > g.y0 and ln.box[1] < g.y1]
    crossing = left = right = 0
    for ln in near:
        if any(w.box[0] < g.x1 and w.box[2] > g.x0 for w in ln.words):
            crossing += 1
            continue
        left += sum(w.box[2] <= g.x0 and _prose(w.text) for w in ln.words) >= SIDE_WORDS
        right += sum(w.box[0] >= g.x1 and _prose(w.text) for w in ln.words) >= SIDE_WORDS
    return crossing <= CROSSING * len(near) and min(left, right) >= SIDE_LINES


def _prose(word: str) -> bool:
    """A word of running text: two letters or more (not a figure, a dot leader, a sign)."""
    return sum(c.isalpha() for c in word) >= 2


def split_lines(lines: list[Line], gutters: list[Gutter]) -> list[Line]:
    """``lines`` with each line that bridges a gutter cut into its parts (in x order)."""
    out: list[Line] = []
    for ln in lines:
        cuts = sorted(
            {(g.x0 + g.x1) / 2 for g in gutters if g.y0 <= ln.box[1] and ln.box[3] <= g.y1}
        )
        parts = _parts(ln, cuts) if cuts and len(ln.words) >= 2 else [ln]
        out.extend(parts)
    return out


def _parts(ln: Line, cuts: list[float]) -> list[Line]:
    groups: list[list[Word]] = [[] for _ in range(len(cuts) + 1)]
    for w in ln.words:
        centre = (w.box[0] + w.box[2]) / 2
        groups[sum(centre > c for c in cuts)].append(w)
    groups = [g for g in groups if g]
    if len(groups) < 2:
        return [ln]
    parts = []
    for g in groups:
        box = union_all([w.box for w in g])
        conf = sum(w.conf for w in g) / len(g)
        text = " ".join(w.text for w in g)
        # every other field (size, bold, caps, stroke, …) is the line's; its TeX no longer fits
        parts.append(replace(ln, text=text, box=box, conf=conf, words=list(g), tex=None))
    return parts


def split_boxes(
    layout: list[LayoutBox], lines: list[Line], gutters: list[Gutter]
) -> list[LayoutBox]:
    """Prose boxes spanning a gutter, with lines on both sides and none across, cut in two."""
    out: list[LayoutBox] = []
    for b in layout:
        out.extend(_cut_box(b, lines, gutters) if b.native in _PROSE_BOXES else [b])
    return out


def split_tables(
    layout: list[LayoutBox],
    lines: list[Line],
    gutters: list[Gutter],
    ruled: Callable[[Box], bool],
) -> list[LayoutBox]:
    """Table boxes over a gutter cut at it where a part is prose, the prose parts text (module
    doc); run after tables are found from alignment, which can take level lines of three
    columns for rows. A box ``ruled`` says reads a ruled grid of the PDF is a table whatever
    its cells say (a ruled grid of two-word Latin cells reads as prose)."""
    out: list[LayoutBox] = []
    for b in layout:
        if b.native not in _TABLE_BOXES or ruled(b.box):
            out.append(b)
            continue
        others = [o.box for o in layout if o is not b and o.native in _TABLE_BOXES]
        parts = _cut_table(b, lines, gutters)
        # a cell part inside another table box was that table's: it keeps the lines
        out.extend(p for p in parts if len(parts) == 1 or not _within(p.box, others))
    return out


def _within(box: Box, others: list[Box]) -> bool:
    return any(cover(box, o) >= 0.5 for o in others)


def _cut_table(b: LayoutBox, lines: list[Line], gutters: list[Gutter]) -> list[LayoutBox]:
    """A table box over a gutter cut at it when one of its parts is prose (module doc); the
    prose parts become text boxes."""
    parts = _cut_box(b, lines, gutters)
    if len(parts) < 2:
        return [b]
    prose = [_is_prose([ln for ln in lines if _centre_in(ln.box, p.box)]) for p in parts]
    if not any(prose):
        return [b]
    return [
        LayoutBox("text", p.box, p.score) if text else p
        for p, text in zip(parts, prose, strict=True)
    ]


def _is_prose(lines: list[Line]) -> bool:
    """Running text: ``PROSE_SHARE`` of the lines hold ``SIDE_WORDS`` words, and most of the
    words are lower case (a sentence; table cells are capitalized labels and figures)."""
    words = [w.text for ln in lines for w in ln.words if _prose(w.text)]
    worded = sum(sum(_prose(w.text) for w in ln.words) >= SIDE_WORDS for ln in lines)
    lower = sum(w[:1].islower() for w in words)
    return bool(lines) and worded >= PROSE_SHARE * len(lines) and lower > LOWER * len(words)


def _cut_box(b: LayoutBox, lines: list[Line], gutters: list[Gutter]) -> list[LayoutBox]:
    x0, y0, x1, y1 = b.box
    for g in gutters:
        mid = (g.x0 + g.x1) / 2
        if not (x0 < g.x0 and g.x1 < x1 and g.y0 < y1 and y0 < g.y1):
            continue
        inside = [ln for ln in lines if _centre_in(ln.box, b.box)]
        if any(ln.box[0] < g.x0 and ln.box[2] > g.x1 for ln in inside):
            continue  # a line across the channel: one block (a heading over both columns)
        if any(ln.box[2] <= mid for ln in inside) and any(ln.box[0] >= mid for ln in inside):
            left = LayoutBox(b.native, (x0, y0, mid, y1), b.score)
            right = LayoutBox(b.native, (mid, y0, x1, y1), b.score)
            return [*_cut_box(left, lines, gutters), *_cut_box(right, lines, gutters)]
    return [b]


def _centre_in(inner: Box, outer: Box) -> bool:
    cx, cy = (inner[0] + inner[2]) / 2, (inner[1] + inner[3]) / 2
    return outer[0] <= cx <= outer[2] and outer[1] <= cy <= outer[3]
