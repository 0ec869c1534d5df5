"""What formulas need from a PDF page's text layer, beyond words (see
:mod:`workbench.documents.textlayer`, which calls these while it reads a page, under PDFium's
lock).

* :func:`style`: a font's class from its name and flags: ``b`` bold, ``i`` italic, ``m`` a math
  font, ``s`` TeX's symbol font (CMSY: its capitals are calligraphic), ``x`` TeX's extension
  font (CMEX: PDFium reports its codes, which are glyphs), ``c`` small capitals (headings).
* :func:`wanted`: whether a word may be math (a math font, characters outside ASCII, mixed
  sizes, or a leading bracket whose font says nothing of the letters after it); only those
  words keep :func:`glyphs`: each character's box, size, style and baseline. TeX's symbol and
  extension fonts declare huge ascents and descents, so their glyphs keep their own tight box.
* :func:`baseline`: a character's origin, the y of its baseline.
* :func:`rules`: thin horizontal path objects (fraction bars), at most ``MAX_PATHS`` looked at.

All in points of the page as displayed (``to_pt``: the affine map of
:mod:`workbench.documents.textlayer`).
"""

from __future__ import annotations

import ctypes
import sys
from typing import Any

Transform = tuple[float, float, float, float, float, float]
Glyph = tuple[str, float, float, float, float, float, str, float]

BOLD_NAMES = ("bold", "black", "heavy", "semibold", "demi", "-bd", ",bd", "cmbx", "cmb1")
_ITALIC = 1 << 6  # PDF font descriptor flag
_MATH_FONTS = ("cmmi", "cmsy", "cmex", "cmbsy", "msam", "msbm", "math", "symbol", "stix",
               "cambria", "katex", "eufm", "rsfs", "esint", "lmmi", "lmsy", "lmex")  # fmt: skip
_ITALIC_NAMES = ("ital", "oblique", "cmmi", "cmti", "cmsl", "lmmi", "-it")
#: small-capitals faces: TeX's (cmcsc, Latin Modern's "caps"), "SmallCaps"/"-SC" in PostScript names
_CAPS_NAMES = ("cmcsc", "lmromancaps", "smallcaps", "small caps", "-sc", "_sc", "caps10")
MAX_GLYPH_WORD = 40  # longer words are prose: no per-character record
MAX_PATHS = 3000  # path objects looked at for fraction rules (charts have thousands)


def wanted(text: str, kind: str, tex: str | None) -> bool:
    if len(text) > MAX_GLYPH_WORD:
        return False
    bracket = not text[0].isalnum() and any(c.isalpha() for c in text)  # "(gu)", not "(1)"
    return "m" in kind or not text.isascii() or tex is not None or bracket


def _apply(t: Transform, left: float, bottom: float, right: float, top: float) -> tuple[float, ...]:
    a, b, c, d, e, f = t
    xs = [a * x + c * y + e for x in (left, right) for y in (bottom, top)]
    ys = [b * x + d * y + f for x in (left, right) for y in (bottom, top)]
    return (min(xs), min(ys), max(xs), max(ys))


def baseline(raw: Any, tp: Any, i: int, to_pt: Transform) -> float:
    """The displayed y (points) of character ``i``'s origin: its baseline."""
    x, y = ctypes.c_double(), ctypes.c_double()
    if not raw.FPDFText_GetCharOrigin(tp, i, ctypes.byref(x), ctypes.byref(y)):
        return 0.0
    _, b, _, d, _, f = to_pt
    return round(b * x.value + d * y.value + f, 2)


def style(name: str, flags: int, cache: dict[str, str]) -> str:
    """A font's class for formulas (see :class:`~workbench.schema.TextWord`)."""
    key = f"{name}|{flags & _ITALIC}"
    if key not in cache:
        plain = name.split("+", 1)[-1]  # subset prefix "ABCDEF+"
        kind = "b" if any(b in plain for b in BOLD_NAMES) else ""
        if flags & _ITALIC or any(n in plain for n in _ITALIC_NAMES):
            kind += "i"
        if any(n in plain for n in _MATH_FONTS):
            kind += "m"
        if plain.startswith(("cmsy", "cmbsy", "lmsy")):
            kind += "s"
        if plain.startswith(("cmex", "lmex")):
            kind += "x"
        if any(n in plain for n in _CAPS_NAMES):
            kind += "c"
        cache[key] = sys.intern(kind)
    return cache[key]


def glyphs(
    raw: Any,
    tp: Any,
    chars: list[tuple[str, float, float, float]],
    boxes: list[tuple[int, float, float, float, float]],
    to_pt: Transform,
    buf: Any,
    flags: Any,
    styles: dict[str, str],
) -> tuple[Glyph, ...]:
    out = []
    box4 = [ctypes.c_double() for _ in range(4)]
    tight = [ctypes.byref(v) for v in box4]  # left, right, bottom, top
    last, kind = None, ""
    for (ch, size, _, _), (i, lt, bt, rt, tpp) in zip(chars, boxes, strict=True):
        obj = ctypes.cast(raw.FPDFText_GetTextObject(tp, i), ctypes.c_void_p).value
        if obj != last or obj is None:  # one font a text object: its name is read once
            raw.FPDFText_GetFontInfo(tp, i, buf, len(buf), ctypes.byref(flags))
            kind = style(buf.value.decode("latin-1", "replace").lower(), flags.value, styles)
            last = obj
        if ("s" in kind or "x" in kind) and raw.FPDFText_GetCharBox(tp, i, *tight):
            # TeX's symbol and extension fonts declare huge ascents and descents: the glyph's
            # own box is the one that says where a big operator or a relation sits
            lt, rt, bt, tpp = (v.value for v in box4)
        b = _apply(to_pt, lt, bt, rt, tpp)
        out.append(
            (
                ch,
                round(b[0], 2),
                round(b[1], 2),
                round(b[2], 2),
                round(b[3], 2),
                round(size, 2),
                kind,
                baseline(raw, tp, i, to_pt),
            )
        )
    return tuple(out)


def rules(page: Any, to_pt: Transform) -> list[tuple[float, float, float, float]]:
    """Thin horizontal path objects (fraction bars, underlines, table rules), points: the
    page's own objects (pdfTeX and word processors draw rules there), through the raw API
    (a form full of boxes has thousands of paths; wrapping each costs milliseconds)."""
    import pypdfium2.raw as raw

    out: list[tuple[float, float, float, float]] = []
    edges = [ctypes.c_float() for _ in range(4)]
    refs = [ctypes.byref(v) for v in edges]  # left, bottom, right, top
    try:
        n = min(raw.FPDFPage_CountObjects(page.raw), MAX_PATHS)
        for k in range(n):
            obj = raw.FPDFPage_GetObject(page.raw, k)
            if raw.FPDFPageObj_GetType(obj) != raw.FPDF_PAGEOBJ_PATH:
                continue
            if not raw.FPDFPageObj_GetBounds(obj, *refs):
                continue
            b = _apply(to_pt, *(v.value for v in edges))
            if b[3] - b[1] <= 2.0 and b[2] - b[0] >= 3.0 and b[2] - b[0] > 3 * (b[3] - b[1]):
                out.append((round(b[0], 2), round(b[1], 2), round(b[2], 2), round(b[3], 2)))
    except Exception:  # a broken object tree must not cost the text layer
        return out
    return out
