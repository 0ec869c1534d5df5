"""Tesseract reads a grey page delivered as RGB from its one channel
(:func:`~workbench.engines.cpu.readers.ocr._one_channel`): the same lines, words, boxes,
confidences and blocks as from the RGB page."""

from __future__ import annotations

from pathlib import Path

import pypdfium2 as pdfium
import pytest
from PIL import Image

from workbench.engines.cpu.readers.ocr import TesseractReader, _one_channel

pytest.importorskip("tesserocr")
DATA = Path(__file__).resolve().parents[3] / "data"


def _signature(read: tuple) -> tuple:
    lines, blocks = read
    words = [[(w.text, w.box, w.conf, w.known) for w in ln.words] for ln in lines]
    return [(ln.text, ln.box, ln.conf) for ln in lines], words, blocks


def test_a_grey_scan_reads_the_same_from_its_one_channel():
    page = pdfium.PdfDocument(DATA / "scan_two_columns.pdf")[0]
    rgb = page.render(scale=150 / 72).to_pil().convert("RGB")
    grey = _one_channel(rgb)
    assert grey.mode == "L"
    reader = TesseractReader()
    assert _signature(reader._read_as_given(grey)) == _signature(reader._read_as_given(rgb))


def test_a_colour_page_is_read_in_colour():
    page = Image.new("RGB", (40, 30), (255, 255, 255))
    page.putpixel((3, 4), (200, 10, 10))
    assert _one_channel(page) is page
    assert _one_channel(page.convert("L")).mode == "L"
    assert _one_channel(page.convert("RGBA")).mode == "RGB"
