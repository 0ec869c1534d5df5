"""The text-layer check (:func:`~workbench.engines.cpu.readers.second.layer_disagrees`) on a
layer whose sampled lines lie partly off the page (the IRS 1040-NR instructions set lines below
the page's bottom edge: every page of the document failed with Pillow's "Coordinate 'lower'
is less than 'upper'")."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw

from workbench.engines.cpu.boxes import Line
from workbench.engines.cpu.readers.ocr import TesseractReader
from workbench.engines.cpu.readers.second import layer_disagrees

pytest.importorskip("tesserocr")


def _page() -> tuple[Image.Image, Line]:
    image = Image.new("L", (900, 300), 255)
    ImageDraw.Draw(image).text((40, 100), "The quick brown fox jumps over", fill=0, font_size=40)
    on_page = Line("The quick brown fox jumps over", (40, 95, 700, 150), 100.0, "text_layer")
    return image, on_page


def test_lines_below_the_page_are_not_read_and_do_not_fail_the_check():
    image, on_page = _page()
    below = [
        Line("Lines set under the bottom edge", (40, 320 + 40 * i, 700, 350 + 40 * i), 100.0,
             "text_layer")
        for i in range(3)
    ]  # fmt: skip
    assert layer_disagrees(TesseractReader(), image, [on_page, *below]) is None


def test_a_layer_that_does_not_match_its_page_is_still_refused():
    image, _ = _page()
    wrong = Line("Zyxwv qutsr ponml kjihg", (40, 95, 700, 150), 100.0, "text_layer")
    assert layer_disagrees(TesseractReader(), image, [wrong]) is not None
