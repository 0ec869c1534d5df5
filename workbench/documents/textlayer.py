"""A PDF page's text layer as a typed :class:`~workbench.schema.TextLayer`: words with boxes,
font size and weight, in points of the page as displayed.

Contract
--------
* :func:`extract` reads one open ``pypdfium2.PdfPage``; the caller holds PDFium's lock
  (:data:`PDFIUM_LOCK`, which :mod:`workbench.documents` uses for every PDFium call: PDFium is
  not thread-safe). :func:`extract_pdf` opens a file or bytes itself and takes the lock.
* Coordinates: points, origin top-left of the page *as rendered* (crop box and ``/Rotate``
  applied through ``FPDF_PageToDevice``), so a box scales to any rendering by
  ``TextLayer.scale(width_px, height_px)``. The record is picklable (frozen dataclasses), so
  it can travel from a rendering worker process to the engine.
* Words break at spaces and line breaks (PDFium's generated ones included); each word keeps the
  font size and boldness of its first character, its line index, and, when some of its
  characters are smaller and raised or lowered, a TeX form (``t^{2}``, ``x_{i}``) for formulas.
* For formulas (:mod:`workbench.engines.cpu.formulas.find`): each word's font class (``style``:
  bold, italic, math font, TeX symbol or extension font, from the font's name and flags), the
  characters of words that may be math (``glyphs``: box, size, style and baseline of each,
  for words in a math font, with characters outside ASCII, or of mixed sizes; TeX's symbol
  and extension fonts by their glyphs' own tight boxes, since their fonts declare huge
  ascents and descents), each word's baseline (``base``), and thin horizontal paths
  (``rules``: fraction bars).
* For ruled tables: the page's straight ruling lines (``edges``, :mod:`.ruling`).
* Spacing accents that TeX draws as glyphs of their own (``´ ˇ ¨ ˆ …`` over a letter, often out
  of reading order: "Min ´ a´c ... ˇ") are composed onto the letter they sit over ("Mináč").
* A glyph drawn again a hair off itself (a drop shadow, which PDFium's text interleaves
  glyph by glyph: "MMuunn…") reads once (:func:`.chars.shadow`).
* Trust signals for the engine: characters without a Unicode mapping (``unmapped``), drawn
  invisibly (``invisible``, render mode 3: an OCR layer under a scan), and the image objects
  on the page (``images``: regions that may hold text the layer lacks).

Extraction is a few ctypes calls per character: about 10-40 ms for a dense page.
"""

from __future__ import annotations

import ctypes
import dataclasses
import math
import threading
from pathlib import Path
from typing import Any

from workbench.documents import chars as pdfchars
from workbench.documents import glyphs as textglyphs
from workbench.documents import outline, ruling
from workbench.errors import DocumentError, PageRangeError
from workbench.schema import TextLayer, TextWord

#: PDFium is not thread-safe; every PDFium call in the process goes under this lock
#: (:mod:`workbench.documents` uses the same one).
PDFIUM_LOCK = threading.RLock()

_BOLD_NAMES = textglyphs.BOLD_NAMES
_FORCE_BOLD = 1 << 18  # PDF font descriptor flag
_MIN_IMAGE = 0.01  # image objects under this share of the page area are ignored (icons, rules)
#: TeX's ligature slots, OT1 (0x0B-0x0F) and T1 (0x1B-0x1F), which PDFium reports as control
#: codes when a bitmap (Type 3) TeX font names no glyphs; the two ranges do not overlap
_TEX_LIGATURES = {chr(base + k): lig for base in (0x0B, 0x1B)
                  for k, lig in enumerate(("ff", "fi", "fl", "ffi", "ffl"))}  # fmt: skip


def extract_pdf(source: str | Path | bytes, index: int) -> TextLayer | None:
    """The text layer of page ``index`` (1-based) of a PDF file or bytes; None without text."""
    import pypdfium2 as pdfium

    with PDFIUM_LOCK:
        pdf = pdfium.PdfDocument(source)
        try:
            page = pdf[index - 1]
            try:
                return extract(page)
            finally:
                page.close()
        finally:
            pdf.close()


def extract_text_layer(page: Any, index: int | None = None) -> TextLayer | None:
    """:func:`extract`, but None instead of an exception: a broken text layer only means the
    page is read by OCR (used by :mod:`workbench.documents` on every rendered PDF page); with
    the page's 1-based ``index``, the layer carries the document's bookmarks on that page."""
    try:
        layer = extract(page)
    except Exception:
        return None
    if layer is not None and index is not None:
        layer = dataclasses.replace(layer, outline=outline.on_page(page.pdf, index))
    return layer


