"""Handwritten signatures from ink analysis (no bundled model has a signature class).

A signature is ink that confident OCR does not explain, written larger than the page's print
in long connected strokes; on a handwritten page, where OCR explains nothing, it is the
closing written last. Steps, on the page image (all boxes ``page_px``):

1. Ink mask: darker than the local paper (:func:`.rules.ink_mask`; a photographed
   sheet's shading is not ink).
2. Explained ink is erased: ruling lines (morphological opening with horizontal and vertical
   kernels three text lines long: form rules, field borders, signature *lines* themselves) and
   the boxes of OCR words read with confidence ≥ ``WORD_CONF``, except *tall* words
   (≥ ``TALL`` text lines, ``TALL_NEAR`` near a signing cue) read with less than
   ``SURE_CONF`` or lying near a cue: OCR reads a hand-printed name with fair confidence
   (Tesseract 60-80, RapidOCR up to 97). A closing ("Very cordially yours,") that only the
   engine's second reading found is erased too and counts as a cue (``later``).
3. Handwritten page: the engine read it as handwriting (``handwritten``), or fewer than
   ``MIN_WORDS`` words are trusted and ``UNEXPLAINED`` of the ink is left. Then the line
   height is measured on the writing, the sheet's edges are dropped, and only the closing
   block can pass (:func:`.closing.closing_signature`: one of the last two ink lines,
   or the third above an address set to its left, indented past the body's median line
   start, shorter than a body line, or any line right under a short indented closing
   phrase); a closing phrase whose strokes touch the name is cut off at the row valley
   between them (:func:`.rules.name_part`). Sheet edges and folds are erased first
   (:func:`.rules.sheet_lines`); where no closing is found, blobs of touching lines
   are cut into lines and the closing looked for again (:func:`.rules.split_lines`);
   a closing box with under ``MIN_INK`` ink (a smudge at the sheet's foot) is dropped and
   the lines above it looked at again.
4. Otherwise what is left is smeared into blobs (closing one text line wide, half a line
   high), and blobs side by side on one baseline, of alike height and closer than 1.2× their
   height, are joined (the words of one name). Each blob is judged on its own ink, first
   failed test recorded:

   * size: height 1-8 text lines (1.5-10 near a cue), width ≥ 4 lines (3.5 near a cue) and
     ≥ 1.8× the height (square ornaments, drop initials, stamps fail), under 6 % of the page;
   * place: not in the top 15 % of the page unless near a cue (headings, letterheads);
   * stroke density: ink covers 2-30 % of the blob box (solid logos and photos are denser,
     specks sparser);
   * connected writing: the widest connected stroke is ≥ 1.8 lines (1.5 near a cue), and the
     blob has few pieces for its width (printed words break into one piece per letter);
   * it is not mostly (≥ 30 %) covered by words OCR still explains;
   * away from a cue, its context: not inside a layout figure (a photo), not a grid of alike
     pieces on a regular pitch (keypad, keyboard), not a note (a line from the body's left
     edge as long as most of a printed line), not a form field's entry (written after a
     printed label on its row: :func:`.rules.is_field_entry`).

The text-line height is the median height of the page's OCR lines (a 200-DPI page: ~25 px).
A cue is a line matching ``_CUE`` ("signature", "signed", "sincerely", "yours", ...); a blob
within three line heights below or beside it (twelve across) is "near".

Measured (``python benchmarks/signatures.py``, 200 DPI, Tesseract 5 + CDLA + RapidOCR): 29
hits, 1 miss of 30 signatures (IoU ≥ 0.5 with the hand-measured ink box), median IoU 0.96,
no false positive on 17 unsigned pages (25/27, 0.95 before session 18). Positives: five real
pen signatures written into real forms, three placements each (15/15), and fifteen real
signed letters (photographs, tests/data/signatures/), 14/15: Tourgée 0.98, Fitzhugh Lee 0.87,
Butterfield 0.97, Ross 0.77, Ferris under a letterhead 0.81, Bidwell above an addressee 0.78,
Tracy (a large hand whose lines touch) 0.62, King 0.79, M. J. Holmes 0.70, a typed letter
signed under "Very cordially yours," 0.99, A. E. Wilson 0.83 (her name's words far apart:
one word boxed until words up to the text's right edge and a loose descender were joined),
and three names under a closing phrase on a line of their own (Howe 0.96, Dow 1.00, O. W.
Holmes 0.97; missed, or the phrase boxed, until such a line could be the name wherever it
starts). Missed: Lockwood ("Yours &c" ends the body's last line and no reader reads it; the
name, from the margin, is as long and nearly as low as a line of the text). Negatives:
born-digital forms, Census tables, LaTeX pages, book scans, an 1871 print whose signers are
set in type, five unsigned handwritten pages and a diary spread of handwriting amid print.
Beyond the test set, on the same collection's 64 letter photographs (davekeder/thebook;
grey, 1100 px wide; the engine's cached OCR and layout, boxes judged by eye) the name was
boxed whole on 25 of 45 signed pages (2 in part) with 5 boxes that are no signature (1 on an
unsigned page), and after session 18 on 32 (2 in part) with no such box; still missed:
closings on the body's last line (Lockwood, Sankey, Miller), names no taller than the text
above an addressee, spreads and collages of several notes, a large hand's touching lines.
Handwriting in a real form's fields (address, date) is no signature; a name in the NAME field
still is (test_cpu_signatures_forms).
No product photograph with a keypad and a licence of its own was found: the one in an
MIT-licensed repository (rbarros/Arduino-MembraneKeyPad) looks like a vendor's product photo
the repository cannot license; run locally, nothing on it is a signature. The grid and figure
rules are tested on built ink only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from PIL import Image

from workbench.engines.cpu.boxes import Box, LayoutBox, Line, cover, inter, median
from workbench.engines.cpu.signatures import closing, rules, strokes

WORD_CONF = 60.0  # OCR words at least this confident explain their ink...
SURE_CONF = 90.0  # ...but a tall word needs this much, and none near a cue is trusted
TALL = 1.7  # word height, in text lines, from which a word counts as tall
TALL_NEAR = 1.4  # ...under a signing cue (printed labels there are one line tall)
MIN_INK = 0.02  # a closing's box holds at least this share of ink (less: a smudge, a shadow)
MIN_WORDS = 40  # fewer trusted OCR words than this (a letterhead, a date), and...
UNEXPLAINED = 0.6  # ...this share of the ink unexplained: a handwritten page
FIGURES = {"figure", "image", "picture"}  # layout labels of pictures
_FOLIO = re.compile(r"^\W*(page\s*)?\d+(\s*(of|/)\s*\d+)?\W*$", re.IGNORECASE)
_CUE = re.compile(
    r"sign|sincerely|yours|truly|faithfully|respectfully|cordially|regards", re.IGNORECASE
)


@dataclass
class Blob:
    """One candidate: its box and the measurements it was judged on (for benchmarks)."""

    box: Box
    near_cue: bool
    height: float  # in text lines
    width: float  # in text lines
    density: float  # share of the box that is ink
    longest: float  # widest connected piece, in text lines
    pieces: int
    covered: float  # share of the box under still-trusted OCR words
    reason: str  # first failed test; "" for a signature

    @property
    def ok(self) -> bool:
        return not self.reason


def detect(
    image: Image.Image,
    lines: list[Line],
    layout: Sequence[LayoutBox] = (),
    handwritten: bool = False,
    later: Sequence[Line] = (),
) -> list[Box]:
    """Boxes (page_px) of likely handwritten signatures. ``layout``: the layout model's boxes
    (a blob inside a figure is part of a picture); ``handwritten``: the engine read the page
    as handwriting (OCR lines then explain nothing about where a signature is); ``later``:
    lines a second reading added, of which only closing cues count (they are text)."""
    found = measure(image, lines, layout=layout, handwritten=handwritten, later=later)
    return [b.box for b in found if b.ok]


def measure(
    image: Image.Image,
    lines: list[Line],
    min_lines: float = 0.8,
    layout: Sequence[LayoutBox] = (),
    handwritten: bool = False,
    later: Sequence[Line] = (),
) -> list[Blob]:
    """Every ink blob at least ``min_lines`` text lines tall, with its verdict."""

    grey = np.asarray(image.convert("L"))
    h, w = grey.shape
    if h < 32 or w < 32:
        return []
    if grey.mean() < 0.5 * 255:  # mostly dark (photo, negative, black page): nothing to judge
        return []
    ink = rules.ink_mask(grey)
    line_h = min(max(median([ln.height for ln in lines], 25.0), 10.0), 80.0)
    known = {ln.box for ln in lines}
    closings = [  # a cue only a second reading found: its line is text, not pen
        ln
        for ln in later
        if ln.box not in known and _CUE.search(ln.text) and ln.height < TALL * line_h
    ]
    cues = [ln.box for ln in [*lines, *closings] if _CUE.search(ln.text)]
    trusted = [wd.box for ln in lines for wd in ln.words if _trusted(wd.box, wd.conf, line_h, cues)]
    trusted += [ln.box for ln in closings if ln.conf >= WORD_CONF]
    if handwritten:  # OCR read the writing, signature and all: no ink is explained
        trusted = []
    if handwritten or len(trusted) < MIN_WORDS:
        line_h = strokes.writing_height(ink, line_h)
    ink = strokes.erase_rules(ink, line_h)
    total = max(int(np.count_nonzero(ink)), 1)
    pad = int(0.15 * line_h)
    for x0, y0, x1, y1 in ((int(v) for v in b) for b in trusted):
        ink[max(y0 - pad, 0) : y1 + pad, max(x0 - pad, 0) : x1 + pad] = 0
    # a page whose ink OCR does not explain is handwriting: judge its closing, not each blob
    writing = handwritten or (
        len(trusted) < MIN_WORDS and bool(np.count_nonzero(ink) >= UNEXPLAINED * total)
    )
    if writing:
        ink = strokes.off_edges(ink, line_h)
    boxes = strokes.blobs(ink, line_h, min_lines, writing)
    if writing:
        return _closing(ink, boxes, line_h, lines)
    figures = [b.box for b in layout if b.native.lower() in FIGURES]
    body = _body(lines, line_h)
    labels = [  # printed words: OCR joins a field's label and its entry into one line
        wd.box
        for ln in lines
        for wd in ln.words
        if wd.conf >= SURE_CONF and not _CUE.search(wd.text)
    ]
    found: list[Blob] = []
    for box in strokes.join_words(boxes):
        x0, y0, x1, y1 = (int(v) for v in box)
        near = any(_near(box, c, line_h) for c in cues)
        blob = _judge(ink[y0:y1, x0:x1], box, line_h, (w, h), near, trusted)
        if blob.ok and not near:
            blob.reason = strokes.context(ink[y0:y1, x0:x1], box, line_h, body, figures, labels)
        found.append(blob)
    return found


def _closing(ink: np.ndarray, boxes: list[Box], line_h: float, lines: list[Line]) -> list[Blob]:
    """Blobs of a handwritten page: the closing signature (if any) passes, the rest is text.
    A closing that OCR reads as a page number ("12", "Page 3 of 9") is the page's footer."""
    name = closing.NAME
    found = closing.closing_line(boxes, line_h, name)
    if found is None:  # a large hand's lines may touch: look again line by line
        boxes, name = rules.split_lines(ink, boxes, line_h), closing.NAME_MERGED
        found = closing.closing_line(boxes, line_h, name)
    for _ in range(2):  # a faint smudge or shadow under the name is no writing: look above it
        if found is None or strokes.ink_share(ink, found[0]) >= MIN_INK:
            break
        boxes = [b for b in boxes if cover(b, found[0]) < 0.5]
        found = closing.closing_line(boxes, line_h, name)
    sig = found[0] if found is not None else None
    if sig is not None and any(cover(ln.box, sig) >= 0.5 and _FOLIO.match(ln.text) for ln in lines):
        sig = None
    phrase = found[1] if found is not None else None
    if sig is not None and (phrase is None or sig[1] < phrase):  # a closing phrase in its box
        sig = rules.name_part(ink, sig, line_h)
    out = []
    for box in [b for b in boxes if b != sig] + ([sig] if sig is not None else []):
        bw, bh = box[2] - box[0], box[3] - box[1]
        density = strokes.ink_share(ink, box)
        reason = "" if box is sig else "handwritten page: not its closing"
        if box is sig and not MIN_INK <= density <= 0.35:
            reason = "density"
        out.append(Blob(box, False, bh / line_h, bw / line_h, density, 0.0, 0, 0.0, reason))
    return out


