"""Where RapidOCR's readings replace or complement Tesseract's: pure decisions on boxes.

RapidOCR detects text lines once per page (:meth:`.ocr.RapidReader.detect`);
these functions pick which detections to recognise:

* :func:`is_data_table` — detections inside a layout ``table`` box that grid into at least
  ``MIN_COLUMNS`` columns (:func:`..tables.fragments.columns_of` on their fuller rows) of short
  cells (prose columns grid too, but their fragments are whole lines: ``PROSE_ASPECT``) make
  a data table: RapidOCR re-reads it, since its detector splits text at cell gaps
  and reads small dense figures better (Census Table 325: word-F1 0.99 vs Tesseract's 0.72).
  A "table" whose detections grid into one column is a form the layout model misread
  (DD 293, VA 21-0966): Tesseract's reading stands and the box is dissolved into text.
* :func:`missed` — detections that Tesseract's words leave uncovered (under ``MISSED_OVERLAP``
  of the box, and no word mostly inside it): text Tesseract skipped
  (page numbers after dot leaders in a table of contents, isolated digits, faint print).
* :func:`inside` — detections whose centre lies in a box.
* :func:`dedupe` — each word once: of two lines that overlap (half the smaller box) and whose
  words mostly repeat (80 % of the shorter line's words appear in the other), only the longer,
  surer one stays (a drop cap's line read twice, a RapidOCR reading beside Tesseract's).

Boxes are ``page_px`` tuples; quads are RapidOCR's 4×2 arrays in the same pixels.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from workbench.engines.cpu.boxes import Box, Line, area
from workbench.engines.cpu.tables.fragments import columns_of, rows_of

MIN_COLUMNS = 2  # detections gridding into one column are a form's labels, not a table
# a fragment this many times wider than tall holds ~25 characters or more: a line of prose.
# Columns of prose grid as neatly as a table; their fragments are whole lines, a table's
# cells (figures, labels) are short, so a "table" whose median fragment is this long is prose
PROSE_ASPECT = 12.0
MISSED_OVERLAP = 0.2  # a detection is covered when Tesseract words cover this share of it


def quad_box(q: np.ndarray) -> Box:
    return (float(q[:, 0].min()), float(q[:, 1].min()), float(q[:, 0].max()), float(q[:, 1].max()))


def inside(quads: Sequence[np.ndarray], box: Box) -> list[np.ndarray]:
    out = []
    for q in quads:
        x0, y0, x1, y1 = quad_box(q)
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        if box[0] <= cx <= box[2] and box[1] <= cy <= box[3]:
            out.append(q)
    return out


def is_data_table(boxes: Sequence[Box]) -> bool:
    """Do these cell-fragment boxes form a grid of at least ``MIN_COLUMNS`` columns, of
    short cells (not columns of prose lines: ``PROSE_ASPECT``)?"""
    rows = rows_of([("", b) for b in boxes])
    if len(rows) < 2:
        return False
    aspects = sorted((b[2] - b[0]) / max(b[3] - b[1], 1.0) for b in boxes)
    if aspects[len(aspects) // 2] >= PROSE_ASPECT:
        return False
    return len(columns_of(rows)) >= MIN_COLUMNS


def missed(quads: Sequence[np.ndarray], lines: Sequence[Line]) -> list[np.ndarray]:
    """Detections that Tesseract's words leave (almost) uncovered."""
    boxes = [w.box for ln in lines for w in ln.words] or [ln.box for ln in lines]
    if not boxes:
        return list(quads)
    w = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
    wa = np.clip(w[:, 2] - w[:, 0], 1, None) * np.clip(w[:, 3] - w[:, 1], 1, None)
    out = []
    for q in quads:
        b = quad_box(q)
        iw = np.clip(np.minimum(w[:, 2], b[2]) - np.maximum(w[:, 0], b[0]), 0, None)
        ih = np.clip(np.minimum(w[:, 3], b[3]) - np.maximum(w[:, 1], b[1]), 0, None)
        hit = iw * ih
        # detection boxes are padded (unclip): a one-digit word fills little of its box, so a
        # word mostly inside the box also counts as covering it
        if hit.sum() / max(area(b), 1.0) < MISSED_OVERLAP and not (hit >= 0.5 * wa).any():
            out.append(q)
    return out


