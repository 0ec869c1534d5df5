"""The PDF's own text layer as engine lines, and whether to trust it.

:func:`lines_from_layer` turns a :class:`~workbench.schema.TextLayer` (words in points) into
:class:`~workbench.engines.cpu.boxes.Line` records in ``page_px`` of the request image: words
are scaled by ``image size / page size``, exact duplicates (text drawn twice for fake bold or
shadows) are dropped, and words in the layer's order are cut into geometric lines: a new line
starts where a word leaves the line's band, jumps back left, or follows a gap wider than
``SPLIT_GAP`` × the font size (columns, table cells set on one baseline); a list bullet
(:data:`BULLETS`) alone before its item's text stays on its line up to ``MARKER_GAP`` font
sizes (a tab stop, LaTeX's label box). A smaller word
glued to the previous one above or below its centre is a script: ``x²``/``x₁`` in the text
(``x^(ab)`` when Unicode has no such script character; footnote marks as they are:
"Team∗") and ``x^{2}`` in the line's TeX form.
Lines carry the font size (px), boldness and small capitals; ``source`` is ``"text_layer"``,
confidence 100.
Display formulas (:func:`formulas.find`) leave the line flow as one ``display`` line each,
with their TeX; inline math plain text cannot say (``λ_g``) becomes TeX inside its line
(:mod:`~workbench.engines.cpu.formulas.inline`).

:func:`judge` says whether the layer can replace OCR on this page (``auto`` mode):

* characters without a Unicode mapping, U+FFFD, controls or private-use glyphs over
  ``MAX_GARBLED`` of the characters: a garbled layer (bad font encodings);
* characters drawn invisibly over ``MAX_INVISIBLE``: an OCR layer under a scan (our OCR is
  the better reader of the image);
* words with no ink under them (no contrast in the rendered image) over ``MAX_INKLESS`` of a
  sample: text hidden under images, white text, or a layer that does not match the page;
* and, checked by the engine with Tesseract, a quick OCR of three of the layer's lines
  (:func:`sample`) that finds under ``MIN_AGREEMENT`` of their words (:func:`agreement`): a
  font whose glyphs map to the wrong letters.

:func:`image_regions` gives the image objects, in ``page_px``, that hold (almost) no layer
words: the regions OCR must read (a scanned figure, a screenshot of text).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np
from PIL import Image

from workbench.engines.cpu.boxes import Box, Line, Word, cover, union_all
from workbench.engines.cpu.formulas import find as formulas
from workbench.engines.cpu.formulas import inline as formula_inline
from workbench.engines.cpu.readers import faces
from workbench.engines.cpu.readers.baseline import (
    MARKS,
    SPLIT_GAP,
    SUB,
    SUP,
    scripts_as_text,
    stacked,
    upright,
)
from workbench.schema import TextLayer, TextWord

#: a list bullet alone before a gap up to this many font sizes (a word processor's tab stop,
#: LaTeX's label box) stays on its item's line, so the item reads "• text" and lists find it
MARKER_GAP = 6.0
BULLETS = frozenset("•·▪●○◦■□➢►▶✓❖–-*»")
MAX_GARBLED = 0.05  # share of characters unmapped (U+FFFD, private use): bad font encodings
MAX_INVISIBLE = 0.5  # share of characters drawn invisibly (OCR under a scan): OCR reads instead
MAX_INKLESS = 0.3  # share of sampled words with no ink under them: the layer is not what shows
MIN_AGREEMENT = 0.4  # share of sampled layer words a quick OCR must find
INK_CONTRAST = 40  # grey levels between the darkest and lightest pixel under an inked word
SAMPLE = 150  # words checked for ink


def lines_from_layer(layer: TextLayer, width: int, height: int) -> list[Line]:
    sx, sy = layer.scale(width, height)
    scale = (sx + sy) / 2
    seen: set[tuple[str, int, int]] = set()
    runs: list[list[tuple[TextWord, Box]]] = []
    run: list[tuple[TextWord, Box]] = []
    for w in layer.words:  # in the layer's own order: reading order within each text flow
        box = (w.box[0] * sx, w.box[1] * sy, w.box[2] * sx, w.box[3] * sy)
        key = (w.text, round(box[0] / 3), round(box[1] / 3))  # same word within ~3 px: a copy
        if key in seen or box[2] - box[0] < 0.5 or box[3] - box[1] < 0.5:
            continue
        seen.add(key)
        if run and _breaks(run, box, w, scale):
            runs.append(run)
            run = []
        run.append((w, box))
    if run:
        runs.append(run)
    rules = [(r[0] * sx, r[1] * sy, r[2] * sx, r[3] * sy) for r in layer.rules]
    keep, found = formulas.find(runs, rules, sx, sy)
    at: dict[int, list[formulas.Formula]] = {
        min(f.runs): [] for f in found
    }  # a formula stands where its first run did
    for f in found:
        at[min(f.runs)].append(f)
    lines: list[Line] = []
    kept = set(keep)
    for i, r in enumerate(runs):
        lines.extend(_formula_line(f) for f in at.get(i, []))
        if i in kept:
            lines.append(_line(formula_inline.inline(r, sx, sy), scale))
    return lines


def _formula_line(f: formulas.Formula) -> Line:
    words = [Word(w.text, b, 100.0) for w, b in f.words]
    return Line(
        f.text, f.box, 100.0, "text_layer", words, size=round(f.size, 2), tex=f.tex, display=True
    )


def _breaks(run: list[tuple[TextWord, Box]], box: Box, w: TextWord, scale: float) -> bool:
    """Does ``w`` (at ``box``) start a new line after ``run``? Lines are geometric: words on
    one band (vertical overlap of 40 % of the smaller height, so raised or lowered scripts
    stay) with no wide gap and no jump back to the left."""
    prev_w, prev = run[-1]
    size = max(prev_w.size, w.size) * scale
    on_side = any(upright(*x) for x in run)
    if on_side or upright(w, box):  # text set on its side ("Number of Registered voters")
        return not stacked(prev, box, size)
    gap = box[0] - prev[2]
    top = min(b[1] for _, b in run)
    bottom = max(b[3] for _, b in run)
    overlap = min(bottom, box[3]) - max(top, box[1])
    small = min(bottom - top, box[3] - box[1])
    if len(run) == 1 and prev_w.text in BULLETS and 0 <= gap <= MARKER_GAP * size:
        small = min(small, 0.5 * (box[3] - box[1]))  # a bullet glyph is short: its item's line
        return overlap < 0.4 * small
    return overlap < 0.4 * small or gap > SPLIT_GAP * size or gap < -0.5 * size


def _line(run: list[tuple[TextWord, Box]], scale: float) -> Line:
    sizes = sorted(w.size for w, _ in run)
    main = sizes[-1]
    full = [b for w, b in run if w.size >= 0.85 * main]
    mid = sorted((b[1] + b[3]) / 2 for b in full)[len(full) // 2]
    texts: list[str] = []
    tex: list[str] = []
    words: list[Word] = []
    prev: Box | None = None
    scripts = False
    on_side = any(upright(w, b) for w, b in run)  # no scripts up a turned column head
    for w, box in run:
        mark = ""
        if w.size < 0.85 * main and not on_side:
            centre = (box[1] + box[3]) / 2
            mark = (
                "^"
                if centre < mid - 0.15 * main * scale
                else "_"
                if centre > mid + 0.1 * main * scale
                else ""
            )
        glued = prev is not None and box[0] - prev[2] < 0.15 * main * scale
        if mark and glued and texts:  # a script on the previous word: x², x₁, x^{ab}
            table = SUP if mark == "^" else SUB
            plain = w.text.translate(table)
            same = all(c != o for c, o in zip(plain, w.text, strict=True))
            if mark == "^" and set(w.text) <= MARKS:  # a footnote mark: "Team∗"
                texts[-1] += w.text
                tex[-1] += w.text
            else:
                texts[-1] += plain if same else f"{mark}({w.text})"
                tex[-1] += f"{mark}{{{w.tex or w.text}}}"
                scripts = True
            words[-1] = Word(
                texts[-1],
                (
                    words[-1].box[0],
                    min(words[-1].box[1], box[1]),
                    box[2],
                    max(words[-1].box[3], box[3]),
                ),
                100.0,
            )
        elif mark == "^" and not texts and w.text.isdigit():  # a footnote mark opening a line
            texts.append(w.text.translate(SUP))
            tex.append(f"^{{{w.text}}}")
            words.append(Word(texts[-1], box, 100.0))
        else:
            texts.append(scripts_as_text(w.tex) if w.tex else w.text)
            tex.append(w.tex or w.text)
            scripts = scripts or w.tex is not None
            words.append(Word(w.text, box, 100.0))
        prev = box
    box = union_all([b for _, b in run])
    full_sizes = sorted(w.size for w, _ in run if w.size >= 0.85 * main)
    chars = sum(len(w.text) for w, _ in run)

    def most(face: Callable[[TextWord], bool]) -> bool:  # 60 % of the line's characters
        return sum(len(w.text) for w, _ in run if face(w)) >= 0.6 * chars

    down, up = (sum(len(w.text) for w, _ in run if k in w.style) for k in "da")

    return Line(
        " ".join(texts),
        box,
        100.0,
        "text_layer",
        words,
        size=round(full_sizes[len(full_sizes) // 2] * scale, 2),
        bold=most(lambda w: w.bold) and not faces.run_in([w for w, _ in run]),
        caps=most(lambda w: "c" in w.style),
        # a math font's italic letters are no italic face
        italic=most(lambda w: "i" in w.style and "m" not in w.style),
        tex=" ".join(tex) if scripts else None,
        turned=(-1 if down > up else 1 if up > down else 0) if on_side else 0,
    )


def _garbled(text: str) -> bool:
    o = ord(text)
    return text == "\ufffd" or o < 32 or 0xE000 <= o <= 0xF8FF


def judge(layer: TextLayer | None, image: Image.Image) -> str | None:
    """None when the layer can replace OCR on this page, else why not (for the trace)."""
    if layer is None or layer.chars == 0 or not layer.words:
        return "no text layer"
    bad = layer.unmapped + sum(_garbled(c) for w in layer.words for c in w.text)
    if bad > MAX_GARBLED * layer.chars:
        return f"garbled text layer ({bad} of {layer.chars} characters unmapped)"
    if layer.invisible > MAX_INVISIBLE * layer.chars:
        return "invisible text layer (OCR under a scan)"
    inkless = _inkless(layer, image)
    if inkless > MAX_INKLESS:
        return f"no ink under {inkless:.0%} of the text layer's words"
    return None


def _inkless(layer: TextLayer, image: Image.Image) -> float:
    grey = np.asarray(image.convert("L"))
    h, w = grey.shape
    sx, sy = layer.scale(w, h)
    words = [wd for wd in layer.words if any(c.isalnum() for c in wd.text)]
    if not words:
        return 0.0
    step = max(1, len(words) // SAMPLE)
    sample = words[::step]
    empty = 0
    for wd in sample:
        x0, y0 = max(int(wd.box[0] * sx), 0), max(int(wd.box[1] * sy), 0)
        x1, y1 = min(int(wd.box[2] * sx) + 1, w), min(int(wd.box[3] * sy) + 1, h)
        if x1 <= x0 or y1 <= y0:
            empty += 1
            continue
        patch = grey[y0:y1, x0:x1]
        if int(patch.max()) - int(patch.min()) < INK_CONTRAST:
            empty += 1
    return empty / len(sample)


def image_regions(layer: TextLayer, lines: list[Line], width: int, height: int) -> list[Box]:
    """Image objects (``page_px``) that no more than two layer words fall in."""
    sx, sy = layer.scale(width, height)
    out: list[Box] = []
    for b in layer.images:
        box = (
            max(b[0] * sx, 0.0),
            max(b[1] * sy, 0.0),
            min(b[2] * sx, float(width)),
            min(b[3] * sy, float(height)),
        )
        if box[2] - box[0] < 32 or box[3] - box[1] < 16:
            continue
        inside = sum(1 for ln in lines for wd in ln.words if cover(wd.box, box) > 0.5)
        if inside <= 2:
            out.append(box)
    return out


# Latin letters only: the checker is Tesseract's English model, which reads no other script,
# so a CJK, Greek or Cyrillic layer's words would all "disagree" (a Japanese slide's correct
# layer was refused and read by OCR models that cannot read kana).
_TOKEN = re.compile(r"[A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f]{3,}")


def _tokens(text: str) -> list[str]:
    text = re.sub("\ue000[^\ue001]*\ue001", " ", text)  # inline TeX: no words to OCR
    return [t.casefold() for t in _TOKEN.findall(text)]


def sample(lines: list[Line], k: int = 3) -> list[Line]:
    """Up to ``k`` lines with three or more words of three Latin letters, spread down the
    page; never a line set on its side (OCR reads across). None (an empty list) on a page in
    another script: nothing there that the checker can read."""
    across = [ln for ln in lines if ln.box[3] - ln.box[1] <= ln.box[2] - ln.box[0]]
    wordy = sorted((ln for ln in across if len(_tokens(ln.text)) >= 3), key=lambda ln: ln.box[1])
    if len(wordy) <= k:
        return wordy
    return [wordy[round(i * (len(wordy) - 1) / (k - 1))] for i in range(k)]


def agreement(layer_text: str, ocr_text: str) -> float:
    """Share of the layer's words (three Latin letters or more, case-folded) the OCR also
    read."""
    want = _tokens(layer_text)
    got = set(_tokens(ocr_text))
    return sum(t in got for t in want) / len(want) if want else 1.0
