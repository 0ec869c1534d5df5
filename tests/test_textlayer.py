"""workbench.documents.textlayer on pages whose glyphs are drawn twice or apart: spacing accents
drawn as TeX draws them, after the line; PDFium's line-end hyphen mark; a map's labels drawn
with a drop shadow (real PDFium text objects, written here with
tests/data/make_born_digital.py's Page; dd0293 and the map's labels are real pages)."""

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


def test_a_glyph_drawn_again_a_hair_off_reads_once():
    """A real map's labels (tests/data/shadow_labels_map.pdf): each drawn twice, the shadow
    1 pt off, which PDFium's text interleaves glyph by glyph."""
    path = DATA / "shadow_labels_map.pdf"
    raw = pdfium.PdfDocument(path)[0].get_textpage().get_text_range()
    assert "MMuunniicciippaalliittéé" in raw  # the layer itself has every glyph twice
    layer = extract_pdf(path, 1)
    assert layer is not None
    text = " ".join(w.text for w in layer.words)
    assert "Municipalité de Morin-Heights" in text
    assert "Municipalité de Saint-Sauveur" in text
    assert not any(a + a + b + b in text for a, b in ("Mu", "un", "ni"))
    assert layer.chars == sum(len(w.text) for w in layer.words)  # a shadow is no character


def test_a_letter_repeated_an_advance_on_is_text(tmp_path):
    pdf = pdfium.PdfDocument.new()
    page = mbd.Page(pdf)
    page.text(72, 100, "Mississippi bookkeeper, all in .. ellipses iii", size=14, font="Helvetica")
    page.close()
    pdf.save(tmp_path / "doubled.pdf")
    layer = extract_pdf(tmp_path / "doubled.pdf", 1)
    assert layer is not None
    words = [w.text for w in layer.words]
    assert words == ["Mississippi", "bookkeeper,", "all", "in", "..", "ellipses", "iii"]


def test_shadow_is_the_same_character_within_a_fraction_of_the_size():
    from workbench.documents.chars import shadow

    at = (100.0, 700.0, 108.0, 714.0)
    assert shadow("M", at, "M", (101.0, 699.0, 109.0, 713.0), 14.0)
    assert not shadow("M", at, "N", (101.0, 699.0, 109.0, 713.0), 14.0)  # another letter
    assert not shadow("i", at, "i", (103.2, 700.0, 106.0, 714.0), 14.0)  # "ii": an advance on
    assert not shadow("M", at, "M", (101.0, 690.0, 109.0, 704.0), 14.0)  # the line below


def test_a_ligatures_letters_share_a_box_and_stay_two():
    """pdfLaTeX's "ff" is one glyph; PDFium gives its two letters the glyph's box, from the
    same text object: a ligature, no shadow (tests/data/pdflatex_outline.pdf, page 2)."""
    tp = pdfium.PdfDocument(DATA / "pdflatex_outline.pdf")[1].get_textpage()
    text = tp.get_text_range()
    i = text.index("difference") + 2
    assert tp.get_charbox(i, loose=True) == tp.get_charbox(i + 1, loose=True)
    layer = extract_pdf(DATA / "pdflatex_outline.pdf", 2)
    assert layer is not None
    assert "difference" in [w.text for w in layer.words]
