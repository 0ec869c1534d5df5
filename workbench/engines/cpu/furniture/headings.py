"""Headings from type: font size and weight (text layer) or line height and stroke weight (OCR).

A line is *heading-like* when it is short (at most ``MAX_WORDS`` words), starts with a
capital letter, digit or quote, or a letter of a script without case (:func:`cues.
starts_like_heading`: CJK), has at least three letters (two of a script without case), is
not a sentence (ends with
``.`` and has ``cues.PROSE_WORDS`` words or more, mostly in lower case: "Two triangles are similar
when their angles are equal.") nor a table row (two or more numbers making a third of its
tokens, or figures level with it on its right: a row label), and either

* is set *larger*: at least ``SIZE_RATIO`` × the page's body size (text layer; the body size
  is the character-weighted median line size), or, on a scan, ``OCR_RATIO`` × the body line
  height (the character-weighted median height of the lines of the same reader, when it read
  ``MIN_CHARS`` characters or more; else the page's median line height), or
  ``OCR_BOLD_SIZE`` × that height and bold (a 14 pt bold heading over 11 pt text is only
  ~1.3 × as tall: Tesseract's line boxes span ascenders and descenders alike); never at a
  size the page sets running text in (:func:`cues.prose_sizes`: a paper's last page, whose
  references outweigh its paragraphs, has a median under the paragraphs' size), or
* is *bold at body size*: bold (text layer: the font, at 0.9 × body size or more; scan: its
  :func:`.weight.stroke` is at least ``BOLD_RATIO`` × the page's character-weighted median
  stroke, or ``weight.SEMI_BOLD_RATIO`` × when the line stands apart from the text over and
  under it (a degraded scan thins bold), at ``MIN_BOLD_HEIGHT`` × body height or more:
  "3 Methods" has no descender), does not end
  like a sentence (``.`` ``,`` ``;``) nor is a label with its value ("Since: 1.6"), is not a
  caption ("Figure 3:", which :mod:`captions` labels), and the page is not mostly bold (forms
  set every label in bold) nor is one of ``cues.MIN_KEYS`` or more keys of a key/value list (bold,
  at one left edge, each with its value level on its right). A numbered title in a
  small-capitals face ("1. Introduction" in cmcsc), or in capitals ("1. INTRODUCTION", on a
  page with at most ``cues.MAX_UPPER`` such lines and none close on its right: else a
  form's field labels), counts as bold
  at body size; so does a lettered or numbered title set wholly in italics ("A. Emily
  Howell": :func:`cues.italic_section`, not an author's initial and name).

A line set on its side (``cues.VERTICAL``: a rotated stamp in the margin) is never a heading,
nor is a line of a form's key/value rows (:func:`cues.form_rows`: a key, a wide gap, its value,
row after row; RapidOCR's boxes, taller than Tesseract's, made them look like larger type), nor
a bold body-size line right over a table (:func:`cues.over_table`: that table's caption). A
layout-model ``title`` that no line's type makes a heading stays a title on the text layer
only when a line is set apart by form or face (numbered, small capitals, bold; starting like
a heading): the model also calls a bold term, a code line or a paragraph's first line a title.
A chapter's label ("Chapter 5", "Appendix A") over its title is one heading with it; three
heading runs or more level on one row are a table's column heads (:func:`joins.column_heads`),
not headings.

The stroke of an OCR line is measured by :mod:`.weight`.

:func:`split` walks each text-like block's lines top to bottom and cuts it into runs of
heading-like and other lines (two heading lines more than ``joins.WRAP_GAP`` of their height apart
are two headings); a heading run of at most ``MAX_LINES`` lines becomes its own block (so a
heading the layout model glued to its paragraph, or left in a text box, is found; a heading
split over two lines stays one heading); a layout-model ``title`` made only of
sentences or rows of figures becomes text. Levels: the larger headings' sizes are
clustered (within 8 %) and ranked, largest first; the largest is level 1 (the page title,
``#``) only when it is ≥ ``TITLE_RATIO`` × body size, else levels start at 2 (``##``); bold
body-size headings take the level under the smallest larger one (an italic subsection one
more); a numbered heading is at
least one level under its number's depth ("2 Method" ≥ 2, "2.3 Area" ≥ 3: a numbered section
is never the page title); levels stop at 4.
"""

