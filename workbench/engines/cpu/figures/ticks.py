"""Figures and the text around them: what belongs to the picture and what is the page's text.

Two decisions, both on ``page_px`` boxes (called from
the passes of :mod:`.passes`):

* :func:`release_text` — a figure box that swallowed the text under (or over) its picture (a
  textbook's exercise set right below a diagram) is cut above that text, which becomes its own
  ``ocr_lines`` box. The text must be a paragraph-like block at the box's bottom (or top)
  edge: rows of confident lines (``MIN_CONF``) at body height (0.6-1.6 × the page's median line
  height), at least one of them *full* (``FULL`` of the figure's width and ``MIN_WORDS``
  words: wider than a label; a paragraph's last row may be short), rows no further apart than
  ``ROW_GAP`` line heights; and the figure's ink must stop before it: with the block's own
  glyphs masked, the rows of the figure's box hold ink above the block (a picture to keep),
  none within ``GAP`` line heights of it, and next to none (``BAND_INK``) beside the block's
  lines (text set over a picture is the picture's). Each of its lines then lands in the new
  box only, so each word is printed once.
* :func:`attach_ticks` — axis tick labels (lines whose every token is a number: ``4``,
  ``3.5``, ``−2``, ``10%``, ``2019``) and short labels (at most three tokens, ``LABEL_CHARS``
  characters, not ending like a sentence, with no other loose text line right above or below
  them) that no box holds, or that fill text boxes on their own, within ``MARGIN`` median line
  heights of a figure's box belong to that figure, and so do the tick rows a text box starts
  with inside a figure's box (the list under a graph, its box drawn up over the x axis): the
  figure takes them (its box then grows over them: the ``grow_boxes`` pass) instead of a paragraph
  "4 35 3 25 2 15 05" being printed.
  Tick labels (:func:`without_ticks`) are then left out of the figure's Markdown text and
  do not count as the figure's text when deciding whether it is a misread text block.
"""

from __future__ import annotations

import re

import numpy as np

from workbench.engines.cpu.boxes import Box, LayoutBox, Line, area, cover, union_all
from workbench.engines.cpu.labels import canonical
from workbench.schema import Label

MIN_CONF = 70.0  # a released paragraph's lines are read confidently (not a picture's noise)
FULL = 0.5  # ...one of its rows spans half the figure: wider than a label
MIN_WORDS = 4  # ...and has this many words
PROSE_FILL = 0.6
ROW_GAP = 1.6  # ...rows of one paragraph are at most 1.6 line heights apart
GAP = 0.25  # the picture's ink stops this many line heights above the paragraph
BAND_INK = 0.02  # next to no ink beside the paragraph's lines (text over a picture is its)
INK = 160  # grey level under which a pixel is ink
MARGIN = 3.0  # tick labels lie within three line heights of their figure's box
LABEL_CHARS = 16  # a short label ("Revenue", "t (s)"), not a sentence
# a number, perhaps signed, with a unit; OCR reads a tick mark beside it as a dash ("2-")
_NUMBER = re.compile(r"^[-−–+]?[$€£]?(?:\d+(?:[.,]\d+)*|[.,]\d+)[%‰°kKMB]?[-–—]?$")
_TEXT_BOXES = {"text", "reference", "ocr_lines", "FLOWING_TEXT", "PULLOUT_TEXT"}


def numeric(ln: Line) -> bool:
    """Every token of the line is a number (a tick label, or a row of them)."""
    toks = ln.text.split()
    return bool(toks) and all(_NUMBER.match(t) for t in toks)


def without_ticks(group: list[Line], fig: Box, line_h: float) -> list[Line]:
    """``group`` less its tick labels: :func:`numeric` lines within ``MARGIN`` line heights
    of the figure box's border (a table of figures the layout model called a figure has its
    numbers inside, and keeps them)."""
    m = MARGIN * line_h

    def edge(b: Box) -> bool:
        return min(b[0] - fig[0], fig[2] - b[2], b[1] - fig[1], fig[3] - b[3]) <= m

    return [ln for ln in group if not (numeric(ln) and edge(ln.box))]


def _label(ln: Line) -> bool:
    t = ln.text.strip()
    return (
        0 < len(t) <= LABEL_CHARS
        and len(t.split()) <= 3
        and not t.endswith((".", ",", ";", ":"))
        and any(c.isalnum() for c in t)
    )


def _figure(b: LayoutBox) -> bool:
    return canonical(b.native) is Label.FIGURE


# ---------------------------------------------------------------- text a figure swallowed


