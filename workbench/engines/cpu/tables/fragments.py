"""Table regions: cell fragments from lines, rows, columns, and tables found from alignment.

A *fragment* is a run of text that belongs to one cell: a RapidOCR detection box (the detector
already splits at cell gaps) or Tesseract / text-layer words merged while the gap between them
is under ``join_gap`` × their height. A text-layer word set rotated (its box over twice as
tall as its font size: a column header set at 45° or 90°) is a fragment of its own, placed
at its foot (the bottom-left square of its box, where it stands on its column).

Rows (:func:`rows_of`): fragments sorted by vertical centre; a fragment joins the open row
when it overlaps the row's vertical span by at least half its own height.
Columns (:func:`columns_of`): the x extents of fragments in the *fuller* rows (at least the
median count) are merged into column intervals, so a header cell spanning several columns
does not fuse them. :func:`glue`: a currency sign alone (``$``) joins the number after it, a
lone ``%`` or ``)`` the one before it, so ``$ 178`` stays one cell.

The table's structure (header rows, spanning headers, multi-line cells) is
:mod:`.grid`'s; :func:`table_markdown` writes it through :mod:`.render` (a pipe
table, or HTML when cells span).

:func:`find_tables` finds tables the layout model missed, from alignment alone: runs of at
least ``MIN_ROWS`` rows with ``MIN_CELLS`` or more fragments, the ones after the first mostly
numeric (``178``, ``$1,234``, ``(5.2)``, ``12%``, ``—``), with at most one wrapped-label or section
row between them and no gap over ``SPLIT`` line heights (two statements stacked with a
heading and some space between them are two tables), plus up to two header rows right above.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from workbench.engines.cpu.boxes import Box, Line, median

Fragment = tuple[str, Box]


def fragments(lines: list[Line], join_gap: float = 0.9) -> list[Fragment]:
    """Cell fragments from lines: RapidOCR lines as they are, Tesseract words merged by gap;
    a dot leader (:func:`_tokens`) ends a fragment and is dropped."""
    out: list[Fragment] = []
    for line in lines:
        if line.source == "rapidocr" or not line.words:
            out += [(t, b) for t, b, leader in _tokens(line.text, line.box) if not leader]
            continue
        tokens: list[tuple[str, Box, bool]] = []
        for w in line.words:
            if line.size > 0 and w.box[3] - w.box[1] > 2 * line.size:
                x0, y1, s = w.box[0], w.box[3], line.size  # rotated: stands on its foot
                out.append((w.text, (x0, y1 - s, x0 + s, y1)))
            else:
                tokens += _tokens(w.text, w.box)
        text, box = "", (0.0, 0.0, 0.0, 0.0)
        for t, b, leader in tokens:
            if leader:  # "Total . . . . 11,062.6": the label ends here, the leader goes
                if text:
                    out.append((_before_leader(text), box))
                text = ""
                continue
            h = max(box[3] - box[1], b[3] - b[1], 1.0)
            if text and b[0] - box[2] <= join_gap * h:
                text += " " + t
                box = (box[0], min(box[1], b[1]), b[2], max(box[3], b[3]))
            else:
                if text:
                    out.append((text, box))
                text, box = t, b
        if text:
            out.append((text, box))
    return [(t.strip(), b) for t, b in out if t.strip()]


# a dot leader: three or more dots (".", "·", "…"), single spaces allowed between them, or a
# word of dots alone ("." ". ." between a label and its figure, each dot a word of its own)
_LEADER = re.compile(r"[.·…](?: ?[.·…]){2,}")
_DOTS = re.compile(r"^[.·…]+$")


def _tokens(text: str, box: Box) -> list[tuple[str, Box, bool]]:
    """``text`` cut at its dot leaders: (piece, box, is_leader); boxes shared out by
    characters (a word's or an OCR line's box holds no finer geometry)."""
    if _DOTS.match(text.strip()):
        return [(text, box, True)]
    cuts = [(m.start(), m.end()) for m in _LEADER.finditer(text)]
    if not cuts:
        return [(text, box, False)]
    x0, y0, x1, y1 = box
    per = (x1 - x0) / max(len(text), 1)
    out: list[tuple[str, Box, bool]] = []
    at = 0
    for a, b in [*cuts, (len(text), len(text))]:
        if text[at:a].strip():
            out.append((text[at:a], (x0 + at * per, y0, x0 + a * per, y1), False))
        if b > a:
            out.append((text[a:b], (x0 + a * per, y0, x0 + b * per, y1), True))
        at = b
    return out


def _before_leader(text: str) -> str:
    """A label as it stood before its leader: the leader's first dot, set against the last
    word ("Forcible rape. . . .", "Sex offenses 1. . .", "etc.. . ."), is dropped; an
    abbreviation's dot (a word of at most three letters and one dot: "etc.", "No.") is kept."""
    last = text.split()[-1]
    if not last.endswith("."):
        return text
    short = last.count(".") == 1 and last[:-1].isalpha() and len(last) <= 4
    return text if short else text[:-1]