def _body(lines: list[Line], line_h: float) -> tuple[float, float]:
    """The printed body's median left edge and the width of its long lines."""
    long = [ln.box for ln in lines if ln.box[2] - ln.box[0] >= 10 * line_h]
    if len(long) < 3:
        return 0.0, 0.0
    return median([b[0] for b in long]), median([b[2] - b[0] for b in long])


def _trusted(box: Box, conf: float, line_h: float, cues: list[Box]) -> bool:
    if conf < WORD_CONF:
        return False
    near = any(_near(box, c, line_h) for c in cues)
    if box[3] - box[1] < (TALL_NEAR if near else TALL) * line_h:
        return True
    return conf >= SURE_CONF and not near


def _judge(
    crop: np.ndarray,
    box: Box,
    line_h: float,
    page: tuple[int, int],
    near: bool,
    trusted: list[Box],
) -> Blob:
    import cv2

    bw, bh = box[2] - box[0], box[3] - box[1]
    density = float((crop > 0).mean())
    _, _, stats, _ = cv2.connectedComponentsWithStats(crop, connectivity=8)
    pieces = [s for s in stats[1:] if s[4] >= 0.02 * line_h * line_h]
    longest = max((int(s[2]) for s in pieces), default=0) / line_h
    covered = sum(inter(box, t) for t in trusted) / max(bw * bh, 1.0)
    blob = Blob(box, near, bh / line_h, bw / line_h, density, longest, len(pieces), covered, "")
    min_h, max_h, min_w, min_long = (1.5, 10.0, 3.5, 1.5) if near else (1.0, 8.0, 4.0, 1.8)
    if not min_h <= blob.height <= max_h:
        blob.reason = "height"
    elif blob.width < min_w or bw < 1.8 * bh:  # written along a line: wide, not square
        blob.reason = "shape"
    elif bw * bh > 0.06 * page[0] * page[1]:
        blob.reason = "area"
    elif not near and (box[1] + box[3]) / 2 < 0.15 * page[1]:  # headings, letterheads
        blob.reason = "top of page"
    elif not 0.02 <= density <= 0.30:
        blob.reason = "density"
    elif longest < min_long:
        blob.reason = "no long stroke"
    elif len(pieces) > max(4.0, 1.2 * blob.width):
        blob.reason = "too many pieces"
    elif covered >= 0.3:
        blob.reason = "covered by text"
    return blob


def _near(blob: Box, label: Box, line_h: float) -> bool:
    gap = 3 * line_h
    return (
        blob[0] < label[2] + 12 * line_h
        and blob[2] > label[0] - 12 * line_h
        and blob[1] < label[3] + gap
        and blob[3] > label[1] - gap
    )