from __future__ import annotations

import re

from workbench.engines.cpu.boxes import Line, union_all, weighted_median
from workbench.engines.cpu.figures.captions import is_caption
from workbench.engines.cpu.furniture import cues, joins, weight
from workbench.engines.cpu.page import Block

MAX_WORDS = 14  # a heading is a phrase; a longer line is a sentence or a list item
MAX_LINES = 3  # a heading wraps over two or three lines; more is a paragraph
SIZE_RATIO = 1.15  # text layer: 12 pt over 10.5 pt body is a heading; sizes are exact
OCR_RATIO = 1.35  # scans: line boxes vary ~20 % with ascenders, so a wider margin
OCR_BOLD_SIZE = 1.15  # ...or bold and this much taller (14 pt bold over 11 pt: ~1.3×)
BOLD_RATIO = 1.2  # stroke of bold type over the body's: measured ≥ 1.22 at 200 DPI
TITLE_RATIO = 1.5  # only type this much larger than the body is a page title (#)
OCR_PROSE_WORDS = 8  # an OCR line this long and mostly lower case is running text
MIN_CHARS = 200  # a reader's median line height is trusted from this many characters on
MIN_BOLD_HEIGHT = 0.7  # "3 Methods" (no descender) is 0.75 × a body line
MARGIN = 0.08  # lines in the outer 8 % are running heads, never headings
_FOLIO = re.compile(r"^\d{1,3}\s|\s\d{1,3}$|^page\s", re.IGNORECASE)  # a running head
#: the blocks whose lines may be headings (:mod:`.outline` too)
TEXTY = {"text", "title", "ocr_lines", "reference", "figure_caption", "table_caption"}


def body_size(lines: list[Line]) -> float:
    """Character-weighted median font size of text-layer lines (0 without any)."""
    return weighted_median([(ln.size, len(ln.text)) for ln in lines if ln.size > 0])


