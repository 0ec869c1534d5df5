"""Atoms of a displayed formula: one :class:`Atom` a character of the text layer's words
(:func:`atoms_of`), in ``page_px``, with its TeX form (:mod:`.symbols`), box, size and kind;
:class:`Confused` when a character has no TeX form or the geometry makes no formula
(:mod:`.tex` builds the row from them)."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from workbench.engines.cpu.boxes import Box
from workbench.engines.cpu.formulas.symbols import (
    ALPHABETS,
    BIG_OPS,
    CMEX,
    CMSY,
    COMBINING,
    GREEK,
    SPACING,
    SYMBOLS,
)
from workbench.schema import TextWord


class Confused(ValueError):
    """The geometry does not make a formula these rules can write."""


@dataclass(eq=False)
class Atom:
    tex: str  # this atom's TeX (a character's, or a built fraction/operator)
    box: Box
    size: float
    kind: str = ""  # "" ordinary, "op" big operator, "l"/"r" big delimiter, "box" built
    ch: str = ""  # the character (ordinary atoms)
    style: str = ""
    cy: float = field(default=0.0)
    by: float = 0.0  # baseline y (0: unknown; built atoms sit on the row's baseline)
    limits: tuple[list[Atom], list[Atom]] | None = None  # a big operator's (below, above)

    def __post_init__(self) -> None:
        if not self.cy:
            self.cy = (self.box[1] + self.box[3]) / 2

    @property
    def cx(self) -> float:
        return (self.box[0] + self.box[2]) / 2


_ASCII_OK = re.compile(r"[A-Za-z0-9+\-=<>()\[\]|/,.;:!?'*@]")
_DASHES = "−-–—_"
_NEGATED = re.compile(r"(=|<|>|\\in|\\equiv|\\sim|\\subset|\\subseteq|\\leq|\\geq) ?\\not")
_PRIMES = "′″"


def _is(a: Atom, chars: str) -> bool:
    return len(a.ch) == 1 and a.ch in chars


def _prime(a: Atom) -> bool:
    return _is(a, _PRIMES) or a.tex.startswith("\\prime")


def atoms_of(words: list[tuple[TextWord, Box]], sx: float, sy: float) -> list[Atom]:
    scale = (sx + sy) / 2
    out: list[Atom] = []
    seen: set[tuple[str, int, int]] = set()
    for w, box in words:
        if w.glyphs:
            parts = [
                (g[0], (g[1] * sx, g[2] * sy, g[3] * sx, g[4] * sy), g[5] * scale, g[6], g[7] * sy)
                for g in w.glyphs
            ]
        else:
            step = (box[2] - box[0]) / max(len(w.text), 1)
            parts = [
                (c, (box[0] + k * step, box[1], box[0] + (k + 1) * step, box[3]), w.size * scale,
                 w.style, w.base * sy)
                for k, c in enumerate(w.text)
            ]  # fmt: skip
        for ch, b, size, style, base in parts:
            key = (ch, round(b[0]), round(b[1]))
            if ch.isspace() or key in seen:  # drawn twice (fake bold): once
                continue
            seen.add(key)
            try:
                atom = _atom(ch, b, size, style)
            except Confused:  # kept, so that the row is known confused (shown as a crop)
                atom = Atom("", b, size, "?", ch, style)
            atom.by = base
            out.append(atom)
    return out


def _atom(ch: str, box: Box, size: float, style: str) -> Atom:
    if "x" in style and ch in CMEX:
        tex, kind = CMEX[ch]
        return Atom(tex, box, size, kind, ch, style)
    if ch in SPACING and ch != "~":
        return Atom("\\" + SPACING[ch] + "{}", box, size, "", ch, style)
    if "s" in style and ch in CMSY and "x" not in style:
        return Atom(CMSY[ch], box, size, "", ch, style)
    if ch in BIG_OPS:
        return Atom(BIG_OPS[ch], box, size, "op", ch, style)
    if ch in GREEK:
        return Atom("\\" + GREEK[ch], box, size, "", ch, style)
    if ch in SYMBOLS:
        return Atom(SYMBOLS[ch], box, size, "", ch, style)
    if _ASCII_OK.fullmatch(ch):
        tex = ch
        if ch.isalnum() and "b" in style:
            tex = f"\\mathbf{{{ch}}}"
        elif ch.isupper() and "s" in style:
            tex = f"\\mathcal{{{ch}}}"
        return Atom(tex, box, size, "", ch, style)
    return _composed(ch, box, size, style)


def _composed(ch: str, box: Box, size: float, style: str) -> Atom:
    """Math alphanumerics (𝑥, 𝐄, ℝ's kin: Word and Cambria Math write them) and accented
    letters (û) as TeX on their plain letter."""
    plain = unicodedata.normalize("NFKC", ch)
    if len(plain) == 1 and plain != ch and unicodedata.name(ch, "").startswith("MATHEMATICAL"):
        name = unicodedata.name(ch)
        atom = _atom(plain, box, size, style.replace("b", "") + ("b" if "BOLD" in name else ""))
        for word, command in ALPHABETS:
            if word in name and plain.isascii():
                atom.tex = f"\\{command}{{{plain}}}"
        atom.ch = ch
        return atom
    parts = unicodedata.normalize("NFD", ch)
    if len(parts) == 2 and parts[1] in COMBINING:
        atom = _atom(parts[0], box, size, style)
        atom.tex = f"\\{COMBINING[parts[1]]}{{{atom.tex}}}"
        atom.ch = ch
        return atom
    raise Confused(f"no TeX for {ch!r}")
