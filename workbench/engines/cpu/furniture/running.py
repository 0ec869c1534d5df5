"""Page furniture on one page: folios, running heads and feet, document-control lines.

The engine sees one page at a time, so repetition across pages is not available; furniture
is judged by position, size, content and alignment, on *rows*: lines whose vertical extents
overlap by half the smaller height. A row's *segments* are its runs of words split at gaps
wider than :data:`SEGMENT_GAP` × its height (a running head "Chapter 3 | Derivatives … 273"
is two segments).

Only the rows at the page's top and bottom edges are candidates. From each edge, a *group*
of at most :data:`MAX_ROWS` rows is taken up to the first **separation**: a distance between
the centres of two consecutive rows of at least :data:`PITCH_RATIO` × the page's median
distance (centres, not gaps: OCR boxes are padded and overlap). No separation within
:data:`MAX_ROWS` rows: the body reaches the edge, and only a *sure* row stands out there (a
running head/foot with its page number: "DD FORM 293, FEB 2025 … Page 2 of 4" set at the
form's own line spacing), with the short rows outside it. A group is
furniture when every row in it is at most :data:`MAX_WORDS` words, not a caption, not a
sentence (six words or more, half in lower case), in the top or bottom :data:`BAND` of the
page (a folio may stand anywhere), and at least one row is furniture by content; the others
must be short (at most :data:`SMALL_WORDS` words, not larger than the body: "PREVIOUS EDITION
IS OBSOLETE." under a form's footer) on a page of :data:`FULL_ROWS` rows or more. Up to
:data:`MAX_GROUPS` groups are peeled from each edge ("NETS 2015" above a slide's page
number), always leaving :data:`MIN_BODY` rows. Rows furniture by content:

* a **folio**: the whole row is a page number ("62", "- 3 -", "Page 3 of 9", "iv", see
  :func:`..markdown.is_page_number`), not *larger* than the body (text layer:
  font size at least :data:`LARGE` × the body size; scans: line height at least
  :data:`LARGE` × the median line height), centred on the page or the text, or flush with
  the text's left or right edge; outside the band too (a 10-K page whose text ends mid-page
  has its folio there);
* never a row of :data:`SCALE_FIGURES` or more segments each a bare figure ("0  50  100 …
  400" under a chart, a table's last row): a page has one folio, so that is content;
* a **running head/foot**: two or more segments, the first or last a page number, not
  larger than the body unless it says so ("Page 2 of 4"): "400 … BRITISH HUSBANDRY. …
  [Ch. XIX."; a larger "3   Methods" is a heading;
* a **document-control line**: revision, version, part, document or form number,
  copyright, "confidential" (:data:`CONTROL`);
* **spread**: three or more short segments (at most :data:`SMALL_WORDS` words each)
  spanning 60 % of the text's width, with a figure among them ("Revision … P/N … date");
* **small**: set smaller than the body (text layer: under :data:`SMALL` × body size;
  scans: line height under :data:`SMALL_OCR` × the median), at most :data:`SMALL_WORDS`
  words ("NETS 2015" in a slide's footer), on a page of :data:`FULL_ROWS` rows or more (a
  poster's byline "by FutureSkill" under its title is content: there is no body to be
  smaller than).

:func:`split_off` takes furniture rows out of the blocks that hold them (text-like blocks
only: a row inside a figure, table, formula or signature is that region's) and gives each
of the row's lines a block of its own, ``running_header`` or ``running_footer`` (so a folio
beside a form number is a ``page_number`` region); a block's box is cut to its
remaining lines' height. Pages of fewer than :data:`MIN_ROWS` rows are left alone, and
compose gives a page whose only text is furniture back its text (a one-line page is
content).
"""

from __future__ import annotations

import re
from itertools import pairwise

from workbench.engines.cpu.boxes import Box, Line, Word, median, union_all, weighted_median
from workbench.engines.cpu.figures.captions import is_caption
from workbench.engines.cpu.furniture.cues import number
from workbench.engines.cpu.markdown import is_page_number
from workbench.engines.cpu.page import Block

