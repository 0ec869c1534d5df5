"""PDFium draws a page into pixels we own, rows any distance apart; the PNG encoded from those
rows in place is the PNG of the same pixels encoded the plain way."""

from __future__ import annotations

import io
from functools import partial
from pathlib import Path

import numpy as np
import pypdfium2 as pdfium
import pytest
from PIL import Image

from workbench.documents import draw as pdfdraw
from workbench.documents import open_document
from workbench.engines import png
from workbench.models import fit_size
from workbench.models.registry import get_spec
from workbench.pipeline.feed import prepare_pages

DATA = Path(__file__).resolve().parent / "data"
LIGHTON = get_spec("lightonai/LightOnOCR-2-1B")


@pytest.mark.parametrize("name", ["census_12s0324.pdf", "dd0293_p1-2.pdf"])
def test_a_page_drawn_into_png_rows_is_pypdfium2s_own_render(name: str) -> None:
    pdf = pdfium.PdfDocument(str(DATA / name))
    page = pdf[0]
    scale = 150 / 72
    reference = page.render(scale=scale, rev_byteorder=True).to_numpy()
    height, width = reference.shape[:2]
    raw = png.rows(width, height)
    drawn = pdfdraw.draw(page, width, height, png.row_pixels(raw))
    assert np.shares_memory(drawn, raw)  # drawn where it is encoded
    assert np.array_equal(drawn, reference)
    assert np.array_equal(pdfdraw.draw(page, width, height), reference)  # contiguous default
    assert (raw[:, 0] == 0).all()  # the filter bytes are left alone


def test_a_canvas_that_does_not_fit_is_refused() -> None:
    page = pdfium.PdfDocument(str(DATA / "census_12s0324.pdf"))[0]
    with pytest.raises(ValueError, match="cannot draw"):
        pdfdraw.draw(page, 100, 80, np.empty((80, 99, 3), np.uint8))
    with pytest.raises(ValueError, match="cannot draw"):
        pdfdraw.draw(page, 100, 80, np.empty((80, 100, 4), np.uint8)[..., :3])  # 4-byte pixels


@pytest.mark.parametrize(
    ("name", "mode"),
    [("census_12s0324.pdf", "L"), ("dd0293_p1-2.pdf", "RGB"), ("va210966_p1.pdf", "RGB")],
)
def test_prepared_pages_are_the_png_of_the_pages_pixels(name: str, mode: str) -> None:
    doc = open_document(name, (DATA / name).read_bytes())
    fit = partial(fit_size, sizing=LIGHTON.sizing, is_image=False)
    for page in prepare_pages(doc, None, LIGHTON, workers=0):
        plain = doc.page(page.index, 200, fit=fit)  # drawn into a fresh array, then a PIL image
        assert page.png == png.encode_png(plain.image)
        decoded = Image.open(io.BytesIO(page.png))
        assert decoded.mode == mode
        assert np.array_equal(np.asarray(decoded.convert("RGB")), np.asarray(plain.image))
        assert (page.dpi, page.scale_note) == (plain.dpi, plain.scale_note)


def test_a_single_coloured_pixel_keeps_a_page_in_colour() -> None:
    raw = png.rows(300, 700)
    pixels = png.row_pixels(raw)
    pixels[...] = 128
    pixels[650, 299] = (128, 128, 129)  # last pixel row band, last byte of the row
    decoded = Image.open(io.BytesIO(png.encode_rows(raw)))
    assert decoded.mode == "RGB"
    assert np.array_equal(np.asarray(decoded), pixels)
    pixels[650, 299] = (128, 128, 128)
    decoded = Image.open(io.BytesIO(png.encode_rows(raw)))
    assert decoded.mode == "L"
    assert np.array_equal(np.asarray(decoded.convert("RGB")), pixels)


@pytest.mark.parametrize(("width", "height"), [(1, 1), (2, 3), (5, 70), (33, 129)])
def test_any_one_channel_off_grey_anywhere_is_colour(width: int, height: int) -> None:
    """Every byte of every pixel, in every band and at both row ends, is checked."""
    raw = png.rows(width, height)
    pixels = png.row_pixels(raw)
    pixels[...] = np.random.default_rng(width).integers(0, 256, (height, width, 1), np.uint8)
    assert png._rows_gray(raw)
    for y in range(height):
        for x in range(width):
            for c in range(3):
                pixels[y, x, c] ^= 1
                assert not png._rows_gray(raw), (y, x, c)
                pixels[y, x, c] ^= 1
