"""Where a text-layer line runs off its baseline (:mod:`.pdftext` cuts the layer into lines).

* Scripts: a smaller word raised or lowered against the line is a superscript or subscript;
  :func:`scripts_as_text` writes ``t^{2}`` as ``t²`` where Unicode has the characters, else
  ``x^(ab)``; footnote marks (:data:`MARKS`) stay as they are ("Team∗").
* Text set on its side: a column head turned 90° ("Number of Registered voters" up a
  ballot's column), an arXiv stamp in the margin. PDFium says its characters are turned, and
  each word has an upright box (:func:`upright`); the words of one such line follow each
  other up (or down) one column of type (:func:`stacked`), and are one line in the layer's
  order, never scripts.
"""

from __future__ import annotations

import re

from workbench.engines.cpu.boxes import Box
from workbench.schema import TextWord

SPLIT_GAP = 1.6  # a gap this many font sizes wide splits a layer line (pdftext)


def upright(w: TextWord, box: Box) -> bool:
    """A word set on its side: the layer says its characters are turned, and they run up or
    down the page ("d"/"a": two or more characters, however short: "up" is wider than tall
    in 13 pt type), or it is three letters or more in a box taller than wide (a drop cap,
    "This" in a 48 pt "T" over 11 pt text, is as tall and narrow, but not turned)."""
    if "u" not in w.style:
        return False
    runs = "d" in w.style or "a" in w.style
    return runs or (len(w.text) >= 3 and box[3] - box[1] > box[2] - box[0])


def stacked(prev: Box, box: Box, size: float) -> bool:
    """``box`` follows ``prev`` along an upright baseline: the same column of type (their
    widths overlap by 60 % of the narrower), the next word above or below it, a word space
    away."""
    across = min(prev[2], box[2]) - max(prev[0], box[0])
    if across < 0.6 * min(prev[2] - prev[0], box[2] - box[0]):
        return False
    gap = max(prev[1] - box[3], box[1] - prev[3])  # up the page, or down it
    return -0.2 * size <= gap <= SPLIT_GAP * size


SUP = str.maketrans("0123456789+-=()n−", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿ⁻")
SUB = str.maketrans("0123456789+-=()", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎")


SCRIPT = re.compile(r"([\^_])\{([^{}]*)\}")
MARKS = frozenset("*∗†‡§¶")  # footnote marks: raised, but text as they are ("Team∗")


def scripts_as_text(tex: str) -> str:
    """``t^{2}`` → ``t²``, ``x_{1}`` → ``x₁`` where Unicode has the characters; else
    ``x^(ab)``."""

    def one(m: re.Match[str]) -> str:
        if m.group(1) == "^" and set(m.group(2)) <= MARKS:
            return m.group(2)  # a footnote mark: "Team∗"
        table = SUP if m.group(1) == "^" else SUB
        plain = m.group(2).translate(table)
        if all(c != o for c, o in zip(plain, m.group(2), strict=True)):
            return plain
        return f"{m.group(1)}({m.group(2)})"

    return SCRIPT.sub(one, tex)
