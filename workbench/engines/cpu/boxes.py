"""Plain geometry records shared by the CPU engine's modules.

Boxes are ``(x0, y0, x1, y1)`` float tuples in ``page_px`` of the page image (origin top-left);
they become :class:`workbench.schema.BBox` only when regions are built, in :func:`~.page.regions`.
Two box decisions compose makes first live here: :func:`dedupe_layout` (near-duplicate layout
boxes) and :func:`assign_lines` (each line to the box that holds it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import pairwise

Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class Gutter:
    """A column channel ``x0..x1`` (the gap's middle half) between ``y0`` and ``y1``
    (found by ``layout.gutters``; kept on the page for the passes after it)."""

    x0: float
    y0: float
    x1: float
    y1: float


@dataclass
class Word:
    text: str
    box: Box
    conf: float  # 0-100
    # in a dictionary or confirmed by the other reader (readers.evidence); None: no evidence
    known: bool | None = None


@dataclass
class Line:
    """One OCR text line (Tesseract TEXTLINE, or one RapidOCR detection box)."""

    text: str
    box: Box
    conf: float  # 0-100
    source: str  # "tesseract" | "rapidocr" | "text_layer"
    words: list[Word] = field(default_factory=list)
    size: float = 0.0  # font size in page_px (text layer only; 0: unknown)
    bold: bool = False  # set in a bold face (text layer only)
    caps: bool = False  # set in a small-capitals face (text layer only)
    italic: bool = False  # set in an italic face (text layer only)
    tex: str | None = None  # the line with sub/superscripts in TeX (text layer, when it has any)
    stroke: float = 0.0  # mean ink depth in px (OCR lines, weight.weigh; 0: not measured)
    # a displayed formula from the text layer (formulas.find): ``tex`` is its TeX, or None
    # when the glyphs gave no sound TeX (shown as an image crop)
    display: bool = False
    turned: int = 0  # set on its side (text layer): 1 reads up the page, -1 down it

    @property
    def height(self) -> float:
        """Its height in its own frame: the box's width for text set on its side."""
        return self.box[2] - self.box[0] if self.turned else self.box[3] - self.box[1]

    @property
    def middle(self) -> float:
        """The vertical centre of its box on the page (the y its row is found by)."""
        return (self.box[1] + self.box[3]) / 2


@dataclass
class LayoutBox:
    """One layout-model region before text is attached."""

    native: str  # the model's own label ("text", "figure_caption", "TABLE", ...)
    box: Box
    score: float


#: Letters of the scripts RapidOCR's Chinese+English recogniser reads that Tesseract's English
#: model and the English word list cannot (Han, kana, Hangul, bopomofo, CJK punctuation)
CJK = re.compile(
    "[\u2e80-\u2fff\u3000-\u303f\u3040-\u30ff\u3100-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
    "\uac00-\ud7af\uf900-\ufaff\ufe30-\ufe4f]"
)


def cjk_share(texts: list[str]) -> float:
    letters = sum(sum(ch.isalnum() for ch in t) for t in texts)
    cjk = sum(len(CJK.findall(t)) for t in texts)
    return cjk / letters if letters else 0.0


def area(b: Box) -> float:
    return max(b[2] - b[0], 0.0) * max(b[3] - b[1], 0.0)


def inter(a: Box, b: Box) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return max(w, 0.0) * max(h, 0.0)


def iou(a: Box, b: Box) -> float:
    """Intersection over union (0 for two empty boxes)."""
    i = inter(a, b)
    total = area(a) + area(b) - i
    return i / total if total > 0 else 0.0


def union(a: Box, b: Box) -> Box:
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))


def union_all(boxes: list[Box]) -> Box:
    out = boxes[0]
    for b in boxes[1:]:
        out = union(out, b)
    return out


def cover(inner: Box, outer: Box) -> float:
    """Share of ``inner``'s area that lies inside ``outer`` (0 when ``inner`` is empty)."""
    a = area(inner)
    return inter(inner, outer) / a if a > 0 else 0.0


def median(values: list[float], default: float = 0.0) -> float:
    if not values:
        return default
    s = sorted(values)
    mid = len(s) // 2
    return s[mid] if len(s) % 2 else (s[mid - 1] + s[mid]) / 2


_PARAGRAPH = {"text", "reference", "title"}  # names the layout model gives one paragraph


def weighted_median(pairs: list[tuple[float, int]]) -> float:
    """The median of ``(value, weight)`` pairs (a character-weighted font size or line
    height: long lines count for more than short ones); 0 without any."""
    pairs = sorted(pairs)
    total = sum(n for _, n in pairs)
    acc = 0
    for value, n in pairs:
        acc += n
        if acc >= total / 2:
            return value
    return 0.0


def dedupe_layout(layout: list[LayoutBox]) -> list[LayoutBox]:
    """Boxes less those mostly (80 %) inside a higher-scoring box of the same label. Text,
    reference and title boxes on one paragraph (each 80 % inside the other: their edges a
    line apart) are one box too: the surer one, grown over the other, so no line is left to
    a box of its own and the block's lines are not split between two regions read apart."""
    kept: list[LayoutBox] = []
    for b in sorted(layout, key=lambda b: -b.score):
        for n, k in enumerate(kept):
            same = k.native == b.native or {k.native, b.native} <= _PARAGRAPH
            if same and cover(b.box, k.box) > 0.8:
                if k.native != b.native and cover(k.box, b.box) > 0.8:
                    kept[n] = LayoutBox(k.native, union_all([k.box, b.box]), k.score)
                break
        else:
            kept.append(b)
    return kept


