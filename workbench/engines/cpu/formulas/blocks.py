"""Formula blocks: display formulas found on the text layer stand alone; OCR'd formula boxes
give back the lines that are words.

Contract of :func:`split_blocks`: every line of the blocks it takes is in exactly one block it
gives; a text-layer line marked ``display`` (:func:`~.find.find`) becomes an ``equation``
block of its own (``figure`` with no lines when it has no TeX form), the rest of its block
keeping its label (``text`` for the rest of a formula box). A figure keeps display lines that
are its own labels. An OCR'd formula box is split into runs of worded lines (``text``) and
math (``equation``, stretched to the box's full width so its crop keeps every glyph).
"""

from __future__ import annotations

import re

from workbench.engines.cpu.boxes import Box, Line, area, union_all
from workbench.engines.cpu.labels import canonical
from workbench.engines.cpu.page import Block
from workbench.schema import Label


def split_blocks(blocks: list[Block]) -> list[Block]:
    out: list[Block] = []
    for b in blocks:
        native, box, group, score = b.native, b.box, b.lines, b.score
        label = canonical(native)
        shown = [ln for ln in group if ln.display]
        if label is Label.FIGURE and shown:
            covered = sum(area(ln.box) for ln in shown)
            if covered < 0.5 * area(box) or len(shown) < len(group):
                shown = []  # a figure's labels (an axis "R^n", a tick "-0.5") stay its text
        if label is Label.FORMULA and group and not any(ln.source == "text_layer" for ln in group):
            out.extend(_ocr_words_apart(box, group, score))
            continue
        if label is Label.TABLE or not shown:
            layer = group and all(ln.source == "text_layer" for ln in group)
            out.append(
                Block("text" if label is Label.FORMULA and layer else native, box, group, score)
            )
            continue
        rest_native = "text" if label is Label.FORMULA else native
        part: list[Line] = []
        for ln in sorted(group, key=lambda ln: ln.middle):
            if not ln.display:
                part.append(ln)
                continue
            if part:
                out.append(Block(rest_native, union_all([p.box for p in part]), part, score))
                part = []
            out.append(
                Block("equation", ln.box, [ln], score)
                if ln.tex
                else Block("figure", ln.box, [], 1.0)
            )
        if part:
            out.append(Block(rest_native, union_all([p.box for p in part]), part, score))
    return out


def worded(group: list[Line]) -> bool:
    """OCR lines that read as words, not math: two words of three letters or more a line,
    and such words make most of the characters (dot leaders aside)."""
    text = re.sub(r"[.·…_]{2,}", "", " ".join(ln.text for ln in group))
    words = re.findall(r"\b[A-Za-z]{3,}\b", text)
    chars = len(re.sub(r"\s", "", text))
    return len(words) >= 2 * len(group) and sum(map(len, words)) >= 0.6 * max(chars, 1)


def _ocr_words_apart(box: Box, group: list[Line], score: float) -> list[Block]:
    """An OCR'd formula box (shown as a crop, never typeset) gives back the lines that are
    words (a heading or a sentence the layout model boxed with the formula) as text blocks;
    the formula keeps the rest of the box between them, full width, so its crop still holds
    every glyph."""
    runs: list[tuple[str, list[Line]]] = []
    for ln in sorted(group, key=lambda ln: ln.middle):
        kind = "text" if worded([ln]) else "equation"
        if runs and runs[-1][0] == kind:
            runs[-1][1].append(ln)
        else:
            runs.append((kind, [ln]))
    if len(runs) == 1:
        return [Block(runs[0][0], box, group, score)]
    out: list[Block] = []
    for k, (kind, lines) in enumerate(runs):
        tight = union_all([ln.box for ln in lines])
        if kind == "text":
            out.append(Block("text", tight, lines, score))
            continue
        top = box[1] if k == 0 else max(ln.box[3] for ln in runs[k - 1][1])
        bottom = box[3] if k == len(runs) - 1 else min(ln.box[1] for ln in runs[k + 1][1])
        out.append(Block("equation", (box[0], top, box[2], bottom), lines, score))
    return out
