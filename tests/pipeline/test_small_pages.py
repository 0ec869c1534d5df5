"""Small PDF pages for the CPU engine (prepare.small_page_fit): a pocket book's page scanned
at 600 DPI is drawn with more pixels than 200 DPI gives it, so its small type is read; other
pages and other engines keep their size. Real PDFium pages, the real CPU engine."""

from __future__ import annotations

import io
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from PIL import Image

from tests.born_digital import mbd
from workbench.documents import open_document
from workbench.engines.base import PageRequest
from workbench.engines.cpu import get_cpu_engine
from workbench.markdown.assemble import assemble_page
from workbench.models.registry import CPU_SPEC, get_spec
from workbench.pipeline.feed import prepare_pages

DATA = Path(__file__).resolve().parents[1] / "data"

SENTENCE = (
    "The returns to the committee give bones a preference to farm-yard dung, and heavy crops "
    "of turnips have been raised from sixteen bushels per acre of bones while the same field "
    "manured from the yard gave the most inferior crop of the whole district that year."
)


def pocket_scan() -> bytes:
    """A 2.5 × 4.2 in page (180 × 300 pt) that is one 600 DPI greyscale scan of 4 pt type."""
    typeset = pdfium.PdfDocument.new()
    page = mbd.Page(typeset, 180, 300)
    page.paragraph(12, 20, 156, SENTENCE, size=4)
    page.close()
    image = typeset[0].render(scale=600 / 72).to_pil().convert("L")
    scan = pdfium.PdfDocument.new()
    sheet = scan.new_page(180, 300)
    obj = pdfium.PdfImage.new(scan)
    jpeg = io.BytesIO()
    image.save(jpeg, "JPEG", quality=90)
    jpeg.seek(0)
    obj.load_jpeg(jpeg, inline=True)
    obj.set_matrix(pdfium.PdfMatrix().scale(180, 300))
    sheet.insert_obj(obj)
    sheet.gen_content()
    out = io.BytesIO()
    scan.save(out)
    return out.getvalue()


def first(doc, spec):  # type: ignore[no-untyped-def]
    return next(iter(prepare_pages(doc, [1], spec, workers=0)))


def test_a_small_pdf_page_is_drawn_larger_for_the_cpu_engine_only():
    doc = open_document("pocket.pdf", pocket_scan())
    page = first(doc, CPU_SPEC)
    assert page.dpi == 400.0  # twice the 200 DPI asked: the cap, under a letter page's pixels
    assert page.size == (1000, 1668)  # 180 × 300 pt at 400 DPI, as PDFium rounds it
    vlm = first(doc, get_spec("lightonai/LightOnOCR-2-1B"))
    assert vlm.size != page.size and max(vlm.size) <= 1540  # a VLM keeps its own rule
    letter = first(open_document("dd.pdf", (DATA / "dd0293_p1-2.pdf").read_bytes()), CPU_SPEC)
    assert (letter.dpi, letter.size) == (200.0, (1700, 2200))  # a letter page is unchanged
    small_png = io.BytesIO()
    Image.new("RGB", (360, 600), "white").save(small_png, "PNG")
    image = first(open_document("note.png", small_png.getvalue()), CPU_SPEC)
    assert image.size == (360, 600)  # an image file is never upscaled


@pytest.mark.slow
def test_small_type_on_a_pocket_page_is_read_word_for_word():
    page = first(open_document("pocket.pdf", pocket_scan()), CPU_SPEC)
    out = next(iter(get_cpu_engine().run([PageRequest(key="p", image=page.image)])))
    assert out.error is None, out.error
    words = assemble_page(out.regions or []).split()
    assert words == SENTENCE.split()  # at 200 DPI Tesseract read "retums", "mips", "aised"
