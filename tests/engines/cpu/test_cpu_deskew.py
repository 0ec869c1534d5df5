"""Deskew (issue 23, item 9): a real scan turned 2° and 4° off square is read as well as the
straight page, its regions land on the page's own content, and a straight page is not turned."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pypdfium2 as pdfium
import pytest
from PIL import Image, ImageDraw, ImageOps

from workbench.engines.cpu import deskew
from workbench.engines.cpu.boxes import area, cover, iou
from workbench.evaluate.metrics import plain_text, word_f1
from workbench.markdown.assemble import assemble_page
from workbench.schema import Region

DATA = Path(__file__).resolve().parents[2] / "data"


def _page(name: str) -> Image.Image:
    return pdfium.PdfDocument(DATA / name)[0].render(scale=200 / 72).to_pil().convert("RGB")


@pytest.fixture(scope="module")
def huckfinn() -> Image.Image:
    # with a white border as a scanner leaves one: turning the page in the test must not cut
    # the ends of its lines off (the book scan is cropped close to the text)
    return ImageOps.expand(_page("scan_huckfinn_c03-29.pdf"), 120, fill="white")


def test_a_straight_scan_is_not_turned(huckfinn):
    assert abs(deskew.estimate(huckfinn)) < 0.3


@pytest.mark.parametrize("turn", [-4.0, -2.0, 2.0, 4.0, 1.0])
def test_the_angle_a_scan_was_turned_by_is_found(huckfinn, turn):
    assert deskew.estimate(deskew.straighten(huckfinn, turn)) == pytest.approx(-turn, abs=0.2)


def test_a_skewed_scan_in_the_test_data_measures_as_skewed():
    # the two-column book page was scanned ~1.5° off square (its left margin drifts 50 px)
    assert 1.0 < deskew.estimate(_page("scan_two_columns.pdf")) < 2.0


def test_blank_and_photo_like_pages_are_left_alone():
    assert deskew.estimate(Image.new("RGB", (800, 1000), "white")) == 0.0
    noise = np.random.default_rng(1).integers(0, 256, (1000, 800, 3), dtype=np.uint8)
    assert deskew.estimate(Image.fromarray(noise)) == 0.0


def test_a_box_read_on_the_straightened_page_maps_back_onto_the_ink():
    page = Image.new("RGB", (1000, 800), "white")
    ImageDraw.Draw(page).rectangle((290, 190, 310, 210), fill="black")
    square = deskew.straighten(page, 10)
    ys, xs = np.nonzero(np.asarray(square.convert("L")) < 128)
    box = deskew.to_page((xs.min(), ys.min(), xs.max(), ys.max()), 10, 1000, 800)
    # the box holds the square, and is no more than the bounds of its corners turned twice
    assert cover((290, 190, 310, 210), box) > 0.95 and area(box) < 2 * 400


def _text(regions: list[Region]) -> str:
    return plain_text(assemble_page(regions))


@pytest.mark.slow
@pytest.mark.parametrize("turn", [2.0, 4.0])
def test_a_turned_scan_reads_as_well_as_the_straight_page(engine, huckfinn, turn):
    ocr = engine.configured(text_layer="never")
    straight, _ = ocr.analyze(huckfinn)
    turned, trace = ocr.analyze(deskew.straighten(huckfinn, turn))
    assert trace["deskew_degrees"] == pytest.approx(-turn, abs=0.2)
    truth = (DATA / "scan_huckfinn_c03-29.truth.txt").read_text(encoding="utf-8")
    assert word_f1(_text(turned), truth).f1 >= word_f1(_text(straight), truth).f1 - 0.02
    # each region of the straight page, turned as the page was, meets one of the turned read
    w, h = huckfinn.size
    hits = []
    for r in straight:
        if r.bbox is None or not r.text:
            continue
        want = deskew.to_page((r.bbox.x0, r.bbox.y0, r.bbox.x1, r.bbox.y1), -turn, w, h)
        got = [(g.bbox.x0, g.bbox.y0, g.bbox.x1, g.bbox.y1) for g in turned if g.bbox]
        hits.append(max(iou(want, b) for b in got))
    assert hits and min(hits) > 0.7, hits


def test_a_grey_scan_is_turned_to_the_very_pixels_of_the_rgb_turn(huckfinn):
    # straighten turns one channel of a grey page and copies it (a third of the work); the
    # pixels must be the ones PIL's RGB turn gives, fill included
    assert huckfinn.mode == "RGB"
    for turn in (1.3, -4.0):
        whole = huckfinn.rotate(
            turn, resample=Image.Resampling.BICUBIC, expand=False, fillcolor=(255, 255, 255)
        )
        assert deskew.straighten(huckfinn, turn).tobytes() == whole.tobytes()


def test_a_colour_page_is_turned_whole():
    rng = np.random.default_rng(2)
    page = Image.fromarray(rng.integers(0, 256, (300, 200, 3), dtype=np.uint8))
    whole = page.rotate(
        2.0, resample=Image.Resampling.BICUBIC, expand=False, fillcolor=(255, 255, 255)
    )
    assert deskew.straighten(page, 2.0).tobytes() == whole.tobytes()