def extract(page: Any) -> TextLayer | None:
    """The text layer of an open ``pypdfium2.PdfPage`` (caller holds :data:`PDFIUM_LOCK`).

    None when the page draws no text at all."""
    import pypdfium2.raw as raw

    width, height = page.get_size()
    to_pt = _transform(page, width, height)
    textpage = page.get_textpage()
    try:
        tp = textpage.raw
        n = raw.FPDFText_CountChars(tp)
        if n <= 0:
            return None
        words, chars, unmapped, invisible = _words(raw, tp, n, to_pt)
    finally:
        textpage.close()
    if chars == 0:
        return None
    return TextLayer(
        width=round(width, 2),
        height=round(height, 2),
        words=tuple(words),
        chars=chars,
        unmapped=unmapped,
        invisible=invisible,
        images=tuple(_images(page, to_pt, width * height)),
        rules=tuple(textglyphs.rules(page, to_pt)),
        edges=tuple(ruling.edges(page, to_pt)),
    )


Transform = tuple[float, float, float, float, float, float]


def _transform(page: Any, width: float, height: float) -> Transform:
    """Affine map page space → displayed points (top-left origin): (a, b, c, d, e, f) with
    x' = a·x + c·y + e, y' = b·x + d·y + f, measured with ``FPDF_PageToDevice``."""
    import pypdfium2.raw as raw

    k = 100  # device units per point: PageToDevice answers in integers
    sw, sh = round(width * k), round(height * k)
    dx, dy = ctypes.c_int(), ctypes.c_int()

    def dev(x: float, y: float) -> tuple[float, float]:
        raw.FPDF_PageToDevice(page.raw, 0, 0, sw, sh, 0, x, y, ctypes.byref(dx), ctypes.byref(dy))
        return dx.value / k, dy.value / k

    ox, oy = dev(0.0, 0.0)
    ax, ay = dev(1000.0, 0.0)
    bx, by = dev(0.0, 1000.0)
    return ((ax - ox) / 1000, (ay - oy) / 1000, (bx - ox) / 1000, (by - oy) / 1000, ox, oy)


def _box(t: Transform, left: float, bottom: float, right: float, top: float) -> tuple[float, ...]:
    a, b, c, d, e, f = t
    xs = [a * x + c * y + e for x in (left, right) for y in (bottom, top)]
    ys = [b * x + d * y + f for x in (left, right) for y in (bottom, top)]
    return (min(xs), min(ys), max(xs), max(ys))


class _Word:
    __slots__ = ("bottom", "boxes", "chars", "left", "line", "right", "top")

    def __init__(self, line: int) -> None:
        self.chars: list[tuple[str, float, float, float]] = []  # char, size, centre y, x
        self.boxes: list[tuple[int, float, float, float, float]] = []  # index, l, b, r, t
        self.left = self.bottom = float("inf")
        self.right = self.top = float("-inf")
        self.line = line

    def add(self, i: int, ch: str, size: float, box: tuple[float, float, float, float]) -> None:
        """Character ``i`` (``box``: left, bottom, right, top in page space) at the end."""
        lt, bt, rt, tpp = box
        self.chars.append((ch, size, (bt + tpp) / 2, lt))
        self.boxes.append((i, lt, bt, rt, tpp))
        self.left, self.right = min(self.left, lt), max(self.right, rt)
        self.bottom, self.top = min(self.bottom, bt), max(self.top, tpp)

    def shadowed_by(
        self,
        raw: Any,
        tp: Any,
        i: int,
        ch: str,
        box: tuple[float, float, float, float],
        size: float,
    ) -> bool:
        """Character ``i`` (``ch`` at ``box``) is the shadow of this word's last one: at its
        place (:func:`.chars.shadow`) and from another text object (a ligature's letters, "ff",
        share their object and their box)."""
        if not self.chars or self.chars[-1][0] != ch:  # most characters: no slice, no call
            return False
        last = self.boxes[-1]
        return pdfchars.shadow(ch, last[1:], ch, box, size) and pdfchars.drawn_apart(
            raw, tp, i, last[0]
        )