MIN_ROWS = 3  # a table from alignment needs three rows of cells...
SPLIT = 1.5  # rows further apart (× line height) than this belong to two stacked tables
MIN_CELLS = 3  # ...of three cells each: two columns of words are often just two columns
# a number with an optional unit of one or two letters ("3.71T", "78.7M", "2.5x", "12ms"), a
# currency sign before it or after it ("$178", "8 €": prices set the European way)
_NUMERIC = re.compile(r"^[$€£¥(+\-−–]*\s*\d[\d,.]*(?:[A-Za-z×]{1,2})?\)?%?[€£¥]?$|^[—–\-]$")
# a code: letters and digits, at most CODE_LEN characters, a digit in it ("A1", "B-12", "X3a"):
# a cell of a grid of identifiers (seats, parts, grades), never a word of prose
_CODE = re.compile(r"^(?=.*\d)[A-Za-z0-9][A-Za-z0-9./\-]*$")
CODE_LEN = 6


def glue(frags: list[Fragment]) -> list[Fragment]:
    """Currency signs onto the number after them, ``%``/``)`` onto the one before (one row)."""
    out: list[Fragment] = []
    pending: Fragment | None = None
    for text, box in sorted(frags, key=lambda f: f[1][0]):
        if pending is not None:
            text = f"{pending[0]}{text}" if pending[0] in "$€£¥" else f"{pending[0]} {text}"
            box = (pending[1][0], min(box[1], pending[1][1]), box[2], max(box[3], pending[1][3]))
            pending = None
        if text in ("$", "€", "£", "¥"):
            pending = (text, box)
            continue
        if text in ("%", ")") and out:
            t, b = out[-1]
            out[-1] = (t + text, (b[0], min(b[1], box[1]), box[2], max(b[3], box[3])))
            continue
        out.append((text, box))
    if pending is not None:
        out.append(pending)
    return out


def is_numeric(text: str) -> bool:
    return bool(_NUMERIC.match(text.replace(" ", "")))


def is_value(text: str) -> bool:
    """A body cell's value: a number (:func:`is_numeric`) or a short code ("A1", "B-12")."""
    t = text.strip()
    return is_numeric(t) or (len(t) <= CODE_LEN and bool(_CODE.match(t)))


def tabular(row: list[Fragment], value: Callable[[str], bool] = is_numeric) -> bool:
    """At least ``MIN_CELLS`` cells, and the cells after the label mostly ``value``s (numbers;
    two of three): a table of contents ("1 | Foo | 2") is not a table. :func:`find_tables`
    takes codes as values too (:func:`is_value`); a header row of codes ("Q1 | Q2 | Q3") is
    still a header to :mod:`.grid`, which asks for numbers."""
    rest = [t for t, _ in row[1:]]
    numeric = sum(value(t) for t in rest)
    return len(row) >= MIN_CELLS and numeric >= 2 and numeric >= 2 / 3 * len(rest)


def find_tables(lines: list[Line]) -> list[Box]:
    """Boxes of tables found from the alignment of ``lines``' fragments (see the docstring)."""
    rows = [glue(r) for r in rows_of(fragments(lines))]
    flags = [tabular(r, is_value) for r in rows]
    found: list[Box] = []
    k = 0
    while k < len(rows):
        if not flags[k]:
            k += 1
            continue
        end, gap = k, 0
        j = k + 1
        while j < len(rows):
            if _apart(rows[j - 1], rows[j]):
                break  # a blank line's height or more: the next table, stacked under this one
            if flags[j]:
                end, gap = j, 0
            elif len(rows[j]) == 1 and gap == 0:
                gap = 1  # a wrapped label or section row inside the table
            else:
                break
            j += 1
        count = sum(flags[k : end + 1])
        if count >= MIN_ROWS:
            start = k
            for h in (k - 1, k - 2):  # header rows right above: several non-numeric cells
                if h >= 0 and len(rows[h]) >= 2 and not flags[h]:
                    start = h
                else:
                    break
            boxes = [f[1] for r in rows[start : end + 1] for f in r]
            found.append(
                (
                    min(b[0] for b in boxes),
                    min(b[1] for b in boxes),
                    max(b[2] for b in boxes),
                    max(b[3] for b in boxes),
                )
            )
        k = end + 1
    return found


def _apart(above: list[Fragment], row: list[Fragment]) -> bool:
    h = median([f[1][3] - f[1][1] for f in above], 1.0)
    return min(f[1][1] for f in row) - max(f[1][3] for f in above) > SPLIT * h


def rows_of(frags: list[Fragment]) -> list[list[Fragment]]:
    rows: list[list[Fragment]] = []
    span: tuple[float, float] | None = None
    for f in sorted(frags, key=lambda f: (f[1][1] + f[1][3]) / 2):
        y0, y1 = f[1][1], f[1][3]
        h = max(y1 - y0, 1.0)
        if span is not None and min(y1, span[1]) - max(y0, span[0]) >= 0.5 * h:
            rows[-1].append(f)
            span = (min(span[0], y0), max(span[1], y1))
        else:
            rows.append([f])
            span = (y0, y1)
    return [sorted(r, key=lambda f: f[1][0]) for r in rows]


def columns_of(rows: list[list[Fragment]]) -> list[tuple[float, float]]:
    if not rows:
        return []
    need = median([float(len(r)) for r in rows])
    spans = sorted((f[1][0], f[1][2]) for r in rows if len(r) >= need for f in r)
    cols: list[tuple[float, float]] = []
    for lo, hi in spans:
        if cols and lo <= cols[-1][1]:
            cols[-1] = (cols[-1][0], max(cols[-1][1], hi))
        else:
            cols.append((lo, hi))
    return cols
