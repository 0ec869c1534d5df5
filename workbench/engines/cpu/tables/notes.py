"""Notes set under a table leave it: ``table_notes``, after lines are assigned to boxes.

A table box drawn down to the page's foot takes in the notes printed under the table ("–
Represents zero. X Not applicable. 1 Buying, receiving, ...", "Source: U.S. Department of
...", "Note: ..."), and they came out as rows of one cell spanning the table. From the
table's bottom up, each row of lines (vertical overlap) that is a note goes to a text box of
its own under the table (native label ``table_note``; a new one at each note mark, so that
"1 Buying ..." and "Source: ..." stay two paragraphs), and the table's box ends above them.

Likewise from the top down: lines alone in their row, centred on the whole table (within
``CENTRE`` of its width), narrower than it and not mostly numbers are titles set above it
(a receipt's shop name and address, which the layout model boxed with the items as one
table): they go to a text box above the table.

A row is a note when it is one line alone in its row, starting at the table's left edge
(within ``EDGE`` of the table's width: notes are often indented), with no more than a third
of its words numbers, and either prose across the table (``NOTE_WORDS`` words or more, over
``WIDE`` of the table's width) or opened by a note mark: "Source", "Note(s)", "Sources",
or a footnote mark (one symbol, digit or letter, or a dash) before a capitalised word. A
table's own last row is never alone in its row, or is a short label: it stays.
"""

from __future__ import annotations

import re

from workbench.engines.cpu.boxes import LayoutBox, Line, union_all
from workbench.engines.cpu.labels import canonical
from workbench.engines.cpu.page import Page
from workbench.engines.cpu.tables.fragments import is_numeric
from workbench.schema import Label

NOTE_WORDS = 6  # fewer words and no note mark: a table row (a label wrapped to its own line)
WIDE = 0.4  # a note without a mark runs over this share of the table's width
EDGE = 0.1  # a note starts this close (share of the table's width) to its left edge
CENTRE = 0.08  # a title line's centre this close (share of the width) to the table's centre
WIDE_HEAD = 0.9  # ... and narrower than this share of it (a full-width line is a row)
_MARK = re.compile(r"^(?:(?:Sources?|Notes?|NOTES?|SOURCES?)\b|[*†‡§¶#a-z0-9¹²³⁴-⁹–—-]\s+[A-Z(\[])")


def table_notes(page: Page) -> Page:
    """Notes under each table go to a text box of their own (module docstring)."""
    layout, members = page.layout, page.members
    for k in range(len(layout)):
        b = layout[k]
        group = members.get(k)
        if canonical(b.native) is not Label.TABLE or not group or len(group) < 3:
            continue
        notes, heads = _notes(group), _heads(group)
        if (not notes and not heads) or len(notes) + len(heads) >= len(group) - 1:
            continue
        keep = [ln for ln in group if not any(ln is n for n in notes + heads)]
        members[k] = keep
        x0, y0, x1, y1 = b.box
        top = min([ln.box[1] for ln in notes] + [y1])
        bottom = max(ln.box[3] for ln in keep)
        start = max([ln.box[3] for ln in heads] + [y0])
        layout[k] = LayoutBox(b.native, (x0, start, x1, min(top, max(bottom, start))), b.score)
        if heads:
            layout.append(LayoutBox("table_note", union_all([ln.box for ln in heads]), b.score))
            members[len(layout) - 1] = sorted(heads, key=lambda ln: ln.box[1])
        for part in _paragraphs(notes):
            layout.append(LayoutBox("table_note", union_all([ln.box for ln in part]), b.score))
            members[len(layout) - 1] = part
    return page


def _notes(group: list[Line]) -> list[Line]:
    """The lines at the foot of ``group`` that are notes, bottom up."""
    left = min(ln.box[0] for ln in group)
    right = max(ln.box[2] for ln in group)
    width = max(right - left, 1.0)
    rows = _rows(group)
    out: list[Line] = []
    for row in reversed(rows[1:]):
        if len(row) != 1 or not _is_note(row[0], left, width):
            break
        out.append(row[0])
    return out


def _heads(group: list[Line]) -> list[Line]:
    """The lines at the top of ``group`` that are centred titles over the whole table."""
    left = min(ln.box[0] for ln in group)
    right = max(ln.box[2] for ln in group)
    width = max(right - left, 1.0)
    out: list[Line] = []
    for row in _rows(group)[:-1]:
        ln = row[0]
        centre = (ln.box[0] + ln.box[2]) / 2
        words = ln.text.split()
        if (
            len(row) != 1
            or abs(centre - (left + right) / 2) > CENTRE * width
            or ln.box[2] - ln.box[0] > WIDE_HEAD * width
            or 3 * sum(is_numeric(w) for w in words) > len(words)
        ):
            break
        out.append(ln)
    return out


def _is_note(ln: Line, left: float, width: float) -> bool:
    if ln.box[0] - left > EDGE * width:
        return False
    words = ln.text.split()
    if not words or 3 * sum(is_numeric(w) for w in words) > len(words):
        return False
    wide = ln.box[2] - ln.box[0] > WIDE * width
    return bool(_MARK.match(ln.text)) or (len(words) >= NOTE_WORDS and wide)


def _paragraphs(notes: list[Line]) -> list[list[Line]]:
    """Note lines top down, a new paragraph at each note mark ("Source:" after "1 Buying")."""
    out: list[list[Line]] = []
    for ln in sorted(notes, key=lambda ln: ln.box[1]):
        if out and not _MARK.match(ln.text):
            out[-1].append(ln)
        else:
            out.append([ln])
    return out


def _rows(lines: list[Line]) -> list[list[Line]]:
    """``lines`` in rows by vertical overlap (half the shorter line's height), top down."""
    rows: list[list[Line]] = []
    span: tuple[float, float] | None = None
    for ln in sorted(lines, key=lambda ln: ln.middle):
        y0, y1 = ln.box[1], ln.box[3]
        if span is not None and min(y1, span[1]) - max(y0, span[0]) >= 0.5 * max(y1 - y0, 1.0):
            rows[-1].append(ln)
            span = (min(span[0], y0), max(span[1], y1))
        else:
            rows.append([ln])
            span = (y0, y1)
    return rows