def _words(raw: Any, tp: Any, n: int, to_pt: Transform) -> tuple[list[TextWord], int, int, int]:
    rect = raw.FS_RECTF()
    matrix = raw.FS_MATRIX()
    text = pdfchars.page_text(raw, tp, n)
    composed, accents = pdfchars.composed_accents(raw, tp, text, n)
    words: list[TextWord] = []
    chars = unmapped = 0
    line = 0
    cur: _Word | None = None
    first: list[int] = []  # index of each word's first character
    sources: list[_Word] = []  # each word's characters (for glyphs)

    def close() -> None:
        nonlocal cur
        if cur is not None and cur.chars:
            words.append(_finish(cur, to_pt))
            sources.append(cur)
        cur = None

    get_generated, map_error = raw.FPDFText_IsGenerated, raw.FPDFText_HasUnicodeMapError
    get_size, get_matrix = raw.FPDFText_GetFontSize, raw.FPDFText_GetMatrix
    get_box = raw.FPDFText_GetLooseCharBox
    rect_ref, matrix_ref = ctypes.byref(rect), ctypes.byref(matrix)
    last_raw, factor = -1.0, 1.0
    fresh = True  # no word started yet on this line
    for i in range(n):
        if i in accents:
            continue
        ch = composed.get(i) or text[i]
        if ch in "\ufffe\u00ad":  # PDFium's mark for a line-end hyphen, and the soft hyphen
            ch = "-"  # a plain one, which paragraphs de-hyphenate ("exam-" + "ple")
        if ch in "\r\n":
            close()
            if ch == "\n" or (i + 1 < n and text[i + 1] != "\n"):
                line += 1
            fresh = True
            continue
        if ch in _TEX_LIGATURES and (cur is not None or text[i + 1 : i + 2].isalpha()):
            ch = _TEX_LIGATURES[ch]  # a TeX font without glyph names: its code is the glyph
        elif ch.isspace() or get_generated(tp, i) == 1:  # (Python counts U+001C-U+001F too)
            if i - 1 not in accents and i + 1 not in accents:
                close()  # a space beside a moved accent is the accent's: the gap rule decides
            continue
        chars += 1
        marker = False
        if len(ch) == 1 and pdfchars.not_text(ch):  # (len > 1: a ligature)
            unmapped += 1
            if not (fresh and cur is None):
                continue  # a glyph with no character to show: never a control in the text
            ch, marker = "\u2022", True  # alone at a line's start: a list bullet
        elif ch == "\ufffd" or map_error(tp, i) == 1:
            unmapped += 1
        fresh = False
        size = get_size(tp, i)
        if size != last_raw or cur is None:  # effective size: font size × text matrix scale
            last_raw = size
            factor = 1.0
            if get_matrix(tp, i, matrix_ref):
                factor = abs(matrix.a * matrix.d - matrix.b * matrix.c) ** 0.5 or 1.0
        size *= factor
        if not get_box(tp, i, rect_ref):
            continue
        lt, rt, bt, tpp = rect.left, rect.right, rect.bottom, rect.top
        if cur is not None and cur.shadowed_by(raw, tp, i, ch, (lt, bt, rt, tpp), size):
            chars -= 1  # the same glyph again a hair off (a drop shadow): it reads once
            continue
        if cur is None:
            cur = _Word(line)
            first.append(i)
        elif lt - cur.right > 0.25 * max(size, 1.0) or cur.right - rt > 2 * max(size, 1.0):
            close()  # a gap (or a jump back) the layer did not mark with a space: a new word
            cur = _Word(line)
            first.append(i)
        cur.add(i, ch, size, (lt, bt, rt, tpp))
        if marker:
            close()  # the bullet is a word of its own, even glued to the item's first word
    close()
    styled, invisible = _styled(raw, tp, words, first, sources, to_pt)
    return styled, chars, unmapped, invisible


def _styled(
    raw: Any,
    tp: Any,
    words: list[TextWord],
    first: list[int],
    sources: list[_Word],
    to_pt: Transform,
) -> tuple[list[TextWord], int]:
    """``words`` with their weight, style, glyphs and baseline, read once per word at its
    ``first`` character (the calls are costlier than the character loop's), and how many
    characters are drawn invisible (render mode 3)."""
    invisible = 0
    styled: list[TextWord] = []
    objects: dict[int, int] = {}
    buf = ctypes.create_string_buffer(128)
    flags = ctypes.c_int()
    styles: dict[str, str] = {}
    for word, i, src in zip(words, first, sources, strict=True):
        obj = raw.FPDFText_GetTextObject(tp, i)
        key = ctypes.cast(obj, ctypes.c_void_p).value or 0
        if key not in objects:
            objects[key] = raw.FPDFTextObj_GetTextRenderMode(obj) if key else 0
        if objects[key] == 3:  # FPDF_TEXTRENDERMODE_INVISIBLE
            invisible += len(word.text)
        weight = raw.FPDFText_GetFontWeight(tp, i)
        raw.FPDFText_GetFontInfo(tp, i, buf, len(buf), ctypes.byref(flags))
        name = buf.value.decode("latin-1", "replace").lower()
        bold = (
            weight >= 600 or bool(flags.value & _FORCE_BOLD) or any(b in name for b in _BOLD_NAMES)
        )
        style = textglyphs.style(name, flags.value, styles)
        if abs(math.sin(raw.FPDFText_GetCharAngle(tp, i))) > 0.7:
            style += "u" + _runs(src, to_pt)  # on its side (a turned column head, a stamp)
        glyphs: tuple[tuple[str, float, float, float, float, float, str, float], ...] = ()
        if textglyphs.wanted(word.text, style, word.tex):
            glyphs = textglyphs.glyphs(raw, tp, src.chars, src.boxes, to_pt, buf, flags, styles)
        base = textglyphs.baseline(raw, tp, i, to_pt)
        styled.append(
            TextWord(word.text, word.box, word.size, bold, word.line, word.tex, style, glyphs, base)
        )
    return styled, invisible