def attach(lines: list[Line], extra: list[Line]) -> list[Line]:
    """Add ``extra`` lines; one sharing a row with a line (vertical overlap of half the smaller
    height, no horizontal overlap) joins the nearest such line, in x order, so a table of
    contents reads "3 Baz 2" as its text layer does, rather than a stray column of numbers."""
    out = list(lines)
    for ex in sorted(extra, key=lambda ln: ln.box[0]):
        best: Line | None = None
        best_gap = 0.0
        for ln in out:
            overlap = min(ln.box[3], ex.box[3]) - max(ln.box[1], ex.box[1])
            gap = max(ex.box[0] - ln.box[2], ln.box[0] - ex.box[2])
            if overlap < 0.5 * min(ln.height, ex.height) or gap < -2:
                continue
            if best is None or gap < best_gap:
                best, best_gap = ln, gap
        if best is None:
            out.append(ex)
            continue
        left, right = (best, ex) if best.box[0] < ex.box[0] else (ex, best)
        best.text = f"{left.text} {right.text}"
        best.words = left.words + right.words
        b = best.box
        best.box = (
            min(b[0], ex.box[0]),
            min(b[1], ex.box[1]),
            max(b[2], ex.box[2]),
            max(b[3], ex.box[3]),
        )
    return out


def weak_lines(
    lines: Sequence[Line], quads: Sequence[np.ndarray], conf: float
) -> list[tuple[Line, list[np.ndarray]]]:
    """Tesseract lines read with mean word confidence under ``conf``, each with the detections
    that lie mostly (half their area) inside it: the candidates for a second reading."""
    boxes = [quad_box(q) for q in quads]
    out = []
    for ln in lines:
        if ln.source != "tesseract" or ln.conf >= conf:
            continue
        mine = [q for q, b in zip(quads, boxes, strict=True) if _cover(b, ln.box) >= 0.5]
        if mine:
            out.append((ln, mine))
    return out


def better(tess: Line, fresh: Sequence[Line], margin: float) -> bool:
    """Does RapidOCR's reading beat Tesseract's by ``margin`` points of confidence?"""
    if not fresh:
        return False
    chars = sum(len(f.text) for f in fresh)
    mean = sum(f.conf * len(f.text) for f in fresh) / max(chars, 1)
    return mean >= tess.conf + margin and chars >= 0.5 * len(tess.text.replace(" ", ""))


def _cover(inner: Box, outer: Box) -> float:
    w = min(inner[2], outer[2]) - max(inner[0], outer[0])
    h = min(inner[3], outer[3]) - max(inner[1], outer[1])
    return max(w, 0.0) * max(h, 0.0) / max(area(inner), 1.0)


def dedupe(lines: list[Line]) -> list[Line]:
    """Lines minus those another overlapping line already says (see the module docstring)."""
    ranked = sorted(lines, key=lambda ln: (-len(ln.text), -ln.conf))
    kept: list[Line] = []
    for ln in ranked:
        words = ln.text.split()
        if words and any(_repeats(ln, words, k) for k in kept):
            continue
        kept.append(ln)
    keep = {id(k) for k in kept}
    return [ln for ln in lines if id(ln) in keep]


def _repeats(ln: Line, words: list[str], other: Line) -> bool:
    a, b = ln.box, other.box
    h = (a[3] if a[3] < b[3] else b[3]) - (a[1] if a[1] > b[1] else b[1])
    if h <= 0:  # most pairs: cheap comparisons first (this runs for every pair of lines)
        return False
    w = (a[2] if a[2] < b[2] else b[2]) - (a[0] if a[0] > b[0] else b[0])
    if w <= 0 or w * h < 0.5 * max(min(area(a), area(b)), 1.0):
        return False
    theirs = set(other.text.split())
    return sum(word in theirs for word in words) >= 0.8 * len(words)
