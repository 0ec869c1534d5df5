"""Page-level rules of the signature detector (:mod:`.ink` judges single blobs; the
closing block of a handwritten letter is :mod:`.closing`).

* :func:`ink_mask`: ink against the paper's own brightness (the page divided by a blurred
  closing of itself), so that a phone photo's shading and tinted paper are not ink.
* :func:`sheet_lines`: a photographed sheet's edges and folds are upright lines that lean a
  little; strokes touching them would join whole paragraphs into one blob.
* :func:`split_lines`: a large hand's loops and descenders touch the next line, so one blob
  can hold several lines (Tracy 1892: "Yours truly" and the name, the line above them). Where
  no closing is found among the blobs, blobs ``MERGED`` lines tall are cut at the row valleys
  between lines and at column gaps wider than a line; if the last lines still touch, the last
  line is the widest run of columns whose lowest ink lies within a line of the bottom (the
  line above only hangs strokes into it). There a name may be ``NAME_MERGED`` lines long
  (the measured height holds the hand's loops).
* :func:`name_part`: a closing phrase ("Sincerely", "Very truly yours,") whose strokes touch
  the name below it joins the name's blob; where the blob's row profile has a clear valley
  (at most ``VALLEY`` of the lower of the two peaks around it) with a name at least
  ``TALLER`` lines tall below it, only the part below the valley is kept.
* :func:`is_grid`: a keypad, keyboard or grid of buttons is many separate pieces of alike
  size on a regular pitch; a pen name is a few joined strokes of uneven width.
* :func:`is_note`: a handwritten line amid print that starts at the body's left edge and runs
  as long as a printed line is a note, not a signature.
* :func:`is_field_entry`: handwriting written after a printed label on its row ("STREET
  Sodus, N.Y.") fills a form's field; a signature's label ("Signature") is a cue instead.

All boxes ``page_px``; ``line_h`` is the text-line height in pixels.
"""

from __future__ import annotations

import itertools

import numpy as np

from workbench.engines.cpu.boxes import Box

TALLER = 1.5  # a signature is written larger than the text: at least this many line heights
VALLEY = 0.25  # a closing box is split where its rows hold at most this share of the peaks
SHEET = 3.0  # an upright line this many text lines long is the sheet's edge or fold, not ink
LABEL_GAP = 12.0  # handwriting this many text lines after a printed label on its row fills it
MERGED = 3.0  # a blob this many line heights tall is lines whose strokes touch: cut into lines