def release_text(
    boxes: list[LayoutBox], lines: list[Line], gray: np.ndarray | None, line_h: float
) -> list[LayoutBox]:
    """``boxes`` with each figure cut above (below) a text block at its edge, plus that block
    as an ``ocr_lines`` box (see the module docstring). ``gray``: the page as uint8 grey."""
    if gray is None or not any(_figure(b) for b in boxes):
        return boxes
    out = list(boxes)
    for k, b in enumerate(boxes):
        if not _figure(b):
            continue
        fig = b.box
        for edge in ("bottom", "top"):
            mine = [ln for ln in lines if _owned(ln, fig, out)]
            block = _edge_block(mine, fig, line_h, edge)
            if not block:
                continue
            cut = _cut(gray, fig, block, line_h, edge)
            if cut is None:
                continue
            text_box = union_all([ln.box for ln in block])
            fig = (
                (fig[0], fig[1], fig[2], cut) if edge == "bottom" else (fig[0], cut, fig[2], fig[3])
            )
            out[k] = LayoutBox(b.native, fig, b.score)
            out.append(LayoutBox("ocr_lines", text_box, b.score))
    return out


def _owned(ln: Line, fig: Box, boxes: list[LayoutBox]) -> bool:
    """Half the line lies in ``fig`` and in no smaller box (the box compose would give it)."""
    if cover(ln.box, fig) < 0.5:
        return False
    small = area(fig)
    return not any(area(o.box) < small and cover(ln.box, o.box) >= 0.5 for o in boxes)


def _rows(lines: list[Line]) -> list[list[Line]]:
    """Lines grouped into rows (vertical overlap of half the smaller height), top to bottom."""
    rows: list[list[Line]] = []
    for ln in sorted(lines, key=lambda ln: ln.box[1]):
        if rows:
            last = union_all([x.box for x in rows[-1]])
            overlap = min(last[3], ln.box[3]) - max(last[1], ln.box[1])
            if overlap >= 0.5 * min(last[3] - last[1], ln.height):
                rows[-1].append(ln)
                continue
        rows.append([ln])
    return rows


def _edge_block(mine: list[Line], fig: Box, line_h: float, edge: str) -> list[Line]:
    rows = _rows(mine)
    if edge == "bottom":
        rows.reverse()
    width = max(fig[2] - fig[0], 1.0)
    seq: list[tuple[list[Line], bool]] = []  # rows from the edge inwards, and whether full
    for row in rows:
        rb = union_all([ln.box for ln in row])
        h = max(ln.height for ln in row)
        chars = sum(len(ln.text) for ln in row)
        conf = sum(ln.conf * len(ln.text) for ln in row) / max(chars, 1)
        if seq:
            prev = union_all([ln.box for ln in seq[-1][0]])
            gap = rb[1] - prev[3] if edge == "top" else prev[1] - rb[3]
            if gap > ROW_GAP * max(h, line_h):
                break
        if not (0.6 * line_h <= h <= 1.6 * line_h and conf >= MIN_CONF):
            break
        full = rb[2] - rb[0] >= FULL * width and _prose(row, rb)
        if not full and seq and not seq[-1][1]:
            break  # two short rows running: labels, not a paragraph
        seq.append((row, full))
    # top to bottom the block reads as paragraphs: full rows, each paragraph perhaps ending
    # in one short row; so its first row is full (and a short row may end it)
    if edge == "bottom":
        while seq and not seq[-1][1]:
            seq.pop()
    elif seq and not seq[0][1]:
        seq = []
    return [ln for row, _ in seq for ln in row]


def _prose(row: list[Line], rb: Box) -> bool:
    """``MIN_WORDS`` words of letters whose boxes fill most of the row (a row of tick labels
    or of spread-out labels is wide but mostly gaps)."""
    words = sum(sum(c.isalpha() for c in t) >= 2 for ln in row for t in ln.text.split())
    spans = [b for ln in row for b in ([w.box for w in ln.words] or [ln.box])]
    inked = sum(b[2] - b[0] for b in spans)
    return words >= MIN_WORDS and inked >= PROSE_FILL * max(rb[2] - rb[0], 1.0)


