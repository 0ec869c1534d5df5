"""How heavy an OCR line's type is: its stroke, and bold that a degraded scan has thinned.

The stroke (:func:`weigh`) is the mean depth of a line's ink: each ink pixel's city-block
distance to the paper, measured by repeated erosion of the binarised line (threshold midway
between the crop's 2nd and 98th grey percentiles). It grows with the stem width, so a bold
face reads about 1.3-1.6 × the regular one at the same size and DPI (measured at 200 DPI:
regular text 0.97-1.21, bold body-size headings 1.30-1.56, ratio to the page's body ≥ 1.22).

A degraded scan (noise, blur, a second-generation copy) thins bold type: :func:`semi_bold`
takes a line whose stroke is only ``SEMI_BOLD_RATIO`` × the body's or more as bold when it
stands apart from the text over and under it (:mod:`.headings` uses it for body-size headings).
"""

from __future__ import annotations

import numpy as np

from workbench.engines.cpu.boxes import Box, Line

MAX_WRAP = 3  # a heading wraps over at most this many lines (headings.MAX_LINES)
#: A degraded scan (noise, blur, a second-generation copy) thins bold: body-size headings
#: measured 1.09-1.20 × the body on the development set's scans, body lines ≤ 1.07 (one
#: unevenly inked page's bullets 1.11-1.17, all sentences or runs of prose). Between this and
#: headings.BOLD_RATIO a line counts as bold only when set apart (APART) from the text above.
SEMI_BOLD_RATIO = 1.08
#: ...by this many body line heights or more (headings measured 1.23-2.23 over a paragraph
#: break of ~0.95; contents entries under their heading 0.03-0.17), or when it continues
#: such a line (a heading wrapped over two lines: "What is User Centered De-" / "sign?").
APART = 1.15
#: ...and by this many under it (headings measured 0.85-1.2 over their paragraph; a list
#: item's bold first words run on into its next line 0.1-0.4 under)
APART_BELOW = 0.6


def stroke(gray: np.ndarray, box: Box) -> float:
    """Mean depth of the ink in ``box`` of a grey page (see the module docstring); 0 when
    the crop is empty or has no contrast."""
    x0, y0 = max(int(box[0]), 0), max(int(box[1]), 0)
    x1, y1 = min(round(box[2]), gray.shape[1]), min(round(box[3]), gray.shape[0])
    crop = gray[y0:y1, x0:x1]
    if crop.shape[0] < 4 or crop.shape[1] < 4:
        return 0.0
    lo, hi = np.percentile(crop, (2, 98))
    if hi - lo < 40:
        return 0.0
    ink = np.pad(crop < (lo + hi) / 2, 1)  # paper around the crop
    n = int(ink.sum())
    if not n:
        return 0.0
    total, cur = 0, ink
    for _ in range(16):
        total += int(cur.sum())
        nxt = cur.copy()
        nxt[1:] &= cur[:-1]
        nxt[:-1] &= cur[1:]
        nxt[:, 1:] &= cur[:, :-1]
        nxt[:, :-1] &= cur[:, 1:]
        if not nxt.any():
            break
        cur = nxt
    return total / n


def weigh(lines: list[Line], gray: np.ndarray) -> None:
    """Measure :attr:`Line.stroke` of the OCR lines (text-layer lines know their font)."""
    for ln in lines:
        if ln.size <= 0 and ln.text.strip():
            ln.stroke = stroke(gray, ln.box)


def semi_bold(ln: Line, ocr: list[Line], body_h: float, body_stroke: float) -> bool:
    """Bold thinned by a degraded scan: :data:`SEMI_BOLD_RATIO` × the body stroke or more,
    set apart from the line above it and not running on into the line below (see
    :data:`APART`). ``ocr``: the page's measured OCR lines; ``body_h``: the body line height."""
    if body_stroke <= 0 or ln.stroke < SEMI_BOLD_RATIO * body_stroke:
        return False
    return _apart(ln, ocr, body_h, body_stroke, True) and _apart(
        ln, ocr, body_h, body_stroke, False
    )


def _apart(
    ln: Line, ocr: list[Line], body_h: float, body_stroke: float, up: bool, depth: int = 0
) -> bool:
    """Nothing over (``up``) or under ``ln``, or a gap of :data:`APART` (over) or
    :data:`APART_BELOW` (under) body line heights, or a semi-bold line of about the same
    stroke there that is itself apart on that side (a heading wrapped over lines)."""
    x0, x1 = ln.box[0], ln.box[2]
    slack = 0.1 * ln.height
    near = [
        o
        for o in ocr
        if o is not ln
        and min(o.box[2], x1) > max(o.box[0], x0)
        and (o.box[3] <= ln.box[1] + slack if up else o.box[1] >= ln.box[3] - slack)
    ]
    if not near:
        return True
    if up:
        nxt = max(near, key=lambda o: o.box[3])
        gap, need = ln.box[1] - nxt.box[3], APART
    else:
        nxt = min(near, key=lambda o: o.box[1])
        gap, need = nxt.box[1] - ln.box[3], APART_BELOW
    if gap >= need * body_h:
        return True
    heavy = nxt.stroke >= SEMI_BOLD_RATIO * body_stroke
    same = heavy and abs(nxt.stroke - ln.stroke) <= 0.1 * ln.stroke
    return depth < MAX_WRAP - 1 and same and _apart(nxt, ocr, body_h, body_stroke, up, depth + 1)
