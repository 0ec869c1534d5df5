"""The OCR path's second opinions: RapidOCR re-reads data tables, weak Tesseract lines and
the lines Tesseract missed (:mod:`.merge` decides where); Tesseract checks a PDF text layer and
reads the image objects it has no words in.

Contract: each function takes the page image, the lines read so far (``page_px``) and the
readers, and returns lines in ``page_px`` with every line it replaced gone; none changes a
line it keeps. ``trace`` gets counts for the run's JSON trace.
"""

from __future__ import annotations

from typing import Any

from PIL import Image, ImageOps

from workbench.engines.cpu.boxes import Box, LayoutBox, Line, cover
from workbench.engines.cpu.readers import merge, pdftext
from workbench.engines.cpu.tables import fragments
from workbench.schema import TextLayer

WEAK_MARGIN = 10.0  # a weak line's RapidOCR reading replaces it when this many points surer
MISSED_SCORE = 0.8  # RapidOCR score a line Tesseract missed needs to be added
CROP_CONF = 60  # Tesseract lines read in an image object below this are photo noise


def layer_disagrees(tess: Any | None, image: Image.Image, lines: list[Line]) -> str | None:
    """None when Tesseract, reading a few of the layer's lines (:func:`pdftext.sample`),
    finds their words (or there is no Tesseract): a layer whose glyphs map to the wrong
    letters passes every other check. About 0.1 s."""
    if tess is None:
        return None
    w, h = image.size
    shares = []
    for ln in pdftext.sample(lines):
        pad = 0.3 * ln.height
        x0, y0 = max(ln.box[0] - pad, 0), max(ln.box[1] - pad, 0)
        x1, y1 = min(ln.box[2] + pad, w), min(ln.box[3] + pad, h)
        if x1 - x0 < 1 or y1 - y0 < 1:  # a line set off the page (IRS 1040-NR instructions)
            continue
        crop = image.crop((x0, y0, x1, y1))
        found, _ = tess.read(ImageOps.expand(crop, 16, fill="white"))
        shares.append(pdftext.agreement(ln.text, " ".join(f.text for f in found)))
    if not shares or sum(shares) / len(shares) >= pdftext.MIN_AGREEMENT:
        return None
    return f"text layer disagrees with OCR ({sum(shares) / len(shares):.0%} of sampled words)"


def check_layer(
    tess: Any | None, image: Image.Image, layer: TextLayer | None, lines: list[Line]
) -> tuple[str | None, list[Line]]:
    """Why the layer is refused (:func:`layer_disagrees`), else None and the Tesseract lines
    of the image objects the layer has no words in (:func:`read_crop`). The engine runs it on
    its Tesseract thread beside the layout model."""
    why = layer_disagrees(tess, image, lines)
    if why is not None or layer is None or tess is None:
        return why, []
    w, h = image.size
    boxes = pdftext.image_regions(layer, lines, w, h)
    return None, [ln for b in boxes for ln in read_crop(tess, image, b)]


def read_crop(tess: Any, image: Image.Image, box: Box) -> list[Line]:
    """Tesseract lines (confident ones) in one region of the page, in page pixels."""
    x0, y0, x1, y1 = (round(v) for v in box)
    found, _ = tess.read(image.crop((x0, y0, x1, y1)))
    out = []
    for ln in found:
        if ln.conf < CROP_CONF or sum(c.isalnum() for c in ln.text) < 2:
            continue  # photos give Tesseract noise with low confidence
        ln.box = (ln.box[0] + x0, ln.box[1] + y0, ln.box[2] + x0, ln.box[3] + y0)
        for wd in ln.words:
            wd.box = (wd.box[0] + x0, wd.box[1] + y0, wd.box[2] + x0, wd.box[3] + y0)
        out.append(ln)
    return out


def reread_tables(
    rapid: Any,
    image: Image.Image,
    layout: list[LayoutBox],
    lines: list[Line],
    quads: list[Any],
    dissolve_forms: bool,
    trace: dict[str, Any],
) -> tuple[list[LayoutBox], list[Line]]:
    """RapidOCR re-reads data tables; forms called tables are dropped (see :mod:`merge`)."""
    kept: list[LayoutBox] = []
    tables = 0
    for b in layout:
        if b.native not in ("table", "TABLE"):
            kept.append(b)
            continue
        cells = merge.inside(quads, b.box)
        if not merge.is_data_table([merge.quad_box(q) for q in cells]):
            if dissolve_forms:
                continue  # a form the layout model called a table: read as text
            kept.append(b)
            continue
        kept.append(b)
        fresh = rapid.recognize(image, cells, latin=True)
        if fresh:
            tables += 1
            lines = [ln for ln in lines if cover(ln.box, b.box) < 0.5] + fresh
    trace["rapidocr_tables"] = tables
    return kept, lines


def second_reading(
    rapid: Any,
    image: Image.Image,
    lines: list[Line],
    quads: list[Any],
    weak_conf: float,
    read_missed: bool,
    trace: dict[str, Any],
) -> list[Line]:
    """RapidOCR re-reads weak Tesseract lines and reads what Tesseract missed."""
    swapped = 0
    if weak_conf > 0:
        for ln, mine in merge.weak_lines(lines, quads, weak_conf):
            fresh = rapid.recognize(image, mine, latin=True)
            if merge.better(ln, fresh, WEAK_MARGIN):
                lines = [x for x in lines if x is not ln] + fresh
                swapped += 1
    extra: list[Line] = []
    if read_missed:
        extra = rapid.recognize(
            image, merge.missed(quads, lines), latin=True, min_score=MISSED_SCORE
        )
    trace["rapidocr"] = {"weak_lines": swapped, "missed_lines": len(extra)}
    return merge.attach(lines, extra)


def drop_forms(layout: list[LayoutBox], lines: list[Line]) -> list[LayoutBox]:
    """Text-layer path: a ``table`` box whose lines do not grid into a data table
    (:func:`merge.is_data_table`) is a form the layout model called a table: dropped, so it
    reads as text."""
    kept = []
    for b in layout:
        if b.native == "table":
            inside = [ln for ln in lines if cover(ln.box, b.box) >= 0.5]
            if not merge.is_data_table([f[1] for f in fragments.fragments(inside)]):
                continue
        kept.append(b)
    return kept