class Page:
    """What a line is compared with: the body size (text layer), the median line height and
    the body stroke (OCR), and whether most of the page is bold."""

    def __init__(self, lines: list[Line], line_h: float) -> None:
        self.body = body_size(lines)
        self.prose = cues.prose_sizes(lines)
        self.line_h = line_h
        # body line height per reader: RapidOCR's boxes are taller than Tesseract's for the
        # same type, and a table's many short cells must not set the body height
        self.heights: dict[str, float] = {}
        chars: dict[str, int] = {}
        for src in {ln.source for ln in lines if ln.size <= 0}:
            mine = [(ln.height, len(ln.text)) for ln in lines if ln.size <= 0 and ln.source == src]
            chars[src] = sum(n for _, n in mine)
            if chars[src] >= MIN_CHARS:  # else the page's median line height
                self.heights[src] = weighted_median(mine)
        most = max(chars, key=lambda k: chars[k]) if chars else ""
        self.numbers = [ln.box for ln in lines if cues.row(ln.text.split()) or cues.number(ln.text)]
        self.numbered_upper = sum(cues.numbered_caps(ln.text) for ln in lines if ln.size > 0)
        self.keys = cues.keys(lines) | cues.fields(lines) | cues.form_rows(lines)
        self.body_h = self.heights.get(most) or line_h
        ocr = [ln for ln in lines if ln.size <= 0 and ln.stroke > 0]
        self.ocr = ocr
        self.stroke = weighted_median([(ln.stroke, len(ln.text)) for ln in ocr])
        sized = sum(len(ln.text) for ln in lines if ln.size > 0)
        bold = sum(len(ln.text) for ln in lines if ln.bold)
        heavy = sum(len(ln.text) for ln in ocr if self._heavy(ln))
        self.bold_page = bold > 0.4 * max(sized, 1) or heavy > 0.4 * max(
            sum(len(ln.text) for ln in ocr), 1
        )

    def _heavy(self, ln: Line) -> bool:
        return self.stroke > 0 and ln.stroke >= BOLD_RATIO * self.stroke

    def _semi_bold(self, ln: Line) -> bool:
        return weight.semi_bold(ln, self.ocr, self.body_h, self.stroke)

    def kind(self, ln: Line) -> str:
        """``"size"`` (set larger), ``"weight"`` (bold at body size) or ``""`` (not a
        heading); see the module docstring."""
        text = ln.text.strip()
        words = text.split()
        if len(words) > MAX_WORDS or not cues.enough_letters(text) or cues.vertical(ln):
            return ""
        if (
            not cues.starts_like_heading(text)
            or cues.refused(text)
            or self._row_label(ln)
            or id(ln) in self.keys
        ):
            return ""
        sentence_end = text.endswith((".", ",", ";", "。", "，", "；")) or bool(
            cues.LABEL_VALUE.match(text)
        )
        if ln.size > 0 and self.body > 0:
            if ln.size >= SIZE_RATIO * self.body and not cues.among(ln.size, self.prose):
                return "size"
            bold = ln.bold and ln.size >= 0.9 * self.body
            if not bold and ln.size >= 0.9 * self.body:
                # "1. INTRODUCTION" in capitals, "1. Introduction" in a small-capitals face
                upper = cues.numbered_caps(text) and self.numbered_upper <= cues.MAX_UPPER
                bold = upper or (ln.caps and cues.heading_form(text))
                bold = bold or (ln.italic and cues.italic_section(text))
        else:
            body_h = self.heights.get(ln.source) or self.line_h
            if body_h <= 0 or _running_prose(words):
                return ""
            ratio = ln.height / body_h
            if ratio >= OCR_RATIO or (ratio >= OCR_BOLD_SIZE and self._heavy(ln)):
                return "size"
            bold = ratio >= MIN_BOLD_HEIGHT and (self._heavy(ln) or self._semi_bold(ln))
        if bold and not self.bold_page and not sentence_end and not is_caption(text):
            return "weight"
        return ""

    def wraps(self, run: list[Line], ln: Line, rows: bool = True) -> bool:
        """``ln`` is the wrapped end of the heading ``run`` although it is no heading alone
        (:func:`joins.wraps`), short, and no key of a form nor (``rows``) a table row's label
        (a line of another block is asked without: figures level with it there stand in
        another column, as a table beside a heading's "2004")."""
        return (
            len(run) < MAX_LINES
            and len(ln.text.split()) <= MAX_WORDS
            and joins.wraps(run[-1], ln)
            and id(ln) not in self.keys
            and not (rows and self._row_label(ln))
        )

    def _row_label(self, ln: Line) -> bool:
        """Figures stand level with the line, to its right: it labels a table row ("Total"
        in bold, its amounts in separate text-layer lines)."""
        y0, y1 = ln.box[1], ln.box[3]
        return any(
            b[0] > ln.box[2] and min(b[3], y1) - max(b[1], y0) > 0.5 * min(b[3] - b[1], y1 - y0)
            for b in self.numbers
        )


def _running_prose(words: list[str]) -> bool:
    """A long OCR line mostly in lower case ("On light loams, the returns to the Doncaster
    Committee give bones a"): a line of a paragraph, whatever its box's height (an OCR box
    that took in a mark from the line above is taller than its type)."""
    long = [w for w in words if sum(c.isalpha() for c in w) > 1]
    lower = sum(w[:1].islower() for w in long)
    return len(words) >= OCR_PROSE_WORDS and lower > 0.5 * len(long)


def _depth(text: str) -> int:
    m = cues.NUMBERED.match(text.strip())
    return m.group(1).count(".") + 1 if m else 0


def _carry_over(page: Page, out: list[Block], found: list[tuple[int, float, bool]]) -> set[int]:
    """A block's first line that is no heading alone but the wrapped end of a heading found
    in another block (:meth:`Page.wraps`) goes to that heading: the layout model boxed "2004"
    with the paragraph under "Expatriation Before June 4,". In place; returns emptied ids."""
    heads = {k for k, _, _ in found}
    emptied: set[int] = set()
    for j, b in enumerate(out):
        if j in heads or b.native not in TEXTY or not b.lines:
            continue
        first = b.lines[0]  # split sorted every text block's lines, top row first
        if page.kind(first):
            continue
        for k in heads:
            head = out[k]
            if joins.set_under(head.lines[-1], first) and page.wraps(head.lines, first, rows=False):
                out[k] = Block(head.native, union_all([head.box, first.box]),
                               [*head.lines, first], head.score)  # fmt: skip
                b.lines = [ln for ln in b.lines if ln is not first]
                if not b.lines:
                    emptied.add(id(b))
                break
    return emptied


