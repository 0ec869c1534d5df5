"""Captions of figures and tables: a "Figure 3: …", "Fig. 2.", "Table 1:" line next to one.

Both readers (text layer and OCR) go through here, from
the passes of :mod:`.passes`:

* :func:`dedupe` (on layout boxes, before lines are assigned) — the layout model sometimes
  draws two or three boxes of different labels over one paragraph (``text``,
  ``figure_caption`` and ``figure`` on the same lines, each with its own score); lines then
  split between them at random. Of boxes of these labels overlapping by ``DUP_IOU`` or more,
  a figure whose lines cover ``PROSE_COVER`` of it is dropped (it is a paragraph, not a
  picture), and of a text and a caption box the caption is kept only when the block starts
  with a caption line (:func:`is_caption`), the text box otherwise.
* :func:`attach` (on blocks: label, box, lines) — a *host* is a figure or table block.
  (a) A caption line that a host's box swallowed at its bottom edge (with at most
  ``MAX_LINES - 1`` continuation lines under it) or top edge leaves the host as a caption
  block, and the host's box stops short of it, so the two do not overlap. (b) A text block
  whose first line is a caption line, directly above or below a host (a gap of at most
  ``NEAR`` line heights, overlapping it horizontally), is that host's caption: the whole block
  when it has at most ``MAX_LINES`` lines, else its first lines up to the end of the first
  sentence (the rest stays text). (c) A caption box of the layout model that does not start
  with a caption line, next to a host that has one, is text (one caption a host; the model
  calls the paragraph under a chart a caption).

A caption next to a figure is a ``figure_caption`` block, next to a table a
``table_caption`` one (both :class:`~workbench.schema.Label.CAPTION`); reading order then puts
it right before or after its host. :data:`CAPTION` is also what keeps a bold caption line
from being taken for a heading (:mod:`headings`).
"""

from __future__ import annotations

import re
from itertools import pairwise

from workbench.engines.cpu.boxes import Box, LayoutBox, Line, area, cover, iou, union_all
from workbench.engines.cpu.figures.ticks import numeric
from workbench.engines.cpu.labels import canonical
from workbench.engines.cpu.page import Block
from workbench.schema import Label

CAPTION = re.compile(  # the word in any case; then a number, and punctuation or a capital
    r"^(?i:fig(?:ure)?s?\.?|tab(?:le)?\.?|chart|exhibit|graph|plate|scheme)\s*"
    r"[A-Z]?\d+(?:[.\-]\d+)*[a-z]?(?:\s*[.:|—–-]|\s+[A-Z(\"“]|\s*$)"
)
DUP_IOU = 0.8  # two boxes overlapping this much are drawn over one paragraph
PROSE_COVER = 0.35  # a "figure" whose lines cover this much of it is a paragraph
MAX_LINES = 4  # a caption is up to four lines; past that only its first sentence
NEAR = 3.0  # a caption is within three line heights of its figure or table
_DUP = {"text", "reference", "figure_caption", "table_caption", "figure"}
_TEXTY = {"text", "ocr_lines", "reference", "title", "figure_caption", "table_caption"}
_MODEL_CAPTIONS = {"figure_caption", "table_caption", "CAPTION_TEXT"}
_END = (".", "!", "?")


def is_caption(text: str) -> bool:
    """The line opens a caption: "Figure 3:", "Fig. 2.", "Table 1", "TABLE 4 Revenue"."""
    return bool(CAPTION.match(text.strip()))


def _top_left(lines: list[Line]) -> Line:
    return min(lines, key=lambda ln: (round(ln.box[1] / max(ln.height, 1.0)), ln.box[0]))


def dedupe(boxes: list[LayoutBox], lines: list[Line]) -> list[LayoutBox]:
    """``boxes`` less the near-duplicates described in the module docstring."""
    drop: set[int] = set()
    for i, a in enumerate(boxes):
        for j in range(i + 1, len(boxes)):
            b = boxes[j]
            if i in drop or j in drop or a.native == b.native:
                continue
            if a.native not in _DUP or b.native not in _DUP or iou(a.box, b.box) < DUP_IOU:
                continue
            both = union_all([a.box, b.box])
            inside = [ln for ln in lines if cover(ln.box, both) >= 0.5]
            if not inside:
                continue
            pair = {a.native: i, b.native: j}
            if "figure" in pair:
                fig = boxes[pair["figure"]].box
                inked = sum(area(ln.box) for ln in inside)
                if len(inside) >= 2 and inked >= PROSE_COVER * max(area(fig), 1.0):
                    drop.add(pair["figure"])
                continue
            caption = next((k for n, k in pair.items() if n.endswith("caption")), None)
            text = next((k for n, k in pair.items() if not n.endswith("caption")), None)
            if caption is None or text is None:
                continue
            drop.add(text if is_caption(_top_left(inside).text) else caption)
    return [b for k, b in enumerate(boxes) if k not in drop]


