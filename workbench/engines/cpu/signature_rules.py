"""Page-level rules of the signature detector (:mod:`signatures` judges single blobs).

* :func:`ink_mask`: ink against the paper's own brightness (the page divided by a blurred
  closing of itself), so that a phone photo's shading and tinted paper are not ink.
* :func:`closing_signature`: on a handwritten page every line is ink that OCR does not
  explain, so the blob test has no contrast. There a signature is found where a letter puts
  it: among the last two ink lines, indented well past the body's median line start (a
  closing is set to the right), shorter than a body line, taller than one (a name is written
  larger, with flourishes), with only margin below it, or above an addressee's or a title's
  lines (the third line from the end, when the two below it each start an indent left of it
  and are shorter). A line that also holds words at the left ("best advisers — Yrs [name]")
  gives its widest piece right of the indent, joined with the pieces beside it that are
  words of the same name (right of the indent, at most two lines away, at least half as
  tall, ending by the text's right edge: "Augusta  Evans Wilson" written with wide gaps), and
  a descender written apart that hangs from it. A line right under a closing phrase (a short
  line standing apart, right of the indent) is the name wherever it starts and however low
  it is, unless it starts at the margin well left of the closing (an addressee or a date:
  :func:`_under_closing`); where a phrase's flourish dips into the name's line, the name is
  the piece written under it (:func:`_lowest`), and a word on the last line's baseline that
  rises into the line above continues the text (:func:`_hangs_from_above`). A blob several
  lines tall that starts with the
  body and is as long as a body line is text whose lines touch: the letter goes on below it,
  so no line above it closes the letter.
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

from workbench.engines.cpu.boxes import Box, median

INDENT = 0.15  # a closing starts this share of the text width right of the body's median start
SHORT = 0.8  # ...and is at most this share of the text width long
LAST = 2  # the closing is among this many last lines (three let in more than it found)
TALLER = 1.5  # a signature is written larger than the text: at least this many line heights
NAME = 4.0  # ...and at least this many line heights long
NAME_MERGED = 3.0  # ...or this many where lines touch (the height then holds the loops)
VALLEY = 0.25  # a closing box is split where its rows hold at most this share of the peaks
SHEET = 3.0  # an upright line this many text lines long is the sheet's edge or fold, not ink
BASELINE = 0.3  # a word on the baseline of the words left of it, within this many lines...
RISE = 1.2  # ...rising this many lines above them, touches the line above
CLOSE_GAP = 1.5  # a name under a closing phrase starts within this many lines below it...
CLOSE_LEFT = 0.2  # ...and at most this share of the text width left of it (an addressee: more)
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


def ink_lines(boxes: list[Box]) -> list[list[Box]]:
    """Blobs grouped into text lines: a blob joins the line whose median band (median top to
    median bottom of its blobs) holds its centre, so a tall flourish does not chain lines."""
    lines: list[list[Box]] = []
    for b in sorted(boxes, key=lambda b: (b[1] + b[3]) / 2):
        mid = (b[1] + b[3]) / 2
        for ln in lines:
            if median([x[1] for x in ln]) <= mid <= median([x[3] for x in ln]):
                ln.append(b)
                break
        else:
            lines.append([b])
    return sorted(lines, key=lambda ln: median([x[3] for x in ln]))


def _span(ln: list[Box]) -> Box:
    xs0, ys0, xs1, ys1 = zip(*ln, strict=True)
    return (min(xs0), min(ys0), max(xs1), max(ys1))


def closing_signature(boxes: list[Box], line_h: float, name: float = NAME) -> Box | None:
    """The closing signature of a handwritten page, from its ink blobs (or None)."""
    found = closing_line(boxes, line_h, name)
    return found[0] if found is not None else None


def closing_line(
    boxes: list[Box], line_h: float, name: float = NAME
) -> tuple[Box, float | None] | None:
    """:func:`closing_signature`, and where the name stands on a line of its own under its
    closing phrase, the bottom of that phrase (a box reaching no higher holds no phrase to cut
    off: :func:`name_part`)."""
    lines = [ln for ln in ink_lines(boxes) if _span(ln)[2] - _span(ln)[0] >= 2 * line_h]
    if len(lines) < 3:  # not a page of writing
        return None
    spans = [_span(ln) for ln in lines]
    start = median([s[0] for s in spans])
    right = float(np.percentile([s[2] for s in spans], 90))
    width = right - start
    if width < 8 * line_h:
        return None
    tail = lines[-LAST:]
    if len(lines) > LAST and _address(spans[-LAST:], spans[-LAST - 1], width):
        tail = lines[-LAST - 1 :]
    indent = start + INDENT * width
    order = list(range(len(lines) - 1, len(lines) - 1 - len(tail), -1))
    if _signed_above(lines, spans, indent, width, line_h, name):
        order.insert(0, len(lines) - LAST - 1)  # a name above its address, both under it
    for i in order:
        pieces = _segments(lines[i], line_h)
        best = _lowest(pieces, max(pieces, key=lambda s: s[2] - s[0]))
        if _body_lines(spans[i], start, width, line_h):
            break  # the letter goes on below: what is above is not its closing
        under = bool(i) and _under_closing(best, spans[i - 1], indent, width, line_h)
        if under:
            if best[2] - best[0] >= name * line_h:  # a name under its closing phrase
                indent = min(indent, best[0])
            else:
                continue
        else:
            if best[0] < indent:
                continue  # starts with the body: text, not a closing
            if best[2] - best[0] > SHORT * width or best[2] - best[0] < name * line_h:
                continue
            if best[3] - best[1] < TALLER * line_h:
                continue  # as low as a line of the text: the end of a paragraph set in
            if any(_hangs_from_above(best, p, line_h) for p in pieces if p[2] <= best[0]):
                continue  # a word of the line touching the line above: the letter goes on
        whole = _whole_name(best, pieces, indent, right + line_h, line_h)
        return _with_descenders(whole, boxes, line_h), spans[i - 1][3] if under else None
    return None


def _hangs_from_above(word: Box, left: Box, line_h: float) -> bool:
    """``word`` sits on the baseline of the words left of it on its line (bottoms within
    ``BASELINE`` line heights) yet rises more than ``RISE`` above their tops: its ascenders
    touch the line above (J. A. Early's "him for civil" joined to "that"), where a name beside
    words ("best advice — Yrs [name]") shares their line or reaches below it."""
    return abs(word[3] - left[3]) <= BASELINE * line_h and left[1] - word[1] > RISE * line_h


def _lowest(pieces: list[Box], best: Box) -> Box:
    """``best``, or the widest of the pieces written under it (overlapping its columns, their
    top below its middle, written along a line: twice as wide as tall): a closing phrase
    whose flourish dips into the name's line is grouped with the name (Charles Foster's
    "Yours truly" above "Charles  Foster")."""
    mid = (best[1] + best[3]) / 2
    below = [
        p
        for p in pieces
        if p[1] > mid
        and min(p[2], best[2]) > max(p[0], best[0])
        and p[2] - p[0] >= 2 * (p[3] - p[1])
    ]
    return max(below, key=lambda p: p[2] - p[0]) if below else best


def _signed_above(
    lines: list[list[Box]],
    spans: list[Box],
    indent: float,
    width: float,
    line_h: float,
    name: float,
) -> bool:
    """The third line from the end is a name under its closing phrase with the last two
    lines shorter than it below (an address or a place and date written under a name: Frank
    H. Willard's "1900 Oakmont / Tampa", whose flourish would pass for a name)."""
    if len(lines) < LAST + 2:
        return False
    i = len(lines) - LAST - 1
    best = max(_segments(lines[i], line_h), key=lambda s: s[2] - s[0])
    long = best[2] - best[0]
    below = all(b[2] - b[0] < long for b in spans[i + 1 :])
    return (
        long >= name * line_h
        and below
        and _under_closing(best, spans[i - 1], indent, width, line_h)
    )


def _under_closing(name: Box, above: Box, indent: float, width: float, line_h: float) -> bool:
    """``name`` is written under a closing phrase ("Yours truly," "Respectfully"): the line
    right above it stands apart from the body (starts right of the indent, at most ``SHORT``
    of the text width long), ends within ``CLOSE_GAP`` line heights above it, and the name
    starts no more than ``CLOSE_LEFT`` of the text width left of it (a date or an addressee
    below a name starts at the margin). Such a name may start anywhere and be as low as a line
    of the text (Julia Ward Howe's, Neal Dow's, O. W. Holmes's from the body's edge)."""
    closing = above[0] >= indent and above[2] - above[0] <= SHORT * width
    near = name[1] - above[3] <= CLOSE_GAP * line_h
    tall = name[3] - name[1] >= line_h
    margin = name[0] < min(indent, above[0] - CLOSE_LEFT * width)
    return closing and near and tall and not margin


def _with_descenders(name: Box, boxes: list[Box], line_h: float) -> Box:
    """``name`` with the narrow pieces that hang from it: a loop or descender written apart
    from its word (the "g" of Wilson's "Augusta" reaches a line below the name), starting
    inside the name's band and within its columns, at most two lines wide and three tall. An
    address below a name starts left of it and is wider."""
    out = name
    for b in boxes:
        inside = name[0] <= b[0] and b[2] <= name[2] and name[1] < b[1] <= name[3] < b[3]
        if inside and b[2] - b[0] <= 2 * line_h and b[3] - b[1] <= 3 * line_h:
            out = (out[0], out[1], out[2], max(out[3], b[3]))
    return out


def _whole_name(best: Box, pieces: list[Box], indent: float, edge: float, line_h: float) -> Box:
    """``best`` with the pieces beside it on its line that are words of the same name: right
    of the indent, at most two line heights away, at least half as tall, ending before
    ``edge`` (the text's right edge and a line height). The whole may be longer than a
    closing on its own may be: every piece starts right of the indent, so it is no body line
    ("Augusta  Evans Wilson", written with wide gaps, is 0.84 of the text width)."""
    out = best
    for p in sorted(pieces, key=lambda p: min(abs(p[0] - out[2]), abs(out[0] - p[2]))):
        gap = max(p[0] - out[2], out[0] - p[2])
        if p == best or p[0] < indent or not 0 < gap <= 2 * line_h:
            continue
        if p[3] - p[1] < 0.5 * (best[3] - best[1]):
            continue
        joined = (min(out[0], p[0]), min(out[1], p[1]), max(out[2], p[2]), max(out[3], p[3]))
        if joined[2] <= edge:
            out = joined
    return out


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


def _body_lines(span: Box, start: float, width: float, line_h: float) -> bool:
    """Lines of the letter's text whose strokes touch: a blob several lines tall that starts
    with the body and runs as long as a body line (an address block below a name is short)."""
    tall = span[3] - span[1] >= MERGED * line_h
    return tall and span[0] < start + INDENT * width and span[2] - span[0] > SHORT * width


def _address(below: list[Box], name: Box, width: float) -> bool:
    """Lines under a name that are an address or a title, not more of the letter: each starts
    an indent left of the name and is shorter than it."""
    return all(b[0] <= name[0] - INDENT * width and b[2] - b[0] < name[2] - name[0] for b in below)


def _segments(ln: list[Box], line_h: float) -> list[Box]:
    """A line cut where it has a gap wider than one line height, and between blobs that
    overlap across (they lie at different heights: the end of the line above dipping into a
    signature's first stroke)."""
    out: list[Box] = []
    for b in sorted(ln):
        if out and 0 <= b[0] - out[-1][2] <= line_h:  # overlapping: different heights
            last = out[-1]
            out[-1] = (last[0], min(last[1], b[1]), max(last[2], b[2]), max(last[3], b[3]))
        else:
            out.append(b)
    return out


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