def assign_lines(boxes: list[LayoutBox], lines: list[Line]) -> dict[int, list[Line]]:
    """Line → index of the box holding most of it (-1: none holds half). A box holding 90 %
    of the line holds it whole: an OCR line sticking out of its paragraph's box by two pixels
    must not go to a picture box drawn round the whole page instead."""
    members: dict[int, list[Line]] = {}
    for ln in lines:
        best, best_key = -1, (0.5, 0.0)
        a = max(area(ln.box), 1.0)
        for k, b in enumerate(boxes):
            share = inter(ln.box, b.box) / a
            key = (min(round(share, 2), 0.9), -area(b.box))
            if share >= 0.5 and key > best_key:
                best, best_key = k, key
        members.setdefault(best, []).append(ln)
    return members


_ENDS_SENTENCE = (".", "!", "?", ":", "\u201d", '"', ".)")
#: a text-layer block's gap over this many line heights and this many of its median gaps is
#: space between paragraphs (``_spaced``; 1.2 line heights is every block's rule)
SPACED = 0.6
SPACED_LEADING = 3.0


def paragraph_gaps(group: list[Line]) -> list[float]:
    """The vertical gaps between consecutive lines of a block, with a paragraph's end made a
    gap of its own (``inf``): a line ending a sentence well short of the block's right edge
    (under 75 % of its width), followed by a line starting with a capital, a digit or a
    quote, ends a paragraph even where paragraphs are set without space between them (hanging
    or first-line indents); so does the space set between paragraphs of a tight text-layer
    block (``_spaced``)."""
    if not group:
        return []
    way = turned_way(group)  # text on its side: the gaps of its own frame
    boxes = [level_box(ln.box, way) for ln in group]
    left = min(b[0] for b in boxes)
    right = max(b[2] for b in boxes)
    width = max(right - left, 1.0)
    gaps = []
    for (a, ab), (b, bb) in pairwise(zip(group, boxes, strict=True)):
        gap = max(bb[1] - ab[3], 0.0)
        short = ab[2] < left + 0.75 * width and a.text.rstrip().endswith(_ENDS_SENTENCE)
        opens = b.text.lstrip()[:1]
        if short and (opens.isupper() or opens.isdigit() or opens in "\"\u201c\u2018'("):
            gap = float("inf")
        gaps.append(gap)
    return _spaced(group, gaps)


def _spaced(group: list[Line], gaps: list[float]) -> list[float]:
    """``gaps`` with the space between paragraphs of a tightly set text-layer block made
    ``inf``: over ``SPACED`` × the line height and ``SPACED_LEADING`` × the block's median
    gap. A text layer's line boxes are its fonts' (every line as tall as its size), so a gap
    that wide is space set between paragraphs; OCR boxes follow ink (a line without
    descenders sits higher), so OCR blocks keep the 1.2-line rule of the paragraph writer."""
    finite = [g for g in gaps if g != float("inf")]
    if len(finite) < 3 or any(ln.source != "text_layer" for ln in group):
        return gaps
    wide = max(SPACED * median([ln.height for ln in group]), SPACED_LEADING * median(finite))
    return [float("inf") if g > wide else g for g in gaps]


def rows(lines: list[Line]) -> list[list[Line]]:
    """Lines grouped into rows, top to bottom: a line whose centre lies within half a line
    height of the first line of the row above joins that row (in the order met); a line set
    on its side shares no row with level ones (a turned margin label is no row's cell)."""
    out: list[list[Line]] = []
    for ln in sorted(lines, key=lambda ln: ln.middle):
        c = ln.middle
        if out:
            r = out[-1][0]
            near = abs(c - r.middle) < 0.5 * max(r.height, ln.height, 1.0)
            if near and same_frame(ln, r):
                out[-1].append(ln)
                continue
        out.append([ln])
    return out


def same_frame(a: Line, b: Line) -> bool:
    """Whether ``a`` and ``b`` may share a row: both level or both set on their side (a turned
    margin label is no cell of the form rows beside it)."""
    return (a.turned == 0) == (b.turned == 0)


def turned_way(lines: Iterable[Line]) -> int:
    """Which way the text of ``lines`` is turned when most of its characters are (``Line.
    turned``: 1 up the page, -1 down it), else 0."""
    chars: dict[int, int] = {}
    for ln in lines:
        chars[ln.turned] = chars.get(ln.turned, 0) + len(ln.text)
    way = max(chars, key=lambda k: chars[k], default=0)
    return way if chars.get(way, 0) > 0.5 * sum(chars.values()) else 0


def level_box(box: Box, way: int, width: float = 0.0, height: float = 0.0) -> Box:
    """``box`` in the frame of text turned ``way`` (:func:`turned_way`), where that text is
    level: read left to right, its lines top to bottom. Text running down a page of
    ``width`` follows its lines right to left; text running up a page of ``height``, left to
    right."""
    x0, y0, x1, y1 = box
    if way < 0:
        return (y0, width - x1, y1, width - x0)
    if way > 0:
        return (height - y1, x0, height - y0, x1)
    return box
