"""Handwritten signatures from ink analysis (no bundled model has a signature class).

A signature is ink that confident OCR does not explain, written larger than the page's print
in long connected strokes. Steps, on the page image (all boxes ``page_px``):

1. Ink mask: Otsu threshold of the grey page.
2. Explained ink is erased: ruling lines (morphological opening with horizontal and vertical
   kernels three text lines long: form rules, field borders, signature *lines* themselves) and
   the boxes of OCR words read with confidence ≥ ``WORD_CONF``, except *tall* words
   (≥ ``TALL`` text lines) read with less than ``SURE_CONF`` or lying near a signing cue: OCR
   reads a hand-printed name with fair confidence (Tesseract 60-80, RapidOCR up to 97), while
   on the printed test pages no tall word scored under ``SURE_CONF`` except on an 1871 scan.
3. What is left is smeared into blobs (closing one text line wide, half a line high), and blobs
   side by side on one baseline, of alike height and closer than 1.2× their height, are joined
   (the words of one name). Each blob is judged on its own ink, first failed test recorded:

   * size: height 1-8 text lines (1.5-10 near a cue), width ≥ 4 lines (3.5 near a cue) and
     ≥ 1.8× the height (square ornaments, drop initials, stamps fail), under 6 % of the page;
   * place: not in the top 15 % of the page unless near a cue (headings, letterheads);
   * stroke density: ink covers 2-30 % of the blob box (solid logos and photos are denser,
     specks sparser);
   * connected writing: the widest connected stroke is ≥ 1.8 lines (1.5 near a cue), and the
     blob has few pieces for its width (printed words break into one piece per letter);
   * it is not mostly (≥ 30 %) covered by words OCR still explains.

The text-line height is the median height of the page's OCR lines (a 200-DPI page: ~25 px).
A cue is a line matching ``_CUE`` ("signature", "signed", "sincerely", ...); a blob within three
line heights below or beside it (twelve across) is "near".

Measured (``python benchmarks/signatures.py``, 200 DPI, Tesseract 5 + CDLA + RapidOCR): no
real signed page with a usable licence could be obtained offline, so the positives are five
real pen signatures (tests/data/signatures/) written into real forms, three placements each:
15 hits, 0 misses, median IoU 0.96 with the ink box. Negatives: 12 unsigned pages (born-digital
forms with empty signature fields, Census tables, 4 LaTeX pages, 2 book scans, an 1871 Senate
print whose signers are set in type): 0 false positives. Before this tuning (every word at 60
trusted, square closing, no word joining) 4 of the 15 got a detection, each of one word only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
from PIL import Image

from workbench.engines.cpu.boxes import Box, Line, inter, median

WORD_CONF = 60.0  # OCR words at least this confident explain their ink...
SURE_CONF = 90.0  # ...but a tall word needs this much, and none near a cue is trusted
TALL = 1.7  # word height, in text lines, from which a word counts as tall
_CUE = re.compile(r"sign|sincerely|yours truly|faithfully|respectfully", re.IGNORECASE)


@dataclass
class Blob:
    """One candidate: its box and the measurements it was judged on (for benchmarks)."""

    box: Box
    near_cue: bool
    height: float  # in text lines
    width: float  # in text lines
    density: float  # share of the box that is ink
    longest: float  # widest connected piece, in text lines
    pieces: int
    covered: float  # share of the box under still-trusted OCR words
    reason: str  # first failed test; "" for a signature

    @property
    def ok(self) -> bool:
        return not self.reason


def detect(image: Image.Image, lines: list[Line]) -> list[Box]:
    """Boxes (page_px) of likely handwritten signatures."""
    return [b.box for b in measure(image, lines) if b.ok]


def measure(image: Image.Image, lines: list[Line], min_lines: float = 0.8) -> list[Blob]:
    """Every ink blob at least ``min_lines`` text lines tall, with its verdict."""
    import cv2

    grey = np.asarray(image.convert("L"))
    h, w = grey.shape
    if h < 32 or w < 32:
        return []
    line_h = min(max(median([ln.height for ln in lines], 25.0), 10.0), 80.0)
    _, ink = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
    if ink.mean() > 0.5 * 255:  # mostly dark (photo, negative, black page): nothing to judge
        return []
    span = int(max(3 * line_h, 30))
    for kernel in ((span, 1), (1, span)):
        rules = cv2.morphologyEx(
            ink, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, kernel)
        )
        ink = cv2.subtract(ink, cv2.dilate(rules, np.ones((3, 3), np.uint8)))
    cues = [ln.box for ln in lines if _CUE.search(ln.text)]
    trusted = [wd.box for ln in lines for wd in ln.words if _trusted(wd.box, wd.conf, line_h, cues)]
    pad = int(0.15 * line_h)
    for x0, y0, x1, y1 in ((int(v) for v in b) for b in trusted):
        ink[max(y0 - pad, 0) : y1 + pad, max(x0 - pad, 0) : x1 + pad] = 0
    kernel_wh = (max(int(1.0 * line_h), 3), max(int(0.5 * line_h), 3))
    blobs = cv2.morphologyEx(
        ink, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, kernel_wh)
    )
    n, _, stats, _ = cv2.connectedComponentsWithStats(blobs, connectivity=8)
    boxes = [
        (float(x), float(y), float(x + bw), float(y + bh))
        for x, y, bw, bh, _ in (stats[i] for i in range(1, n))
        if bh >= min_lines * line_h
    ]
    found: list[Blob] = []
    for box in _join_words(boxes):
        x0, y0, x1, y1 = (int(v) for v in box)
        near = any(_near(box, c, line_h) for c in cues)
        found.append(_judge(ink[y0:y1, x0:x1], box, line_h, (w, h), near, trusted))
    return found


def _join_words(boxes: list[Box]) -> list[Box]:
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


def _trusted(box: Box, conf: float, line_h: float, cues: list[Box]) -> bool:
    if conf < WORD_CONF:
        return False
    if box[3] - box[1] < TALL * line_h:
        return True
    return conf >= SURE_CONF and not any(_near(box, c, line_h) for c in cues)


def _judge(
    crop: np.ndarray,
    box: Box,
    line_h: float,
    page: tuple[int, int],
    near: bool,
    trusted: list[Box],
) -> Blob:
    import cv2

    bw, bh = box[2] - box[0], box[3] - box[1]
    density = float((crop > 0).mean())
    _, _, stats, _ = cv2.connectedComponentsWithStats(crop, connectivity=8)
    pieces = [s for s in stats[1:] if s[4] >= 0.02 * line_h * line_h]
    longest = max((int(s[2]) for s in pieces), default=0) / line_h
    covered = sum(inter(box, t) for t in trusted) / max(bw * bh, 1.0)
    blob = Blob(box, near, bh / line_h, bw / line_h, density, longest, len(pieces), covered, "")
    min_h, max_h, min_w, min_long = (1.5, 10.0, 3.5, 1.5) if near else (1.0, 8.0, 4.0, 1.8)
    if not min_h <= blob.height <= max_h:
        blob.reason = "height"
    elif blob.width < min_w or bw < 1.8 * bh:  # written along a line: wide, not square
        blob.reason = "shape"
    elif bw * bh > 0.06 * page[0] * page[1]:
        blob.reason = "area"
    elif not near and (box[1] + box[3]) / 2 < 0.15 * page[1]:  # headings, letterheads
        blob.reason = "top of page"
    elif not 0.02 <= density <= 0.30:
        blob.reason = "density"
    elif longest < min_long:
        blob.reason = "no long stroke"
    elif len(pieces) > max(4.0, 1.2 * blob.width):
        blob.reason = "too many pieces"
    elif covered >= 0.3:
        blob.reason = "covered by text"
    return blob


def _near(blob: Box, label: Box, line_h: float) -> bool:
    gap = 3 * line_h
    return (
        blob[0] < label[2] + 12 * line_h
        and blob[2] > label[0] - 12 * line_h
        and blob[1] < label[3] + gap
        and blob[3] > label[1] - gap
    )