def _runs(src: _Word, t: Transform) -> str:
    """Which way a word whose characters are turned runs on the displayed page, from its
    first and last characters (the page's /Rotate applied, which the character angle is not:
    a page turned back by /Rotate shows such words level): "d" down, "a" up, "" level or
    one character."""
    (x0, y0, x1, y1), (u0, v0, u1, v1) = (
        _box(t, *box[1:]) for box in (src.boxes[0], src.boxes[-1])
    )
    dx, dy = (u0 + u1 - x0 - x1) / 2, (v0 + v1 - y0 - y1) / 2
    return "" if abs(dy) <= abs(dx) else "d" if dy > 0 else "a"


def _finish(w: _Word, to_pt: Transform) -> TextWord:
    text = "".join(c for c, *_ in w.chars)
    main = max(s for _, s, _, _ in w.chars)
    box = _box(to_pt, w.left, w.bottom, w.right, w.top)
    # vertical centre of the full-size characters (page space, y up); smaller ones off it
    # are scripts
    base = [y for _, s, y, _ in w.chars if s >= 0.85 * main]
    tex = None
    if base and len(w.chars) > 1 and any(s < 0.85 * main for _, s, _, _ in w.chars):
        y0 = sorted(base)[len(base) // 2]
        parts: list[str] = []
        mode = ""
        for ch, s, y, _ in w.chars:
            m = ""
            if s < 0.85 * main:
                m = "^" if y > y0 + 0.2 * main else "_" if y < y0 - 0.1 * main else ""
            if m != mode:
                if mode:
                    parts.append("}")
                if m:
                    parts.append(m + "{")
                mode = m
            parts.append(ch)
        if mode:
            parts.append("}")
        tex = "".join(parts) if "{" in "".join(parts) else None
    return TextWord(
        text=text,
        box=(round(box[0], 2), round(box[1], 2), round(box[2], 2), round(box[3], 2)),
        size=round(main, 2),
        line=w.line,
        tex=tex,
    )


def _images(
    page: Any, to_pt: Transform, page_area: float
) -> list[tuple[float, float, float, float]]:
    import pypdfium2.raw as raw

    out = []
    try:
        objects = page.get_objects(filter=(raw.FPDF_PAGEOBJ_IMAGE,), max_depth=3)
        for obj in objects:
            left, bottom, right, top = obj.get_bounds()
            b = _box(to_pt, left, bottom, right, top)
            if (b[2] - b[0]) * (b[3] - b[1]) >= _MIN_IMAGE * page_area:
                out.append((round(b[0], 2), round(b[1], 2), round(b[2], 2), round(b[3], 2)))
    except Exception:  # a broken object tree must not cost the text layer
        return out
    return out


def pdf_text_layer(data: bytes, page: int, name: str = "PDF") -> str:
    """The embedded text of 1-based ``page`` of a PDF ("" for a scan without a text layer):
    the reference the metrics compare OCR output with; read under the PDFium lock."""
    import pypdfium2 as pdfium

    with PDFIUM_LOCK:
        try:
            pdf = pdfium.PdfDocument(data)
        except pdfium.PdfiumError as exc:
            raise DocumentError(name, f"cannot be read for its text layer ({exc})") from None
        try:
            if not 1 <= page <= len(pdf):
                raise PageRangeError(f"{name}: page {page} is outside the PDF (1-{len(pdf)})")
            pdf_page = pdf[page - 1]
            textpage = pdf_page.get_textpage()
            try:
                text = textpage.get_text_bounded()
            finally:
                textpage.close()
                pdf_page.close()
        finally:
            pdf.close()
    return text.replace("\r\n", "\n").replace("\r", "\n")
