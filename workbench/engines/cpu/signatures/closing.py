"""The closing block of a handwritten letter: where its signature is. :mod:`.ink` calls
:func:`closing_line` on a page whose ink OCR does not explain (the ink-level rules it leans
on are in :mod:`.rules`).

On a handwritten page every line is ink that OCR does not explain, so the blob test has no
contrast. There a signature is found where a letter puts it: among the last two ink lines,
indented well past the body's median line start (a closing is set to the right), shorter
than a body line, taller than one (a name is written larger, with flourishes), with only
margin below it, or above an addressee's or a title's lines (the third line from the end,
when the two below it each start an indent left of it and are shorter).

* A line that also holds words at the left ("best advisers — Yrs [name]") gives its widest
  piece right of the indent, joined with the pieces beside it that are words of the same
  name (right of the indent, at most two lines away, at least half as tall, ending by the
  text's right edge: "Augusta  Evans Wilson" written with wide gaps), and a descender written
  apart that hangs from it (:func:`_whole_name`, :func:`_with_descenders`).
* A line right under a closing phrase (a short line standing apart, right of the indent) is
  the name wherever it starts and however low it is, unless it starts at the margin well
  left of the closing (an addressee or a date: :func:`_under_closing`); such a name with
  shorter lines below it (an address) is taken before them (:func:`_signed_above`).
* Where a phrase's flourish dips into the name's line, the name is the piece written under
  it (:func:`_lowest`); a word on the last line's baseline that rises into the line above
  continues the text (:func:`_hangs_from_above`).
* A blob several lines tall that starts with the body and is as long as a body line is text
  whose lines touch: the letter goes on below it, so no line above it closes the letter.

All boxes ``page_px``; ``line_h`` is the text-line height in pixels.
"""

from __future__ import annotations

import numpy as np

from workbench.engines.cpu.boxes import Box, median
from workbench.engines.cpu.signatures.rules import MERGED, TALLER

INDENT = 0.15  # a closing starts this share of the text width right of the body's median start
SHORT = 0.8  # ...and is at most this share of the text width long
LAST = 2  # the closing is among this many last lines (three let in more than it found)
NAME = 4.0  # ...and at least this many line heights long
NAME_MERGED = 3.0  # ...or this many where lines touch (the height then holds the loops)
BASELINE = 0.3  # a word on the baseline of the words left of it, within this many lines...
RISE = 1.2  # ...rising this many lines above them, touches the line above
CLOSE_GAP = 1.5  # a name under a closing phrase starts within this many lines below it...
CLOSE_LEFT = 0.2  # ...and at most this share of the text width left of it (an addressee: more)


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
