"""workbench.documents.textlayer on pages whose glyphs are drawn as TeX draws them: spacing accents
as
glyphs of their own after the line, and PDFium's line-end hyphen mark (real PDFium text
objects, written here with tests/data/make_born_digital.py's Page; dd0293 is a real form)."""

from __future__ import annotations

from pathlib import Path

import pypdfium2 as pdfium

from tests.born_digital import mbd
from workbench.documents.textlayer import extract_pdf

DATA = Path(__file__).resolve().parent / "data"


def _tex_accent_page(path: Path) -> None:
    """ "We also thank Ján Minäĉ …" with the accents drawn after the line, over their letters,
    as TeX's \\' and \\" do: the text stream reads "Jan Min ´ a¨c … ˆ"."""
    pdf = pdfium.PdfDocument.new()
    page = mbd.Page(pdf)
    x = 72.0
    w1 = page.text(x, 100, "We also thank J")
    w2 = page.text(x + w1, 100, "an Min")
    w3 = page.text(x + w1 + w2, 100, "a")
    page.text(x + w1 + w2 + w3, 100, "c for his help, and Ana Garc")
    page.text(x + w1 + 0.6, 100, "\u00b4")  # over the a of Ján
    page.text(x + w1 + w2 + 0.6, 100, "\u00a8")  # over the a of Minä
    page.text(x + w1 + w2 + w3 + 0.3, 100, "\u02c6")  # over the c
    page.text(x, 124, "The price is 5 \u00b4 10 units.")  # an accent over no letter stays
    page.close()
    pdf.save(path)


def test_spacing_accents_compose_onto_the_letter_they_sit_over(tmp_path):
    path = tmp_path / "accents.pdf"
    _tex_accent_page(path)
    raw = pdfium.PdfDocument(path)[0].get_textpage().get_text_range()
    assert "Jan Min" in raw and "\u00b4" in raw  # the layer itself has them apart
    layer = extract_pdf(path, 1)
    assert layer is not None
    words = [w.text for w in layer.words]
    assert words[:6] == ["We", "also", "thank", "Ján", "Minäĉ", "for"]
    assert "\u00b4" in words  # "5 ´ 10": over no letter, kept as text
    assert layer.chars == sum(len(w) for w in words)


def test_pdfium_line_end_hyphen_mark_is_a_hyphen():
    raw = pdfium.PdfDocument(DATA / "dd0293_p1-2.pdf")[1].get_textpage().get_text_range()
    assert "\ufffe" in raw  # PDFium marks the URL's line-end hyphen
    words = [w.text for w in extract_pdf(DATA / "dd0293_p1-2.pdf", 2).words]
    assert not any("\ufffe" in w for w in words)
    assert "https://arba.army.pentagon.mil/online-" in words
