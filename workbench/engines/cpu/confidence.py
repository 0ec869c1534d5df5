"""A confidence that sees structure, not only characters (issue 35), and says when a page's
handwriting went unread.

A region's confidence from :mod:`.page` is its readers' certainty about the *characters*: a
born-digital page reads 1.0 whatever became of its tables. A table is the structure the engine
is least sure of: its grid is rebuilt from word positions or read off the page's rules (cells
split or merged, a header shifted one column, rows fused; table TEDS on the development corpus
of issue 35 is 63-79 where word F1 is 87-90), and its cell order is one reading among several.
So :func:`calibrate` gives every table region ``TABLE_TRUST`` of its characters' confidence; the
page's confidence (:attr:`~workbench.schema.PageResult.confidence`, text-weighted over its
regions) falls with the share of its text that is in tables, and a page that is one big table
reads at most ``TABLE_TRUST``: at the app's flag, not under it (a table is doubtful, not known
wrong).

``TABLE_TRUST`` was chosen on the *tuning half* of the development corpus only, beside the other
structural signals tried (empty cells, rows shared by text blocks, pages of short pieces,
letters of other scripts), which did not help on the checking half or hurt its good pages:
``python benchmarks/corpus/confidence.py --fit`` (benchmarks/corpus/README.md, "Confidence
that sees structure").
"""

from __future__ import annotations

from workbench.schema import Label, Region

# the share of its characters' confidence a table region keeps. Tuning half, pages < 85 read
# < 0.7 / pages > 95 read > 0.85: 0.5 → 53/86, 30/33; 0.55 → 52, 31; 0.6 → 50, 31; 0.65 →
# 45, 31; 1.0 (none) → 19, 32. 0.6 and not 0.55 (two pages fewer on the tuning half): a
# text-layer table reads at the flag (schema.LOW_CONFIDENCE), not under it
TABLE_TRUST = 0.6


def calibrate(regions: list[Region]) -> list[Region]:
    """``regions`` with every table region's confidence times ``TABLE_TRUST``."""
    return [
        r.model_copy(update={"confidence": round(r.confidence * TABLE_TRUST, 3)})
        if r.label is Label.TABLE and r.confidence is not None
        else r
        for r in regions
    ]


# RapidOCR's detector finds 9-13 lines on the handwritten letters of tests/data/signatures
# that end as one figure and no text, one on a lone signature: this many lines is writing
UNREAD_LINES = 5

#: What a page says when it holds handwriting the engine did not transcribe (the regions of
#: :func:`mark_unread` then read confidence 0, under the app's flag).
HANDWRITING_NOTE = (
    "unread writing: the CPU engine found lines of writing on this page (handwriting, most "
    "likely) and transcribed none of them (they are shown as an image); read it with a "
    "vision-language model or by eye"
)


def unread_handwriting(regions: list[Region]) -> bool:
    """Whether a page ends with nothing printed while a figure or signature holds its ink
    (the engine asks this of a page whose OCR was too unsure to trust or where RapidOCR
    detected ``UNREAD_LINES`` lines of writing). Such a page has no region confidence at all,
    so without :func:`mark_unread` it would read as ``ok`` with no flag."""
    printed = any(r.text.strip() and r.confidence is not None for r in regions)
    ink = any(r.label in (Label.FIGURE, Label.SIGNATURE) for r in regions)
    return ink and not printed


def mark_unread(regions: list[Region]) -> list[Region]:
    """``regions`` with every figure and signature at confidence 0: the text they hold was
    not read at all (:func:`unread_handwriting`)."""
    return [
        r.model_copy(update={"confidence": 0.0})
        if r.label in (Label.FIGURE, Label.SIGNATURE)
        else r
        for r in regions
    ]


def unread(regions: list[Region], handwriting_path: bool, detected: int) -> list[Region]:
    """A page's regions once its unread writing is said: lines of writing no region prints
    (Tesseract saw none, or read them too poorly and they ended in a figure) put the page under
    the flag (:func:`mark_unread`; :func:`notes` then says why) instead of passing it as
    ``ok``. ``handwriting_path``: RapidOCR read the page whole; ``detected``: lines its
    detector found."""
    if (handwriting_path or detected >= UNREAD_LINES) and unread_handwriting(regions):
        return mark_unread(regions)
    return regions


def notes(regions: list[Region]) -> list[str]:
    """What the page says to the user (:attr:`~workbench.schema.PageResult.notes`):
    :data:`HANDWRITING_NOTE` when :func:`unread` marked its ink."""
    marked = any(
        r.label in (Label.FIGURE, Label.SIGNATURE) and r.confidence == 0.0 for r in regions
    )
    return [HANDWRITING_NOTE] if marked and unread_handwriting(regions) else []
