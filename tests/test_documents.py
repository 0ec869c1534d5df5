"""documents: content sniffing, page ranges, pixel caps and clear errors on bad files."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pypdfium2 as pdfium
import pytest
from PIL import Image

from workbench.documents import open_document, parse_page_range, poppler_available, sniff_kind
from workbench.errors import DocumentError, PageRangeError
from workbench.settings import Settings

DATA = Path(__file__).parent / "data"


def make_pdf(pages: int = 3, size: tuple[float, float] = (612, 792)) -> bytes:
    pdf = pdfium.PdfDocument.new()
    for _ in range(pages):
        pdf.new_page(*size)
    buf = io.BytesIO()
    pdf.save(buf)
    return buf.getvalue()


def image_bytes(
    fmt: str, size: tuple[int, int] = (120, 80), mode: str = "RGB", **kw: object
) -> bytes:
    buf = io.BytesIO()
    Image.new(mode, size, "white").save(buf, fmt, **kw)
    return buf.getvalue()


@pytest.mark.parametrize(
    ("fmt", "kind"),
    [("PNG", "png"), ("JPEG", "jpeg"), ("TIFF", "tiff"), ("WEBP", "webp"), ("BMP", "bmp")],
)
def test_images_are_recognised_by_content_not_name(fmt: str, kind: str) -> None:
    data = image_bytes(fmt)
    assert sniff_kind("scan.pdf", data) == kind  # mislabelled on purpose
    doc = open_document("scan.pdf", data)
    assert doc.kind == kind
    page = doc.page(1)
    assert page.image.mode == "RGB" and page.size == (120, 80)


def test_pdf_pages_render_at_dpi_and_one_based() -> None:
    doc = open_document("a.pdf", make_pdf(3))
    assert doc.page_count == 3
    page = doc.page(3, dpi=100)
    assert page.index == 3 and page.size == (850, 1100) and page.dpi == 100
    with pytest.raises(PageRangeError):
        doc.page(4)
    with pytest.raises(PageRangeError):
        doc.page(0)


def test_multipage_tiff_gives_every_frame() -> None:
    buf = io.BytesIO()
    first = Image.new("L", (100, 50))
    first.save(buf, "TIFF", save_all=True, append_images=[Image.new("1", (60, 70))])
    doc = open_document("fax.tif", buf.getvalue())
    assert doc.page_count == 2
    assert [p.size for p in doc.pages()] == [(100, 50), (60, 70)]


def test_transparent_png_is_flattened_on_white() -> None:
    doc = open_document("t.png", image_bytes("PNG", mode="RGBA", size=(4, 4)))
    assert doc.page(1).image.getpixel((0, 0)) == (255, 255, 255)


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"", "empty"),
        (make_pdf(2)[:200], "damaged"),
        (b"just some text, not a scan\n", "not a PDF or image"),
        (b"PK\x03\x04" + b"\0" * 40, "ZIP"),
        (b"GIF89a" + b"\0" * 40, "GIF"),
        (image_bytes("PNG")[:60], "damaged"),
    ],
)
def test_bad_files_name_the_file_and_say_why(data: bytes, reason: str) -> None:
    with pytest.raises(DocumentError) as err:
        open_document("upload.pdf", data)
    assert str(err.value).startswith("upload.pdf: ")
    assert reason in str(err.value)


def test_encrypted_pdf_is_reported_as_encrypted() -> None:
    with pytest.raises(DocumentError, match="encrypted"):
        open_document("secret.pdf", (DATA / "bad" / "encrypted.pdf").read_bytes())


def test_decompression_bomb_is_refused_before_decoding() -> None:
    # 20000 x 20000 = 400 MP of white compresses to a few hundred KB of PNG.
    bomb = image_bytes("PNG", size=(20000, 20000), mode="1")
    assert len(bomb) < 2_000_000
    with pytest.raises(DocumentError, match="decompression bomb"):
        open_document("bomb.png", bomb)


def test_giant_pdf_page_is_capped_with_a_note() -> None:
    settings = Settings(max_pixels=4_000_000)
    doc = open_document("poster.pdf", make_pdf(1, size=(14400, 14400)), settings)
    page = doc.page(1, dpi=200)
    w, h = page.size
    assert w * h <= 4_000_000 * 1.01
    assert page.scale_note and "pixel cap" in page.scale_note


def test_giant_image_is_shrunk_to_the_cap() -> None:
    settings = Settings(max_pixels=1_000_000)
    doc = open_document("big.png", image_bytes("PNG", size=(4000, 3000)), settings)
    page = doc.page(1)
    assert page.size[0] * page.size[1] <= 1_000_000 and page.scale_note


def test_thousand_page_pdf_is_capped_and_rendered_lazily() -> None:
    doc = open_document("long.pdf", make_pdf(1200, size=(200, 200)), Settings(max_pages=1000))
    assert doc.page_count == 1200
    assert len(doc.select()) == 1000
    assert doc.select("1199-")[-1] == 1200
    pages = doc.pages([5, 1000])
    assert next(pages).index == 5  # a generator: nothing rendered ahead


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("1,3-5", [1, 3, 4, 5]),
        ("2", [2]),
        ("4-", [4, 5, 6]),
        ("-2", [1, 2]),
        ("", None),
        (" 3 , 1 ", [3, 1]),
        ("2-9", [2, 3, 4, 5, 6]),
        ("1,1,2", [1, 2]),
    ],
)
def test_page_ranges(spec: str, expected: list[int] | None) -> None:
    assert parse_page_range(spec, 6) == (expected or [1, 2, 3, 4, 5, 6])


@pytest.mark.parametrize("spec", ["a", "3-1", "0", "7", "1-x"])
def test_bad_page_ranges_raise(spec: str) -> None:
    with pytest.raises(PageRangeError):
        parse_page_range(spec, 6)


@pytest.mark.skipif(not poppler_available(), reason="poppler-utils (pdftoppm) is not installed")
def test_poppler_backend_renders_the_same_page_as_pdfium() -> None:
    data = (DATA / "sf424_page2.pdf").read_bytes()
    pdfium_page = open_document("f.pdf", data).page(1, dpi=72)
    poppler_page = open_document("f.pdf", data, Settings(pdf_backend="poppler")).page(1, dpi=72)
    assert abs(poppler_page.size[0] - pdfium_page.size[0]) <= 1
    assert abs(poppler_page.size[1] - pdfium_page.size[1]) <= 1
    a = np.asarray(pdfium_page.image.convert("L").resize((100, 130)), dtype=float)
    b = np.asarray(poppler_page.image.convert("L").resize((100, 130)), dtype=float)
    diff = float(np.abs(a - b).mean())
    assert diff < 20  # the same page drawn by two rasterizers: grey levels agree closely
