"""Headings from type: font size and weight (text layer) or line height (OCR).

A line is *heading-like* when it is short (at most ``MAX_WORDS`` words), starts with a
capital letter, digit or quote, has at least three letters, and either

* is set at least ``SIZE_RATIO`` × the page's body size (text layer; the body size is the
  character-weighted median line size), or ``OCR_RATIO`` × the median line height (OCR), or
* is bold at body size (text layer), does not end like a sentence (``.`` ``,`` ``;``) and
  the page is not mostly bold (forms set every label in bold).

:func:`split` walks each text-like block's lines top to bottom and cuts it into runs of
heading-like and other lines; a heading run of at most ``MAX_LINES`` lines becomes its own
block (so a heading the layout model glued to its paragraph, or left in a text box, is found;
a heading split over two lines stays one heading). Levels: heading sizes are clustered
(within 8 %) and ranked, largest first; the largest is level 1 (the page title, ``#``) only
when it is ≥ ``TITLE_RATIO`` × body size, else levels start at 2 (``##``); bold body-size
headings take the level under the smallest sized one; levels stop at 4.
"""

from __future__ import annotations

import re

from workbench.engines.cpu.boxes import Box, Line, union_all

MAX_WORDS = 14
MAX_LINES = 3
SIZE_RATIO = 1.15
OCR_RATIO = 1.35
TITLE_RATIO = 1.5
MARGIN = 0.08
_START = re.compile(r"^[\"'“‘(]?[A-Z0-9ÀÁÂÄÉÈÍÓÖÚÜÑ§]")
_FOLIO = re.compile(r"^\d{1,3}\s|\s\d{1,3}$|^page\s", re.IGNORECASE)  # a running head
_TEXTY = {"text", "title", "ocr_lines", "reference", "figure_caption", "table_caption"}

Block = tuple[str, Box, list[Line], float]


def body_size(lines: list[Line]) -> float:
    """Character-weighted median font size of text-layer lines (0 without any)."""
    sized = sorted((ln.size, len(ln.text)) for ln in lines if ln.size > 0)
    total = sum(n for _, n in sized)
    acc = 0
    for size, n in sized:
        acc += n
        if acc >= total / 2:
            return size
    return 0.0


def _size(ln: Line) -> float:
    return ln.size if ln.size > 0 else ln.height


def heading_like(ln: Line, body: float, line_h: float, bold_page: bool) -> bool:
    text = ln.text.strip()
    if len(text.split()) > MAX_WORDS or sum(c.isalpha() for c in text) < 3:
        return False
    if not _START.match(text):
        return False
    if ln.size > 0 and body > 0:
        if ln.size >= SIZE_RATIO * body:
            return True
        return (
            ln.bold
            and not bold_page
            and ln.size >= 0.9 * body
            and not text.endswith((".", ",", ";"))
        )
    return line_h > 0 and ln.height >= OCR_RATIO * line_h


def split(blocks: list[Block], lines: list[Line], line_h: float, height: float) -> list[Block]:
    """Blocks with heading runs cut out as ``("heading:N", box, lines, score)`` blocks.
    Lines in the bottom ``MARGIN`` of the page, or in the top one with a page number at either
    end, are left alone (running heads)."""
    body = body_size(lines)
    chars = sum(len(ln.text) for ln in lines if ln.size > 0)
    bold_page = sum(len(ln.text) for ln in lines if ln.bold) > 0.4 * max(chars, 1)
    out: list[Block] = []
    found: list[tuple[int, float, bool]] = []  # (index in out, size, bold at body size)
    for native, box, group, score in blocks:
        if native not in _TEXTY or not group:
            out.append((native, box, group, score))
            continue
        group = sorted(group, key=lambda ln: (round(ln.box[1] / 4), ln.box[0]))
        runs: list[tuple[bool, list[Line]]] = []
        for ln in group:
            edge = ln.box[1] > (1 - MARGIN) * height or (
                ln.box[3] < MARGIN * height and bool(_FOLIO.search(ln.text))
            )
            flag = not edge and heading_like(ln, body, line_h, bold_page)
            if runs and runs[-1][0] == flag and _same_row_or_next(runs[-1][1][-1], ln):
                runs[-1][1].append(ln)
            else:
                runs.append((flag, [ln]))
        if len(runs) == 1 and not runs[0][0]:
            out.append((native, box, group, score))
            continue
        for flag, run in runs:
            rbox = union_all([ln.box for ln in run]) if len(runs) > 1 else box
            if flag and len(run) <= MAX_LINES:
                size = max(_size(ln) for ln in run)
                body_bold = body > 0 and size < SIZE_RATIO * body
                found.append((len(out), size, body_bold))
                out.append(("heading", rbox, run, score))
            else:
                out.append((native, rbox, run, score))
    if not found:
        return out
    sizes = sorted({round(s, 1) for _, s, b in found if not b}, reverse=True)
    clusters: list[float] = []
    for s in sizes:
        if not clusters or s < 0.92 * clusters[-1]:
            clusters.append(s)
    ref = body if body > 0 else line_h
    start = 1 if clusters and ref > 0 and clusters[0] >= TITLE_RATIO * ref else 2
    for k, size, body_bold in found:
        if body_bold:
            level = start + len(clusters)
        else:
            level = start + sum(1 for c in clusters if c > size * 1.08)
        native, box, run, score = out[k]
        out[k] = (f"heading:{min(level, 4)}", box, run, score)
    return out


def _same_row_or_next(prev: Line, ln: Line) -> bool:
    """Lines of one run: the next line starts within two line heights below the previous."""
    gap = ln.box[1] - prev.box[3]
    return gap <= 2.0 * max(prev.height, ln.height, 1.0)
