"""Ink on a page image: the pixel work the signature search (:mod:`.ink`) judges on —
connected blobs of ink, ink not on the page's edges, the height of handwriting, ruled lines
erased. ``ink`` is a boolean mask (True: ink), ``line_h`` the body's line height in pixels;
OpenCV is imported when called."""

from __future__ import annotations

import numpy as np

from workbench.engines.cpu.boxes import Box, cover, median
from workbench.engines.cpu.signatures import rules


def blobs(ink: np.ndarray, line_h: float, min_lines: float, writing: bool) -> list[Box]:
    """Ink smeared into blobs: one text line wide and half a line high on a printed page; on
    a handwritten page only along the line (its lines are close)."""
    import cv2

    kw, kh = max(int(line_h), 3), max(int((0.1 if writing else 0.5) * line_h), 1)
    # padded: at the image's edge OpenCV's closing keeps whatever its dilation reached
    padded = cv2.copyMakeBorder(ink, kh, kh, kw, kw, cv2.BORDER_CONSTANT, value=0)
    closed = cv2.morphologyEx(
        padded, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (kw, kh))
    )
    blobs = closed[kh : kh + ink.shape[0], kw : kw + ink.shape[1]]
    n, _, stats, _ = cv2.connectedComponentsWithStats(blobs, connectivity=8)
    return [
        (float(x), float(y), float(x + bw), float(y + bh))
        for x, y, bw, bh, _ in (stats[i] for i in range(1, n))
        if bh >= min_lines * line_h
    ]


def off_edges(ink: np.ndarray, line_h: float) -> np.ndarray:
    """Ink less straight lines that lean a little (:func:`.rules.sheet_lines`) and
    every stroke that touches the image's edge or is a thin upright line three text lines
    tall: the edges, folds and shadow of a photographed sheet, which would join the writing
    near them into one blob."""
    import cv2

    ink = rules.sheet_lines(ink, line_h)
    _, labels, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    h, w = ink.shape
    x, y, bw, bh = stats[:, 0], stats[:, 1], stats[:, 2], stats[:, 3]
    edge = (x == 0) | (y == 0) | (x + bw >= w) | (y + bh >= h)
    edge |= (bw <= 0.5 * line_h) & (bh >= 3 * line_h)
    edge[0] = False
    return np.where(edge[labels], 0, ink).astype(np.uint8)


def writing_height(ink: np.ndarray, default: float) -> float:
    """Line height of handwriting: the median height of its words (ink closed along the
    line, pieces at least twice as wide as tall)."""
    import cv2

    k = max(ink.shape[1] // 60, 5)
    words = cv2.morphologyEx(ink, cv2.MORPH_CLOSE, np.ones((3, k), np.uint8))
    _, _, stats, _ = cv2.connectedComponentsWithStats(words, connectivity=8)
    hs = [int(s[3]) for s in stats[1:] if s[3] >= 8 and s[2] >= 2 * s[3]]
    return min(max(median([float(v) for v in hs], default), 10.0), 160.0)


def erase_rules(ink: np.ndarray, line_h: float) -> np.ndarray:
    """Ink less ruling lines: straight runs three text lines long, across or down."""
    import cv2

    span = int(max(3 * line_h, 30))
    for kernel in ((span, 1), (1, span)):
        ruled = cv2.morphologyEx(
            ink, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, kernel)
        )
        ink = cv2.subtract(ink, cv2.dilate(ruled, np.ones((3, 3), np.uint8)))
    return ink


def ink_share(ink: np.ndarray, box: Box) -> float:
    x0, y0, x1, y1 = (int(v) for v in box)
    crop = ink[y0:y1, x0:x1]
    return float((crop > 0).mean()) if crop.size else 0.0


def context(
    crop: np.ndarray,
    box: Box,
    line_h: float,
    body: tuple[float, float],
    figures: list[Box],
    labels: list[Box],
) -> str:
    """Why a blob that looks like a signature on its own is something else ("" if not)."""
    import cv2

    if any(cover(box, f) >= 0.8 for f in figures):
        return "inside a figure"
    _, _, stats, _ = cv2.connectedComponentsWithStats(crop, connectivity=8)
    if rules.is_grid(stats[1:], line_h):
        return "grid of alike pieces"
    if rules.is_note(box, body[0], body[1], line_h):
        return "note line"
    if rules.is_field_entry(box, labels, line_h):
        return "form field entry"
    return ""


def join_words(boxes: list[Box]) -> list[Box]:
    """Blobs side by side on one baseline, closer than their own height, are one name."""
    boxes = sorted(boxes)
    merged = True
    while merged:
        merged = False
        for i, a in enumerate(boxes):
            for j in range(i + 1, len(boxes)):
                b = boxes[j]
                ha, hb = a[3] - a[1], b[3] - b[1]
                overlap = min(a[3], b[3]) - max(a[1], b[1])
                gap = max(a[0], b[0]) - min(a[2], b[2])
                alike = min(ha, hb) >= 0.4 * max(ha, hb)
                if alike and overlap >= 0.5 * min(ha, hb) and gap <= 1.2 * max(ha, hb):
                    boxes[i] = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))
                    del boxes[j]
                    merged = True
                    break
            if merged:
                break
    return boxes