def ink_mask(grey: np.ndarray) -> np.ndarray:
    """255 where the page is ink: darker than 0.75 of the local paper brightness (or than
    Otsu's cut of the normalised page, whichever is darker)."""
    import cv2

    h, w = grey.shape
    small = cv2.resize(grey, (max(w // 4, 1), max(h // 4, 1)), interpolation=cv2.INTER_AREA)
    k = max(int(min(w, h) / 4 / 60), 3) | 1  # wider than a pen stroke, narrower than a margin
    paper = cv2.morphologyEx(small, cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))
    paper = cv2.GaussianBlur(paper, (k, k), 0)
    paper = cv2.resize(paper, (w, h), interpolation=cv2.INTER_LINEAR)
    norm = np.clip(grey.astype(np.float32) * 255.0 / np.maximum(paper, 1), 0, 255).astype(np.uint8)
    otsu, _ = cv2.threshold(norm, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    cut = min(float(otsu), 0.75 * 255)
    return np.where(norm < cut, 255, 0).astype(np.uint8)


def sheet_lines(ink: np.ndarray, line_h: float) -> np.ndarray:
    """Ink less upright straight lines ``SHEET`` text lines long that may lean a little (a
    photographed sheet's edges and folds, a page's frame): the ink is widened across by a
    tenth of a line before the upright runs are opened, so a line that drifts a pixel every
    few dozen rows still holds one run, while a pen stroke's slant (a pixel every two or three
    rows) does not. Strokes that touch such a line (a comma at the edge) would otherwise join
    whole paragraphs to it. Lines across are left: there they are a name's underline or
    flourish more often than the sheet's edge (erasing them broke Beauregard's name)."""
    import cv2

    span = int(max(SHEET * line_h, 30))
    wide = cv2.dilate(ink, np.ones((1, max(int(0.1 * line_h), 3)), np.uint8))
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (1, span))
    straight = cv2.morphologyEx(wide, cv2.MORPH_OPEN, kernel)
    return cv2.subtract(ink, cv2.dilate(straight, np.ones((3, 3), np.uint8)))


def name_part(ink: np.ndarray, box: Box, line_h: float) -> Box:
    """The closing ``box`` less a text line above the name (see the module docstring); the box
    itself where its rows show no clear valley."""
    x0, y0, x1, y1 = (int(v) for v in box)
    crop = ink[y0:y1, x0:x1] > 0
    k = max(int(line_h / 4), 1)  # a pen stroke's slant leaves a few rows thin: smooth them
    rows = np.convolve(crop.sum(axis=1).astype(float), np.ones(k) / k, mode="same")
    best, cut = VALLEY, 0
    for y in range(int(0.5 * line_h), len(rows) - int(TALLER * line_h)):
        above, below = rows[:y].max(), rows[y:].max()
        share = rows[y] / max(min(above, below), 1.0)
        if share <= best:
            best, cut = share, y
    if not cut:
        return box
    ys, xs = np.nonzero(crop[cut:])
    return (float(x0 + xs.min()), float(y0 + cut + ys.min()), float(x0 + xs.max() + 1), box[3])


def split_lines(ink: np.ndarray, boxes: list[Box], line_h: float) -> list[Box]:
    """``boxes`` with every blob at least ``MERGED`` line heights tall cut into its lines: at
    the rows between two text lines (a local minimum of the row profile at most ``VALLEY`` of
    the lower peak within a line height either side), each band then cut at column gaps wider
    than a line height (the words of a line: "Yours &c" after a gap), each piece shrunk to its
    ink. A large hand's loops and descenders touch the line below, so one blob can hold a
    whole letter; its closing is only found line by line."""
    out: list[Box] = []
    for box in boxes:
        if box[3] - box[1] < MERGED * line_h:
            out.append(box)
            continue
        x0, y0, x1, y1 = (int(v) for v in box)
        crop = ink[y0:y1, x0:x1] > 0
        cuts = [0, *_row_cuts(crop, line_h), crop.shape[0]]
        last = None
        if cuts[-1] - cuts[-2] >= MERGED * line_h:  # the last lines still touch
            cut, left, right = _last_line(crop[cuts[-2] :], line_h)
            if cut:
                last = _box(x0 + left, y0 + cuts[-2] + cut, x0 + right, y1)
                cuts[-1] = cuts[-2] + cut
        for top, bottom in itertools.pairwise(cuts):
            for left, right in _runs(np.asarray(crop[top:bottom].any(axis=0)), line_h):
                ys = np.nonzero(crop[top:bottom, left:right].any(axis=1))[0]
                if len(ys):
                    out.append(_box(x0 + left, y0 + top + ys[0], x0 + right, y0 + top + ys[-1] + 1))
        out += [last] if last is not None else []
    return out


def _box(x0: int, y0: int, x1: int, y1: int) -> Box:
    return (float(x0), float(y0), float(x1), float(y1))


def _last_line(crop: np.ndarray, line_h: float) -> tuple[int, int, int]:
    """Where the last of touching lines lies (top row, left and right column; top 0: not
    found): the widest run of columns whose lowest ink lies within a line height of the
    bottom (the last line's own; the line above only hangs strokes into it), from the row
    valley above it as :func:`name_part` finds one."""
    h = crop.shape[0]
    low = h - 1 - np.argmax(crop[::-1], axis=0)
    runs = _runs(crop.any(axis=0) & (low >= h - line_h), line_h)
    if not runs:
        return 0, 0, 0
    left, right = max(runs, key=lambda r: r[1] - r[0])
    part = name_part(crop.astype(np.uint8), _box(left, 0, right, h), line_h)
    return int(part[1]), left, right


def _row_cuts(crop: np.ndarray, line_h: float) -> list[int]:
    """Rows of ``crop`` between two text lines, at least half a line height apart."""
    k = max(int(line_h / 4), 1)
    rows = np.convolve(crop.sum(axis=1).astype(float), np.ones(k) / k, mode="same")
    reach = max(int(line_h), 1)
    shares = []
    for y in range(1, len(rows) - 1):
        above, below = rows[max(y - reach, 0) : y].max(), rows[y + 1 : y + 1 + reach].max()
        share = rows[y] / max(min(above, below), 1.0)
        if share <= VALLEY and rows[y] <= rows[y - 1] and rows[y] <= rows[y + 1]:
            shares.append((share, y))
    cuts: list[int] = []
    for _, y in sorted(shares):
        if all(abs(y - c) >= 0.5 * line_h for c in cuts):
            cuts.append(y)
    return sorted(cuts)


def _runs(cols: np.ndarray, line_h: float) -> list[tuple[int, int]]:
    """Column ranges holding ink, a gap of at most a line height bridged."""
    xs = np.nonzero(cols)[0]
    if not len(xs):
        return []
    breaks = np.nonzero(np.diff(xs) > line_h)[0]
    starts = [int(xs[0]), *(int(xs[i + 1]) for i in breaks)]
    ends = [*(int(xs[i]) + 1 for i in breaks), int(xs[-1]) + 1]
    return list(zip(starts, ends, strict=True))


def is_grid(stats: np.ndarray, line_h: float) -> bool:
    """Connected pieces (cv2 stats rows: x, y, w, h, area) of alike size on a regular pitch:
    at least six pieces, heights and widths within 35 % of their median, and the gaps between
    neighbours in reading order within 40 % of their median."""
    pieces = [s for s in stats if s[4] >= 0.05 * line_h * line_h]
    if len(pieces) < 6:
        return False
    ws = np.array([p[2] for p in pieces], float)
    hs = np.array([p[3] for p in pieces], float)
    if np.any(np.abs(ws - np.median(ws)) > 0.35 * np.median(ws)):
        return False
    if np.any(np.abs(hs - np.median(hs)) > 0.35 * np.median(hs)):
        return False
    steps = np.diff(sorted(float(p[0] + p[2] / 2) for p in pieces))
    steps = steps[steps > 0.5 * np.median(ws)]
    pitch = np.median(steps) if len(steps) else 0.0
    return len(steps) >= 2 and bool(np.all(np.abs(steps - pitch) <= 0.4 * pitch))


def is_note(box: Box, body_start: float, body_width: float, line_h: float) -> bool:
    """A handwritten line that starts at the printed body's left edge and is as long as most
    of a printed line."""
    if body_width <= 0:
        return False
    starts_with_body = abs(box[0] - body_start) <= 1.5 * line_h
    return starts_with_body and box[2] - box[0] >= 0.6 * body_width


def is_field_entry(box: Box, labels: list[Box], line_h: float) -> bool:
    """Handwriting written after a printed label on its row ("STREET  Sodus, N.Y.", "LAST
    Mills"): a form's field entry, not a signature (whose label, "Signature", is a cue and
    never gets here). The label ends left of the writing, at most ``LABEL_GAP`` text lines
    before it, and shares its row: at least half of the lower of the two heights overlaps."""
    for lab in labels:
        if lab[2] > box[0] + 0.5 * line_h:
            continue  # a word over or right of the writing (OCR's reading of it) is no label
        gap = box[0] - lab[2]
        overlap = min(box[3], lab[3]) - max(box[1], lab[1])
        low = min(box[3] - box[1], lab[3] - lab[1])
        if -0.5 * line_h <= gap <= LABEL_GAP * line_h and overlap >= 0.5 * low:
            return True
    return False
