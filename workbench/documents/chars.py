"""PDFium's characters of a text page, before they are words (:mod:`.textlayer`).

* :func:`page_text`: the page's characters, one per character index (not PDFium's own text,
  which drops the characters it takes for controls and so shifts every index after one);
* :func:`not_text`: a glyph whose code says nothing readable (controls, symbol fonts'
  private-use bullets);
* :func:`composed_accents`: spacing accents TeX draws as glyphs of their own, composed onto
  the letter they sit over ("Min ´ a´c" → "Mináč");
* :func:`shadow` and :func:`drawn_apart`: the same character drawn again a hair off the
  first by another text object (a drop shadow: map labels, posters), which reads once.
"""

from __future__ import annotations

import ctypes
from typing import Any

#: a copy of the character before it, shifted under this share of the font size on both
#: axes, is its shadow; a real repeated letter sits a whole advance on (an "i" or "." about a
#: fifth of the size, the narrowest)
SHADOW_SHIFT = 0.12

#: spacing accents → combining marks; TeX's ``\\'a`` draws the accent as its own glyph
_ACCENTS = {
    "\u00b4": "\u0301", "\u0060": "\u0300", "\u02c6": "\u0302", "\u02dc": "\u0303",
    "\u00a8": "\u0308", "\u02c7": "\u030c", "\u02d8": "\u0306", "\u02d9": "\u0307",
    "\u00af": "\u0304", "\u02da": "\u030a", "\u02dd": "\u030b", "\u00b8": "\u0327",
    "\u02db": "\u0328",
}  # fmt: skip
_BELOW = {"\u0327", "\u0328"}  # cedilla and ogonek hang under their letter
_DOTLESS = {"\u0131": "i", "\u0237": "j"}


def page_text(raw: Any, tp: Any, n: int) -> str:
    """The ``n`` characters of the text page, one a character index. Not ``FPDFText_GetText``:
    PDFium leaves the characters it takes for controls (U+0002, U+0003, U+0093-U+0098, a
    bullet glyph whose font maps it to its code) out of that text but not out of the
    character indices, so every character after one would be read one place late (the first
    letter of each following line and word lost, NULs at the end)."""
    get = raw.FPDFText_GetUnicode
    out = []
    for i in range(n):
        u = get(tp, i)
        if u == 2 and raw.FPDFText_IsHyphen(tp, i) == 1:
            u = 0xFFFE  # PDFium's line-end hyphen (U+0002 here, U+FFFE in GetText's text)
        out.append("\ufffd" if 0xD800 <= u <= 0xDFFF or u > 0x10FFFF else chr(u))
    return "".join(out)


def not_text(ch: str) -> bool:
    """A glyph whose code says nothing readable: C0/C1 controls (U+0000 included) and the
    private-use mirror of symbol fonts (U+F000-U+F0FF: Symbol's and Wingdings' bullets,
    arrows and checks as Word writes them). Never written into a word; alone at a line's
    start it is the list bullet it almost always is there."""
    o = ord(ch)
    return o < 32 or 0x7F <= o <= 0x9F or 0xF000 <= o <= 0xF0FF


def composed_accents(raw: Any, tp: Any, text: str, n: int) -> tuple[dict[int, str], set[int]]:
    """Spacing accents drawn over (or, cedilla and ogonek, under) a letter: ``{letter index:
    composed letter}`` and the accents' indices. An accent whose centre lies over no letter's
    box (within 120 characters of it, where TeX puts them) stays text. A text without any
    is answered at once (most pages)."""
    if not any(a in text for a in _ACCENTS):
        return {}, set()
    import unicodedata

    left, bottom, right, top = (ctypes.c_double() for _ in range(4))
    refs = [ctypes.byref(v) for v in (left, right, bottom, top)]

    def box(i: int) -> tuple[float, float, float, float] | None:
        if not raw.FPDFText_GetCharBox(tp, i, *refs):
            return None
        return left.value, bottom.value, right.value, top.value

    composed: dict[int, str] = {}
    accents: set[int] = set()
    for i, ch in enumerate(text):
        mark = _ACCENTS.get(ch)
        a = box(i) if mark else None
        if mark is None or a is None:
            continue
        cx, below = (a[0] + a[2]) / 2, mark in _BELOW
        best, dist = -1, float("inf")
        for j in range(max(0, i - 120), min(n, i + 120)):
            if j == i or not text[j].isalpha() or j in composed:
                continue
            b = box(j)
            if b is None or not b[0] <= cx <= b[2]:
                continue
            height = max(b[3] - b[1], 1.0)
            gap = b[1] - a[3] if below else a[1] - b[3]  # page space: y grows upward
            if -0.5 * height <= gap <= 0.6 * height and abs(gap) < dist:
                best, dist = j, abs(gap)
        if best >= 0:
            base = _DOTLESS.get(text[best], text[best])
            composed[best] = unicodedata.normalize("NFC", base + mark)
            accents.add(i)
    return composed, accents


def shadow(
    last: str,
    last_box: tuple[float, float, float, float],
    ch: str,
    box: tuple[float, float, float, float],
    size: float,
) -> bool:
    """``ch`` at ``box`` (left, bottom, right, top) is the shadow of the character before it
    (``last`` at ``last_box``): the same character, moved under :data:`SHADOW_SHIFT` of the
    font ``size`` both across and up or down."""
    tol = SHADOW_SHIFT * max(size, 1.0)
    return ch == last and abs(box[0] - last_box[0]) < tol and abs(box[1] - last_box[1]) < tol


def drawn_apart(raw: Any, tp: Any, i: int, j: int) -> bool:
    """Characters ``i`` and ``j`` of text page ``tp`` come from different text objects."""
    a, b = raw.FPDFText_GetTextObject(tp, i), raw.FPDFText_GetTextObject(tp, j)
    return ctypes.cast(a, ctypes.c_void_p).value != ctypes.cast(b, ctypes.c_void_p).value