def split(blocks: list[Block], lines: list[Line], line_h: float, height: float) -> list[Block]:
    """Blocks with heading runs cut out as ``heading:N`` blocks.
    Lines in the bottom ``MARGIN`` of the page, or in the top one with a page number at either
    end, are left alone (running heads)."""
    page = Page(lines, line_h)
    out: list[Block] = []
    found: list[tuple[int, float, bool]] = []  # (index in out, size, bold at body size)
    for b in blocks:
        native, box, group, score = b.native, b.box, b.lines, b.score
        if native not in TEXTY or not group:
            out.append(b)
            continue
        group = sorted(group, key=lambda ln: (round(ln.box[1] / 4), ln.box[0]))
        runs: list[tuple[str, list[Line]]] = []
        for ln in group:
            edge = ln.box[1] > (1 - MARGIN) * height or (
                ln.box[3] < MARGIN * height and bool(_FOLIO.search(ln.text))
            )
            kind = "" if edge else page.kind(ln)
            prev = runs[-1][1][-1] if runs else None
            if not kind and not edge and prev is not None and runs[-1][0]:
                kind = runs[-1][0] if page.wraps(runs[-1][1], ln) else ""
            if (
                prev is not None
                and bool(runs[-1][0]) == bool(kind)
                and joins.same_row_or_next(prev, ln)
                # a title, then its subtitle; but "Chapter 5" over its title is one heading
                and not (kind and joins.other_size(prev, ln) and not cues.CHAPTER.match(prev.text))
                and not (kind and joins.apart_lines(prev, ln))
            ):
                runs[-1][1].append(ln)
                if kind == "size":
                    runs[-1] = ("size", runs[-1][1])
            else:
                runs.append((kind, [ln]))
        if len(runs) == 1 and not runs[0][0]:
            if native == "title" and not cues.model_title(group):
                native = "text"  # the layout model's "title" on a sentence or on body type
            out.append(Block(native, box, group, score))
            continue
        for kind, run in runs:
            rbox = union_all([ln.box for ln in run]) if len(runs) > 1 else box
            caption = kind == "weight" and cues.over_table(run, blocks)
            if kind and len(run) <= MAX_LINES and not caption:
                size = max(joins.size(ln) for ln in run)
                found.append((len(out), size, kind == "weight"))
                out.append(Block("heading", rbox, run, score))
            else:
                plain = "text" if native == "title" and not cues.model_title(run) else native
                out.append(Block(plain, rbox, run, score))
    found = joins.column_heads(out, found)
    if not found:
        return out
    emptied = _carry_over(page, out, found)
    out, found = joins.join_labels(out, found)
    sizes = sorted({round(s, 1) for _, s, b in found if not b}, reverse=True)
    clusters: list[float] = []
    for s in sizes:
        if not clusters or s < 0.92 * clusters[-1]:
            clusters.append(s)
    ref = page.body if page.body > 0 else page.body_h
    start = 1 if clusters and ref > 0 and clusters[0] >= TITLE_RATIO * ref else 2
    for k, size, body_bold in found:
        if body_bold:  # an italic subsection ("A. Emily Howell") under a bold or caps one
            level = start + len(clusters) + all(ln.italic for ln in out[k].lines)
        else:
            level = start + sum(1 for c in clusters if c > size * 1.08)
        box, run, score = out[k].box, out[k].lines, out[k].score
        depth = _depth(" ".join(ln.text for ln in run))
        if depth:
            level = max(level, depth + 1)
        out[k] = Block(f"heading:{min(level, 4)}", box, run, score)
    return [b for b in out if id(b) not in emptied]