MAX_ROWS = 3  # furniture is a few rows at an edge; a deeper group is the body
MAX_GROUPS = 2  # "NETS 2015" above a slide's page number: two groups at one edge
MIN_ROWS = 4  # a page of fewer rows has no body to set furniture apart from
MIN_BODY = 2  # rows always left as body
FULL_ROWS = 8  # "small" and short rows are furniture only on a page this full
STRONG = "strong"
BAND = 0.12  # furniture rows sit in the top or bottom 12 % (a folio may stand anywhere)
PITCH_RATIO = 1.3  # a row this much further from the next than the median pitch is set apart
SEGMENT_GAP = 1.5  # a gap of 1.5 row heights splits a row (wider than a word space)
LARGE = 1.15  # type this much larger than the body is a heading, not a folio
SMALL = 0.9  # text layer: type under 0.9 × the body is small print
SMALL_OCR = 0.75  # scans: line heights vary more, so only clearly smaller lines
MAX_WORDS = 14  # a furniture row is a few words; longer is body text
SCALE_FIGURES = 3  # a row of this many figures and nothing else is an axis or table row
SMALL_WORDS = 6  # "PREVIOUS EDITION IS OBSOLETE.": short rows beside furniture
CONTROL = re.compile(
    r"\b(?:rev(?:ision)?\b\.?\s*[:#]?\s*[\dA-Z]|version\s*:?\s*\d|v\d+\.\d|p/n\b|part\s+(?:no|number)"
    r"|doc(?:ument)?\.?\s*(?:no|id|number|#)|form\s+[\w-]*\d|copyright|all rights reserved"
    r"|confidential|proprietary|printed in)|©|\(c\)\s*\d{4}",
    re.IGNORECASE,
)
_PAGE_OF = re.compile(r"^(?:page\s+\d{1,4}(?:\s+of\s+\d{1,4})?|\d{1,4}\s+of\s+\d{1,4})$", re.I)
_TEXTY = {
    "text", "reference", "ocr_lines", "title", "header", "footer", "figure_caption",
    "table_caption", "FLOWING_TEXT", "HEADING_TEXT", "PULLOUT_TEXT",
}  # fmt: skip


def rows(lines: list[Line]) -> list[list[Line]]:
    """Lines grouped into rows (vertical overlap of half the smaller height), top to bottom;
    each row's lines left to right."""
    out: list[list[Line]] = []
    for ln in sorted(lines, key=lambda ln: ln.middle):
        for row in out:
            y0, y1 = min(r.box[1] for r in row), max(r.box[3] for r in row)
            h = min(ln.height, y1 - y0)
            if min(y1, ln.box[3]) - max(y0, ln.box[1]) >= 0.5 * max(h, 1.0):
                row.append(ln)
                break
        else:
            out.append([ln])
    out = [sorted(r, key=lambda ln: ln.box[0]) for r in out]
    return sorted(out, key=lambda r: min(ln.box[1] for ln in r))


def segments(row: list[Line]) -> list[str]:
    """The row's texts split at wide gaps between words (see the module docstring)."""
    words: list[Word] = []
    for ln in row:
        words.extend(ln.words or [Word(ln.text, ln.box, ln.conf)])
    words.sort(key=lambda w: w.box[0])
    h = median([ln.height for ln in row], 1.0)
    out: list[list[str]] = []
    end = None
    for w in words:
        if end is None or w.box[0] - end > SEGMENT_GAP * h:
            out.append([])
        out[-1].append(w.text)
        end = w.box[2] if end is None else max(end, w.box[2])
    return [" ".join(s) for s in out if s]


def find(lines: list[Line], width: float, height: float) -> list[tuple[str, list[Line]]]:
    """Furniture rows, each as ``("running_header" | "running_footer", lines)``."""
    page_rows = rows([ln for ln in lines if ln.text.strip()])
    if len(page_rows) < MIN_ROWS:
        return []
    boxes = [union_all([ln.box for ln in r]) for r in page_rows]
    mids = [(b[1] + b[3]) / 2 for b in boxes]
    pitch = median([b - a for a, b in pairwise(mids) if b > a], 0.0)
    text_box = union_all(boxes)
    sized = [ln for ln in lines if ln.size > 0]
    body = weighted_median([(ln.size, len(ln.text)) for ln in sized])
    line_h = median([ln.height for ln in lines], 1.0)
    out: list[tuple[str, list[Line]]] = []
    n, used = len(page_rows), 0
    full = n >= FULL_ROWS  # enough body to call a row small, or short beside furniture
    for edge in ("running_header", "running_footer"):
        order = list(range(n)) if edge == "running_header" else list(range(n - 1, -1, -1))
        pos = 0
        for _ in range(MAX_GROUPS):
            group: list[int] = []
            separated = False
            for k in range(pos, min(pos + MAX_ROWS, n - 1)):
                group.append(order[k])
                if abs(mids[order[k]] - mids[order[k + 1]]) >= PITCH_RATIO * pitch:
                    separated = True  # from the next row inwards
                    break
            found = [
                _furniture(page_rows[i], boxes[i], text_box, width, height, body, line_h, full)
                for i in group
            ]
            if not separated:  # the body runs on to the edge: only a sure row stands out
                cut = found.index(None) if None in found else len(found)
                group, found = group[:cut], found[:cut]
                if STRONG not in found:
                    break
            if not group or n - used - len(group) < MIN_BODY:
                break
            if None in found or not any(found):
                break
            out.extend((edge, page_rows[i]) for i in group)
            used += len(group)
            pos += len(group)
    return out