def _cut(gray: np.ndarray, fig: Box, block: list[Line], line_h: float, edge: str) -> float | None:
    """The figure's new bottom (top) edge, or None when its ink does not stop before the block."""
    gh, gw = gray.shape[:2]
    x0, y0 = max(int(fig[0]), 0), max(int(fig[1]), 0)
    x1, y1 = min(int(np.ceil(fig[2])), gw), min(int(np.ceil(fig[3])), gh)
    if x1 - x0 < 4 or y1 - y0 < 4:
        return None
    glyphs = gray[y0:y1, x0:x1] < INK
    ink = glyphs.copy()
    for ln in block:  # the block's own glyphs are not the picture
        pad = 0.25 * ln.height
        a0, b0 = max(int(ln.box[0] - pad) - x0, 0), max(int(ln.box[1] - pad) - y0, 0)
        a1, b1 = int(ln.box[2] + pad) - x0 + 1, int(ln.box[3] + pad) - y0 + 1
        ink[b0:b1, a0:a1] = False
    tb = union_all([ln.box for ln in block])
    top, bottom = max(int(tb[1]) - y0, 0), min(int(np.ceil(tb[3])) - y0, y1 - y0)
    band = ink[top:bottom]
    if band.size and band.mean() > BAND_INK:
        return None  # the text sits on the picture
    # gaps are measured ink to ink: a text layer's line boxes reach above its glyphs
    own = np.nonzero(glyphs[top:bottom, max(int(tb[0]) - x0, 0) : int(tb[2]) - x0].any(axis=1))[0]
    if not len(own):
        return None
    top, bottom = top + int(own.min()), top + int(own.max()) + 1
    rows = np.nonzero(ink.sum(axis=1) >= max(2, 0.003 * (x1 - x0)))[0]
    need = max(GAP * line_h, 4.0)
    if edge == "bottom":
        above = rows[rows < top]
        if len(above) < 0.5 * line_h:
            return None  # no picture above the text: nothing to keep
        last = int(above.max())
        if top - last < need:
            return None
        return y0 + last + min((top - last) / 2, line_h / 2)
    below = rows[rows >= bottom]
    if len(below) < 0.5 * line_h:
        return None
    first = int(below.min())
    if first - bottom < need:
        return None
    return y0 + first - min((first - bottom) / 2, line_h / 2)


# ---------------------------------------------------------------- tick labels


def attach_ticks(
    boxes: list[LayoutBox],
    members: dict[int, list[Line]],
    skip: set[int],
    line_h: float,
    height: float = 0.0,
) -> dict[int, list[Line]]:
    """``members`` (box index → lines, -1: no box) with tick labels and short labels near a
    figure moved to that figure (see the module docstring). Lines in the page's top 5 % or
    bottom 7 % (``height``: the page's) stay: a page number under a figure is furniture."""
    figs = [k for k, b in enumerate(boxes) if k not in skip and _figure(b)]
    if not figs:
        return members

    def home(ln: Line) -> int | None:
        if height and (ln.box[3] < 0.05 * height or ln.box[1] > 0.93 * height):
            return None
        m = MARGIN * line_h
        best, dist = None, float("inf")
        for k in figs:
            f = boxes[k].box
            if cover(ln.box, (f[0] - m, f[1] - m, f[2] + m, f[3] + m)) < 0.8:
                continue
            dx = max(f[0] - ln.box[2], ln.box[0] - f[2], 0.0)
            dy = max(f[1] - ln.box[3], ln.box[1] - f[3], 0.0)
            if dx + dy < dist:
                best, dist = k, dx + dy
        return best

    out = {k: list(v) for k, v in members.items()}
    orphans = out.get(-1, [])
    loose = [ln for ln in orphans if not numeric(ln) and not _label(ln)]
    keep: list[Line] = []
    for ln in orphans:
        k = (
            home(ln)
            if numeric(ln) or (_label(ln) and not _beside_text(ln, loose, line_h))
            else None
        )
        if k is None:
            keep.append(ln)
        else:
            out.setdefault(k, []).append(ln)
    if -1 in out:
        out[-1] = keep
    for j in list(out):
        group = out[j]
        if j < 0 or boxes[j].native not in _TEXT_BOXES or not group:
            continue
        if not all(numeric(ln) for ln in group):
            # a text box drawn up into the picture starts with its axis's tick row
            for ln in sorted(group, key=lambda ln: ln.box[1]):
                k = home(ln)
                if not numeric(ln) or k is None or cover(ln.box, boxes[k].box) < 0.8:
                    break
                group.remove(ln)
                out.setdefault(k, []).append(ln)
            continue
        homes = {home(ln) for ln in group}
        if len(homes) == 1 and None not in homes:
            k = homes.pop()
            assert k is not None
            out.setdefault(k, []).extend(out.pop(j))
    return out


def _beside_text(ln: Line, loose: list[Line], line_h: float) -> bool:
    """A loose text line right above or below: ``ln`` is a paragraph's short last line."""
    for o in loose:
        gap = max(o.box[1] - ln.box[3], ln.box[1] - o.box[3])
        overlap = min(o.box[2], ln.box[2]) - max(o.box[0], ln.box[0])
        if gap < line_h and overlap > 0:
            return True
    return False