def _host(native: str) -> bool:
    return canonical(native) in (Label.FIGURE, Label.TABLE)


def _caption_native(host: str) -> str:
    return "table_caption" if canonical(host) is Label.TABLE else "figure_caption"


def attach(blocks: list[Block], line_h: float) -> list[Block]:
    """``blocks`` with the captions of figures and tables labelled and cut out of them."""
    out = list(blocks)
    hosts = [k for k, b in enumerate(out) if _host(b.native) and b.native != "signature"]
    if not hosts:
        return out
    captioned: set[int] = set()
    new: list[Block] = []
    for k in hosts:  # (a) caption lines inside a host's box, at its edge
        native, box, group, score = out[k].native, out[k].box, out[k].lines, out[k].score
        cap, rest, edge = _edge_caption(group, box, line_h)
        if not cap:
            continue
        cb = union_all([ln.box for ln in cap])
        if edge == "bottom":
            box = (box[0], box[1], box[2], max(min(box[3], cb[1] - 1), box[1]))
        else:
            box = (box[0], min(max(box[1], cb[3] + 1), box[3]), box[2], box[3])
        out[k] = Block(native, box, rest, score)
        new.append(Block(_caption_native(native), cb, cap, score))
        captioned.add(k)
    for j, blk in enumerate(out):  # (b) text blocks next to a host
        native, box, group, score = blk.native, blk.box, blk.lines, blk.score
        if native not in _TEXTY or not group or not is_caption(_top_left(group).text):
            continue
        host = _next_to(box, hosts, out, line_h)
        if host is None:
            continue
        cap, rest = _caption_run(group)
        out[j] = Block(
            _caption_native(out[host].native), union_all([ln.box for ln in cap]), cap, score
        )
        if rest:
            new.append(Block(native, union_all([ln.box for ln in rest]), rest, score))
        captioned.add(host)
    for j, blk in enumerate(out):  # (c) one caption a host
        native, box, group, score = blk.native, blk.box, blk.lines, blk.score
        if native in _MODEL_CAPTIONS and group and not is_caption(_top_left(group).text):
            host = _next_to(box, hosts, out, line_h)
            if host is not None and host in captioned:
                out[j] = Block("text", box, group, score)
    return out + new


def _rows(group: list[Line]) -> list[Line]:
    return sorted(group, key=lambda ln: (ln.box[1], ln.box[0]))


def _edge_caption(group: list[Line], box: Box, line_h: float) -> tuple[list[Line], list[Line], str]:
    """(caption lines, the host's other lines, "bottom"|"top"), or ([], group, "")."""
    rows = _rows(group)
    mid = (box[1] + box[3]) / 2
    for start in range(max(len(rows) - MAX_LINES, 0), len(rows)):
        first = rows[start]
        if not is_caption(first.text) or first.box[1] < mid:
            continue
        tail = rows[start:]
        close = all(
            b.box[1] - a.box[3] <= 1.5 * max(a.height, line_h) and not numeric(b)
            for a, b in pairwise(tail)
        )  # the caption's own lines run on under it; a row of tick labels is the picture's
        if close:
            return tail, rows[:start], "bottom"
    if rows and is_caption(rows[0].text) and rows[0].box[3] < mid:
        first = rows[0]
        row = [ln for ln in rows if ln.box[1] < first.box[3] - 0.5 * first.height]
        return row, [ln for ln in rows if ln not in row], "top"
    return [], group, ""


def _next_to(box: Box, hosts: list[int], blocks: list[Block], line_h: float) -> int | None:
    """The host whose box is directly above or below ``box`` (nearest first), or None."""
    best: tuple[float, int] | None = None
    for k in hosts:
        hb = blocks[k].box
        gap = box[1] - hb[3] if box[1] >= (hb[1] + hb[3]) / 2 else hb[1] - box[3]
        overlap = min(box[2], hb[2]) - max(box[0], hb[0])
        narrow = min(box[2] - box[0], hb[2] - hb[0])
        near = -0.5 * line_h <= gap <= NEAR * line_h and overlap >= 0.3 * max(narrow, 1.0)
        if near and (best is None or abs(gap) < best[0]):
            best = (abs(gap), k)
    return best[1] if best else None


def _caption_run(group: list[Line]) -> tuple[list[Line], list[Line]]:
    """(caption, rest): a short block whole; a long one up to its first sentence's end."""
    rows = _rows(group)
    if len(rows) <= MAX_LINES:
        return rows, []
    for n, ln in enumerate(rows[:MAX_LINES], 1):
        if ln.text.rstrip().endswith(_END):
            return rows[:n], rows[n:]
    return rows[:1], rows[1:]
