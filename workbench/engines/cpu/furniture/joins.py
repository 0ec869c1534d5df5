"""Heading runs beside each other: a heading wrapped over lines, a chapter's label joined to its
title, and runs level on one row that are a table's column heads (for :mod:`.headings`).

Contract: pure functions of :class:`Line` geometry and type; blocks are rebuilt, never edited.
"""

from __future__ import annotations

import re

from workbench.engines.cpu.boxes import Line, union_all
from workbench.engines.cpu.furniture.cues import CHAPTER, vertical
from workbench.engines.cpu.page import Block

LABEL_GAP = 3.0  # "Chapter 5" this many of its heights over its title: one heading
WRAP_GAP = 0.9  # a wrapped heading's lines are 0.2-0.6 of their height apart; two headings
#                 one under the other more than one (1.2 on a scan of pip's docs)
HEADS_IN_ROW = 3  # this many heading runs level with each other are a table's column heads
_RUN_ON = re.compile(r"[.:;]\s+\S")  # a sentence ends inside the line and another begins


def size(ln: Line) -> float:
    """Its type size (text layer), else its line height."""
    return ln.size if ln.size > 0 else ln.height


def wraps(last: Line, ln: Line) -> bool:
    """``ln`` goes on from the heading line ``last`` ("2004" under "Expatriation Before June
    4,"; a lower-case "of the Republic"): text layer, the same size and face, right under it
    (a wrapped heading's gap), and no sentence ending inside it (a run-in heading's
    line goes on into its paragraph)."""
    return (
        ln.size > 0
        and last.size > 0
        and abs(ln.size - last.size) <= 0.02 * last.size
        and (ln.bold, ln.caps, ln.italic) == (last.bold, last.caps, last.italic)
        and not _RUN_ON.search(ln.text)
        and not vertical(ln)
        and not apart_lines(last, ln)
        and ln.box[1] >= last.box[3] - 0.5 * last.height  # under it, not beside it
    )


def set_under(last: Line, ln: Line) -> bool:
    """``ln`` is set under ``last`` as a heading's next line is: flush left with it or centred
    under it, within a line height (a line of the next column, or a folio in the margin, is
    level with the heading's row but elsewhere)."""
    h = max(last.height, 1.0)
    left = abs(ln.box[0] - last.box[0]) <= h
    centred = abs((ln.box[0] + ln.box[2]) - (last.box[0] + last.box[2])) / 2 <= h
    return left or centred


def join_labels(
    out: list[Block], found: list[tuple[int, float, bool]]
) -> tuple[list[Block], list[tuple[int, float, bool]]]:
    """A chapter's label heading ("Chapter 5", "Appendix A") directly over the heading of its
    title, within ``LABEL_GAP`` label heights: one heading of both, sized as the larger."""
    at = {k: (s, bold) for k, s, bold in found}
    drop: set[int] = set()
    for k, s, bold in found:
        label = out[k].lines
        if k in drop or len(label) != 1 or not CHAPTER.match(label[0].text):
            continue
        reach = LABEL_GAP * max(label[0].height, 1.0)
        below = [
            j
            for j in at
            if j != k
            and j not in drop
            and 0 <= out[j].box[1] - out[k].box[3] <= reach
            and min(out[j].box[2], out[k].box[2]) > max(out[j].box[0], out[k].box[0])
        ]
        if not below:
            continue
        j = min(below, key=lambda j: out[j].box[1])
        lines = label + out[j].lines
        out[k] = Block("heading", union_all([ln.box for ln in lines]), lines, out[k].score)
        at[k] = (max(s, at[j][0]), bold and at[j][1])
        drop.add(j)
    kept = [k for k in range(len(out)) if k not in drop]
    new = {old: i for i, old in enumerate(kept)}
    return [out[k] for k in kept], [(new[k], *at[k]) for k, _, _ in found if k not in drop]


def column_heads(
    out: list[Block], found: list[tuple[int, float, bool]]
) -> list[tuple[int, float, bool]]:
    """Heading runs that stand :data:`HEADS_IN_ROW` or more on one row are a table's column
    heads ("Aantal | Prijs / eenheid | Waarde" over an invoice's lines), not headings: each
    becomes text again (in ``out``) and leaves ``found``. Two side by side may be the heads of
    two columns of a paper, so two stay headings."""
    firsts = {k: out[k].lines[0] for k, _, _ in found}
    heads = {
        k
        for k, first in firsts.items()
        if sum(abs(first.middle - o.middle) < 0.5 * max(first.height, o.height) for o in
               firsts.values()) >= HEADS_IN_ROW
    }  # fmt: skip
    for k in heads:
        out[k] = Block("text", out[k].box, out[k].lines, out[k].score)
    return [f for f in found if f[0] not in heads]


def other_size(a: Line, b: Line) -> bool:
    """Two heading lines set in clearly different sizes (text layer): two headings, as "The
    Crazy Ones" over its smaller date line, not one heading of two lines."""
    small, big = sorted((size(a), size(b)))
    return a.size > 0 and b.size > 0 and small < 0.92 * big


def apart_lines(prev: Line, ln: Line) -> bool:
    """Two heading lines further apart than a wrapped heading's lines (:data:`WRAP_GAP`):
    two headings ("What is cached" over "HTTP responses", a section and its first
    subsection), not one."""
    return ln.box[1] - prev.box[3] > WRAP_GAP * max(prev.height, ln.height)


def same_row_or_next(prev: Line, ln: Line) -> bool:
    """Lines of one run: the next line starts within two line heights below the previous."""
    gap = ln.box[1] - prev.box[3]
    return gap <= 2.0 * max(prev.height, ln.height, 1.0)
