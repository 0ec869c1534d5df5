"""A table of contents: one line per entry, "entry … page", never all its entries and then all
its page numbers.

A page's lines are put in rows (centres within half a line height). A row is an *entry* when it
ends in a page number (arabic, or roman) after a dot leader (``. . . .``, ``....``, ``…``), or
when its page number stands apart at its right, at the right edge of the other entries (a
chapter's entry in LaTeX has no leader). A page holds a table of contents when it has
``MIN_LEADERS`` leader entries, or ``MIN_BARE`` entries whose numbers stand apart at one right
edge (contents set without leaders); either way the page numbers never decrease down the page
(a table's column of figures after dot leaders does not keep to that). Its rows from the first
such entry to the last, with entries just before or after them (``NEAR`` enough) and the rows
between them inside the entries' columns (a part's title without a page), become one
``contents`` block whose lines are the entries in order, "• entry … page" each, which the
Markdown pass writes as list items (the leader as one ``…``). The layout model's boxes over
those rows (tables, text, titles, a number taken for a footer) give their lines up, so bold
chapter entries are not headings and the page numbers are not a column of their own.
"""

from __future__ import annotations

import re
from itertools import pairwise

from workbench.engines.cpu.boxes import Line, Word, same_frame, union_all
from workbench.engines.cpu.page import Block

MIN_LEADERS = 4  # entries with a dot leader that make a page a table of contents
MIN_BARE = 6  # ...or entries whose page numbers stand at one right edge, never decreasing
NEAR = 2.5  # entries without a leader before or after the leader entries: this close (rows)
RIGHT_EDGE = 0.03  # a bare page number this close (share of the page width) to the leader
#                    entries' right edge is an entry's number
_NUMBER = r"(\d{1,4}|[ivx]{1,6})"
_LEADER = re.compile(r"^(?P<entry>.*?\S)\s*(?:(?:\.\s*){3,}|…+\s*)\s*(?P<page>" + _NUMBER + r")$")
_PAGE = re.compile(r"^" + _NUMBER + r"$")
_SKIP = {"figure", "equation", "signature"}


def _rows(lines: list[Line]) -> list[list[Line]]:
    rows: list[list[Line]] = []
    for ln in sorted(lines, key=lambda ln: ln.middle):
        c = ln.middle
        if rows:
            r = rows[-1]
            rc = sum(x.middle for x in r) / len(r)
            near = abs(c - rc) < 0.5 * max(max(x.height for x in r), ln.height, 1.0)
            if near and same_frame(ln, r[0]):  # as boxes.rows: no turned label in a row
                r.append(ln)
                continue
        rows.append([ln])
    return [sorted(r, key=lambda ln: ln.box[0]) for r in rows]


def _text(row: list[Line]) -> str:
    return " ".join(ln.text.strip() for ln in row if ln.text.strip())


def _entry(row: list[Line], right: float | None, width: float) -> tuple[str, str] | None:
    """(entry, page) of a row that is a contents entry, else None."""
    m = _LEADER.match(_text(row))
    if m:
        return m.group("entry").strip(), m.group("page")
    last = row[-1]
    if right is None or len(row) < 2 or not _PAGE.match(last.text.strip()):
        return None
    if abs(last.box[2] - right) > RIGHT_EDGE * width:
        return None
    entry = _text(row[:-1])
    if not any(c.isalpha() for c in entry):
        return None
    return entry, last.text.strip()


def _leaderless(rows: list[list[Line]], width: float) -> list[int]:
    """Rows of a contents set without leaders: an entry, then its page number standing apart
    at one right edge, the numbers never decreasing down the page (figures in a table's
    column do not keep to that)."""
    bare = [
        i
        for i, r in enumerate(rows)
        if len(r) >= 2 and r[-1].text.strip().isdigit() and any(c.isalpha() for c in _text(r[:-1]))
    ]
    if len(bare) < MIN_BARE:
        return []
    ends = sorted(rows[i][-1].box[2] for i in bare)
    right = ends[len(ends) // 2]
    at = [i for i in bare if abs(rows[i][-1].box[2] - right) <= RIGHT_EDGE * width]
    pages = [int(rows[i][-1].text.strip()) for i in at]
    if any(b < a for a, b in pairwise(pages)):
        return []
    return at


def _near(upper: list[Line], lower: list[Line]) -> bool:
    """Rows of one list: the gap between them is under ``NEAR`` row heights (a running head
    stands further off)."""
    top = min(ln.box[1] for ln in lower)
    bottom = max(ln.box[3] for ln in upper)
    return top - bottom < NEAR * max(ln.height for ln in upper + lower)


def find(blocks: list[Block], width: float) -> list[Block]:
    """``blocks`` with a table of contents made one ``contents`` block (see the module
    docstring); unchanged on any other page."""
    lines = [ln for b in blocks if b.native not in _SKIP for ln in b.lines if ln.text.strip()]
    rows = _rows(lines)
    anchors = [i for i, r in enumerate(rows) if _LEADER.match(_text(r))]
    if len(anchors) < MIN_LEADERS:
        anchors = _leaderless(rows, width)
        if len(anchors) < MIN_BARE:
            return blocks
    ends = sorted(rows[i][-1].box[2] for i in anchors)
    right = ends[len(ends) // 2]
    entries = {i: e for i, r in enumerate(rows) if (e := _entry(r, right, width))}
    pages = [int(e[1]) for e in entries.values() if e[1].isdigit()]
    if any(b < a for a, b in pairwise(pages)):
        return blocks  # figures after leaders that go down: a table's column, not pages
    first, last = anchors[0], anchors[-1]
    while first > 0 and first - 1 in entries and _near(rows[first - 1], rows[first]):
        first -= 1  # a chapter's entry without a leader opens the contents
    while last + 1 < len(rows) and last + 1 in entries and _near(rows[last], rows[last + 1]):
        last += 1
    left = min(rows[i][0].box[0] for i in entries) - RIGHT_EDGE * width
    taken: list[Line] = []
    out_lines: list[Line] = []
    for i in range(first, last + 1):
        row = rows[i]
        if row[0].box[0] < left or row[-1].box[2] > right + RIGHT_EDGE * width:
            continue  # beside the contents (a margin note, another column)
        entry, page = entries.get(i, (_text(row), ""))
        text = f"• {entry} … {page}" if page else f"• {entry}"
        box = union_all([ln.box for ln in row])
        words = [w for ln in row for w in ln.words] or [Word(text, box, 100.0)]
        out_lines.append(
            Line(
                text,
                box,
                min(ln.conf for ln in row),
                row[0].source,
                words,
                size=max(ln.size for ln in row),
                bold=all(ln.bold for ln in row),
            )
        )
        taken.extend(row)
    if len(out_lines) < MIN_LEADERS:
        return blocks
    gone = {id(ln) for ln in taken}
    out: list[Block] = []
    placed = False
    for b in blocks:
        keep = [ln for ln in b.lines if id(ln) not in gone]
        if len(keep) != len(b.lines) and not placed:
            score = b.score
            out.append(Block("contents", union_all([ln.box for ln in out_lines]), out_lines, score))
            placed = True
        if keep or not b.lines:
            if len(keep) != len(b.lines):
                b = Block(b.native, union_all([ln.box for ln in keep]), keep, b.score)
            out.append(b)
    return out
