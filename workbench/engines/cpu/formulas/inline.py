"""Inline math in a text-layer line as TeX, where plain text cannot say it.

Contract
--------
:func:`inline` takes one line's words (``(TextWord, box)`` in ``page_px``) and returns them
with each inline formula that needs TeX replaced by one word whose text is the TeX between
:data:`text.MATH_OPEN` and :data:`text.MATH_CLOSE` (:func:`text.escape` writes it as
``$…$`` and escapes nothing inside). A span is a maximal run of math words (a math font, an
operator, relation or Greek letter, a script) with the single letters, digits and brackets
between them; plain words at its ends stay text. It is written as TeX only when plain text
would have to spell a script out (``λ_(g)``: a script of letters, a nested one, a prime on a
script) or it holds a big operator; ``x² = 9`` stays as it is. Geometry that does not make
sound TeX (:mod:`~workbench.engines.cpu.formulas.tex`) leaves the words as they were.
"""

from __future__ import annotations

import re

from workbench.engines.cpu.boxes import Box, union_all
from workbench.engines.cpu.formulas.find import FUNCTIONS, MATH_CHARS, Run
from workbench.engines.cpu.formulas.tex import Confused, atoms_of, row_tex
from workbench.engines.cpu.markdown import MATH_CLOSE, MATH_OPEN
from workbench.schema import TextWord

_WEAK = re.compile(r"[A-Za-z0-9()\[\],./|:;]{1,5}")
_WORDS = {"is", "of", "to", "in", "on", "at", "as", "by", "if", "or", "an", "be", "we", "it",
          "so", "no", "do", "a", "I"}  # fmt: skip
_UNICODE_SCRIPT = re.compile(r"[0-9+\-=()n−]*")  # what Unicode has super/subscripts for
_PROSE = re.compile(r"[a-z]{3,}")
_SCRIPT = re.compile(r"[_^]\{([^{}]*)\}")


def _strong(w: TextWord, main: float) -> bool:
    body = _SCRIPT.sub("", w.tex) if w.tex else w.text  # the word without its scripts
    if "m" not in w.style and any(t not in FUNCTIONS for t in _PROSE.findall(body)):
        return False  # a prose word with a footnote mark ("viele³") is no math
    return (
        "m" in w.style
        or w.tex is not None
        or any(c in MATH_CHARS for c in w.text)
        or w.size < 0.85 * main
    )


def _weak(w: TextWord) -> bool:
    """A variable, digits or brackets between math words: letters only in an italic font
    (math letters are; prose words are upright), and never a short English word."""
    if not _WEAK.fullmatch(w.text) or w.text in _WORDS:
        return False
    letters = sum(c.isalpha() for c in w.text)
    return letters == 0 or (letters <= 2 and "i" in w.style)


def _spans(run: Run) -> list[tuple[int, int]]:
    main = max(w.size for w, _ in run)
    out: list[tuple[int, int]] = []
    k = 0
    while k < len(run):
        if not _strong(run[k][0], main):
            k += 1
            continue
        lo = hi = k
        while lo > 0 and _weak(run[lo - 1][0]):
            lo -= 1  # the variables before the operator ("Rs =")
        while hi + 1 < len(run) and (_strong(run[hi + 1][0], main) or _weak(run[hi + 1][0])):
            hi += 1
        while (
            hi > k
            and not _strong(run[hi][0], main)
            and not any(c.isalnum() for c in run[hi][0].text)
        ):
            hi -= 1  # a trailing "." or "," is the sentence's
        out.append((lo, hi))
        k = hi + 1
    return out


def _needs_tex(tex: str) -> bool:
    if re.search(r"\\(?:sum|prod|int|oint|frac)", tex):
        return True
    for m in _SCRIPT.finditer(tex):
        if not _UNICODE_SCRIPT.fullmatch(m.group(1)):
            return True
    return bool(re.search(r"[_^]\{[^{}]*\{", tex))  # a nested script


def inline(run: Run, sx: float, sy: float) -> Run:
    main = max(w.size for w, _ in run)
    if not any("m" in w.style or w.tex is not None or w.size < 0.85 * main for w, _ in run):
        return run  # no math font and no script: nothing plain text cannot say
    out: Run = []
    k = 0
    for lo, hi in _spans(run):
        out.extend(run[k:lo])
        words = run[lo : hi + 1]
        trail = ""
        last = words[-1][0].text
        if len(last) > 1 and last[-1] in ".,;:" and last[:-1].count("(") <= last.count(")"):
            trail = last[-1]  # "R/Ann_R(x_i))." ends a sentence: its stop is text
        tex = _tex(words, sx, sy, trail)
        if tex is None:
            out.extend(words)
        else:
            box: Box = union_all([b for _, b in words])
            size = max(w.size for w, _ in words)
            text = f"{MATH_OPEN}{tex}{MATH_CLOSE}{trail}"
            out.append((TextWord(text, box, size, words[0][0].bold, words[0][0].line), box))
        k = hi + 1
    out.extend(run[k:])
    return out


def _tex(words: Run, sx: float, sy: float, trail: str) -> str | None:
    atoms = atoms_of(words, sx, sy)
    if trail and atoms and atoms[-1].ch == trail:
        atoms = atoms[:-1]
    if len(atoms) < 2:
        return None
    try:
        tex = row_tex(atoms, [])
    except Confused:
        return None
    return tex if _needs_tex(tex) else None
