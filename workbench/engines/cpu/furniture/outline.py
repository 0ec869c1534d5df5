"""Headings from the PDF's own outline (bookmarks; issue 35).

Where a born-digital PDF has an outline, the entries that point at a page
(:attr:`~workbench.schema.TextLayer.outline`: depth, title) say which of its lines are
headings and at which depth, as the document's authoring tool wrote them. :func:`apply` makes
a text-like block a ``heading:N`` block when its text is an entry's title, and cuts out of a
block any run of one or two lines that is (a heading the layout model glued to the paragraph
above or under it); ``N`` is the entry's depth + 1 (the outline's top level is ``##``: the page
title, ``#``, is rarely in an outline), at most 4. A block the type rules made a heading keeps its
cut and takes the entry's level. Headings no entry names keep the levels that font sizes rank
(:mod:`.headings`). Titles match on letters and digits only, case-folded, without a leading
section number or chapter label ("1.2 Modes" = "Modes"); a title of ``PREFIX`` characters or
more also matches a text it starts, up to half as long again (the outline shortened a long
title, or the reverse), never a paragraph that begins with it.
"""

from __future__ import annotations

from workbench.engines.cpu.boxes import Line, union_all
from workbench.engines.cpu.furniture import headings
from workbench.engines.cpu.page import Block
from workbench.markdown.sections import without_label

PREFIX = 8
MAX_LINES = 2  # a heading cut from the top of a block has at most this many lines
_TEXTY = headings.TEXTY | {"heading"}  # and the blocks the type rules cut out


def key(text: str) -> str:
    text = without_label(text)
    return "".join(c for c in text.casefold() if c.isalnum())


def depth_of(text: str, entries: tuple[tuple[int, str], ...]) -> int:
    """The depth of the entry whose title ``text`` is (0: none)."""
    k = key(text)
    if not k:
        return 0
    for depth, title in entries:
        t = key(title)
        short, long = sorted((t, k), key=len)
        if t == k or (
            len(short) >= PREFIX and len(long) <= 1.5 * len(short) and long.startswith(short)
        ):
            return depth
    return 0


def apply(blocks: list[Block], entries: tuple[tuple[int, str], ...]) -> list[Block]:
    if not entries:
        return blocks
    out: list[Block] = []
    for b in blocks:
        kind = b.native.split(":")[0]
        if kind not in _TEXTY or not b.lines:
            out.append(b)
            continue
        lines = sorted(b.lines, key=lambda ln: (round(ln.box[1] / 4), ln.box[0]))
        depth = depth_of(_text(lines), entries)
        if depth:
            out.append(Block(_native(depth), b.box, b.lines, b.score))
            continue
        pieces = _cut(lines, entries)
        if len(pieces) == 1:
            out.append(b)
            continue
        plain = "text" if kind == "heading" else b.native
        for depth, run in pieces:
            box = union_all([ln.box for ln in run])
            out.append(Block(_native(depth) if depth else plain, box, run, b.score))
    return out


def _cut(lines: list[Line], entries: tuple[tuple[int, str], ...]) -> list[tuple[int, list[Line]]]:
    """``lines`` as runs: (depth, the entry's lines) for each run of one or two lines titled as
    an entry, (0, lines) between them."""
    pieces: list[tuple[int, list[Line]]] = []
    rest: list[Line] = []
    i = 0
    while i < len(lines):
        for n in range(1, MAX_LINES + 1):
            depth = depth_of(_text(lines[i : i + n]), entries) if i + n <= len(lines) else 0
            if depth:
                break
        if depth:
            if rest:
                pieces.append((0, rest))
                rest = []
            pieces.append((depth, lines[i : i + n]))
            i += n
        else:
            rest.append(lines[i])
            i += 1
    if rest:
        pieces.append((0, rest))
    return pieces


def _text(lines: list[Line]) -> str:
    return " ".join(ln.text for ln in lines)


def _native(depth: int) -> str:
    return f"heading:{min(depth + 1, 4)}"
