"""Handwritten signatures from ink analysis (no bundled model has a signature class).

A signature is ink that confident OCR does not explain, drawn in long connected cursive
strokes. Steps, on the page image:

1. Ink mask: Otsu threshold of the grey page.
2. Explained ink is erased: the boxes of OCR words read with confidence ≥ ``WORD_CONF``, and
   ruling lines (morphological opening with long horizontal and vertical kernels: form rules,
   table borders, signature *lines* themselves).
3. What is left is smeared (closing with a kernel of about half a text-line height) into
   blobs; each blob is judged on its own ink:

   * size: height 1-8 text lines, width ≥ 4 text lines and ≥ 1.8× the height (square
     ornaments and drop initials fail), under 6 % of the page area;
   * stroke density: ink covers 2-30 % of the blob box (solid logos and photos are denser,
     specks sparser);
   * cursive connectivity: the longest connected stroke is ≥ 1.8 text lines wide, and the blob
     has few pieces for its width (printed words break into one piece per letter);
   * it is not mostly covered by confident text.

The text-line height is the median height of the page's OCR lines (a 200-DPI page: ~25 px).
A blob within three line heights below or beside a line mentioning "sign" passes with
looser size limits, since that is where signatures are expected.
"""

from __future__ import annotations

import re

import numpy as np
from PIL import Image

from workbench.engines.cpu.boxes import Box, Line, inter, median

WORD_CONF = 60.0
_SIGN = re.compile(r"sign", re.IGNORECASE)


def detect(image: Image.Image, lines: list[Line]) -> list[Box]:
    """Boxes (page_px) of likely handwritten signatures."""
    import cv2

    grey = np.asarray(image.convert("L"))
    h, w = grey.shape
    if h < 32 or w < 32:
        return []
    line_h = median([ln.height for ln in lines], 25.0)
    line_h = min(max(line_h, 10.0), 80.0)
    _, ink = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
    if ink.mean() > 0.5 * 255:  # mostly dark (photo, negative, black page): nothing to judge
        return []
    pad = int(0.15 * line_h)
    for ln in lines:
        for wd in ln.words or []:
            if wd.conf >= WORD_CONF:
                x0, y0, x1, y1 = (int(v) for v in wd.box)
                ink[max(y0 - pad, 0) : y1 + pad, max(x0 - pad, 0) : x1 + pad] = 0
    span = int(max(4 * line_h, 40))
    for kernel in ((span, 1), (1, span)):
        rules = cv2.morphologyEx(
            ink, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, kernel)
        )
        ink = cv2.subtract(ink, cv2.dilate(rules, np.ones((3, 3), np.uint8)))
    k = max(int(0.5 * line_h), 3)
    blobs = cv2.morphologyEx(ink, cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))
    n, _, stats, _ = cv2.connectedComponentsWithStats(blobs, connectivity=8)
    sign_lines = [ln.box for ln in lines if _SIGN.search(ln.text)]
    found: list[Box] = []
    for i in range(1, n):
        x, y, bw, bh, _ = (int(v) for v in stats[i])
        box = (float(x), float(y), float(x + bw), float(y + bh))
        near = any(_near(box, s, line_h) for s in sign_lines)
        if _is_signature(ink[y : y + bh, x : x + bw], box, line_h, w * h, near, lines):
            found.append(box)
    return found


def _is_signature(
    crop: np.ndarray, box: Box, line_h: float, page_area: int, near: bool, lines: list[Line]
) -> bool:
    import cv2

    bw, bh = box[2] - box[0], box[3] - box[1]
    min_h, max_h, min_w = (0.8, 10.0, 3.5) if near else (1.0, 8.0, 4.0)
    if not (min_h * line_h <= bh <= max_h * line_h and bw >= min_w * line_h):
        return False
    if bw < 1.8 * bh:  # signatures are written along a line: wide, not square like initials
        return False
    if bw * bh > 0.06 * page_area:
        return False
    density = float((crop > 0).mean())
    if not 0.02 <= density <= 0.30:
        return False
    _, _, stats, _ = cv2.connectedComponentsWithStats(crop, connectivity=8)
    pieces = [s for s in stats[1:] if s[4] >= 0.02 * line_h * line_h]
    if not pieces:
        return False
    longest = max(int(s[2]) for s in pieces)
    if longest < 1.8 * line_h:
        return False
    if len(pieces) > max(4.0, 1.2 * bw / line_h):
        return False
    confident = sum(inter(box, wd.box) for ln in lines for wd in ln.words if wd.conf >= WORD_CONF)
    return confident < 0.3 * bw * bh


def _near(blob: Box, label: Box, line_h: float) -> bool:
    gap = 3 * line_h
    return (
        blob[0] < label[2] + 12 * line_h
        and blob[2] > label[0] - 12 * line_h
        and blob[1] < label[3] + gap
        and blob[3] > label[1] - gap
    )