def _furniture(
    row: list[Line], box: Box, text_box: Box, width: float, height: float, body: float,
    line_h: float, full: bool,
) -> bool | str | None:  # fmt: skip
    """:data:`STRONG` or True: furniture by content (STRONG: a running head/foot with its
    page number); False: may stand beside furniture (short, at
    the edge); None: the page's own content."""
    raw = " ".join(ln.text.strip() for ln in row)
    words = raw.split()
    if not words or len(words) > MAX_WORDS or is_caption(raw) or _sentence(words):
        return None
    sizes = [ln.size for ln in row if ln.size > 0]
    if sizes and body > 0:
        size = median(sizes)
        large, small = size >= LARGE * body, size < SMALL * body
    else:
        h = median([ln.height for ln in row])
        large, small = h >= LARGE * line_h, h < SMALL_OCR * line_h
    if is_page_number(raw):
        return None if large or not _aligned(box, text_box, width) else True
    centre = (box[1] + box[3]) / 2
    if BAND * height < centre < (1 - BAND) * height:
        return None
    segs = segments(row)
    if len(segs) >= SCALE_FIGURES and all(number(s) for s in segs):
        return None  # a chart's axis or a table's row of figures: a page has one folio
    ends = (segs[0], segs[-1]) if len(segs) >= 2 else ()
    if any(_PAGE_OF.match(e) for e in ends):
        return STRONG  # "Page 2 of 4" says what it is, at any size
    if any(is_page_number(e) for e in ends) and not large:
        return STRONG  # (a larger "3   Methods" is a heading)
    if CONTROL.search(raw):
        return True
    spread = (
        len(segs) >= 3
        and box[2] - box[0] >= 0.6 * (text_box[2] - text_box[0])
        and all(len(s.split()) <= SMALL_WORDS for s in segs)
    )
    if spread and re.search(r"\d", raw):
        return True
    if not full or large or len(words) > SMALL_WORDS:
        return None
    return small  # small: furniture; else short, beside furniture


def _aligned(box: Box, text_box: Box, width: float) -> bool:
    """Centred on the page or the text, or flush with the text's left or right edge."""
    h = max(box[3] - box[1], 1.0)
    centre = (box[0] + box[2]) / 2
    centred = min(abs(centre - width / 2), abs(centre - (text_box[0] + text_box[2]) / 2))
    flush = min(abs(box[0] - text_box[0]), abs(box[2] - text_box[2]))
    return centred <= 0.05 * width or flush <= 2 * h


def _sentence(words: list[str]) -> bool:
    lower = sum(w[:1].islower() for w in words)
    return len(words) >= 6 and lower >= 0.5 * len(words)


def split_off(blocks: list[Block], lines: list[Line], width: float, height: float) -> list[Block]:
    """``blocks`` with furniture rows (:func:`find`) cut out into blocks of their own."""
    found = find(lines, width, height)
    if not found:
        return blocks
    held = {id(ln): b.native for b in blocks for ln in b.lines}
    # a row held by a figure, table, formula or signature is that region's own text
    found = [(e, row) for e, row in found if all(held.get(id(ln), "text") in _TEXTY for ln in row)]
    taken = {id(ln) for _, row in found for ln in row}
    out: list[Block] = []
    for b in blocks:
        native, box, group, score = b.native, b.box, b.lines, b.score
        rest = [ln for ln in group if id(ln) not in taken]
        if len(rest) == len(group):
            out.append(b)
        elif rest:  # the block's box stops where its remaining lines do
            y0, y1 = min(ln.box[1] for ln in rest), max(ln.box[3] for ln in rest)
            cut = (box[0], max(box[1], y0 - 1), box[2], min(box[3], y1 + 1))
            out.append(Block(native, cut, rest, score))
    for edge, row in found:  # a line a region: "Page 2 of 4" beside a form number is a folio
        out.extend(Block(edge, ln.box, [ln], 0.0) for ln in row)
    return out
