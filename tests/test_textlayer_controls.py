"""workbench.documents.textlayer on a real pdfLaTeX page whose bullets and "™" have no Unicode
mapping (tests/data/bullets_pdftex.pdf, see SOURCES.md): PDFium reports them as control codes
(U+0088, U+0097) and leaves U+0097 out of ``FPDFText_GetText``'s text but not out of its
character indices."""

from __future__ import annotations

from pathlib import Path

import pypdfium2 as pdfium

from workbench.documents.textlayer import extract_pdf

PAGE = Path(__file__).resolve().parent / "data" / "bullets_pdftex.pdf"


def _control(ch: str) -> bool:
    return ord(ch) < 32 or 0x7F <= ord(ch) <= 0x9F


def test_the_page_has_the_codes_that_shift_pdfiums_text() -> None:
    pdf = pdfium.PdfDocument(PAGE)
    try:
        text = pdf[0].get_textpage().get_text_range()
    finally:
        pdf.close()
    assert "\x88 Pages" in text  # the bullet: its code, a C1 control
    assert "Acrobat and" in text  # the ™ (U+0097) is missing from the text itself


def test_no_letter_lost_and_no_control_in_any_word() -> None:
    layer = extract_pdf(PAGE, 1)
    assert layer is not None
    words = [w.text for w in layer.words]
    assert not [w for w in words if any(_control(c) for c in w)]
    text = " ".join(words)
    # every line after the ™ kept its first letter (they were "nd ther ord rocessors")
    assert "from Acrobat and other word processors keep their text layer" in text
    assert "no longer runs character recognition" in text
    assert "and their header rows are kept apart from the body." in text
    assert "Everything else works as before." in text


def test_a_bullet_without_unicode_alone_at_a_line_start_is_a_bullet_word() -> None:
    layer = extract_pdf(PAGE, 1)
    assert layer is not None
    firsts = {}
    for w in layer.words:
        firsts.setdefault(w.line, w.text)
    assert list(firsts.values()).count("\u2022") == 3
    assert layer.unmapped >= 4  # three bullets and the ™: the trust check still counts them
