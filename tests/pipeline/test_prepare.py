"""Prepared pages: at the size the spec's rule gives, drawn once by PDFium at it, encoded once
losslessly; the bytes the server gets are the bytes the run writes; worker processes really
render; pages stream with bounded memory."""

from __future__ import annotations

import base64
import io
import os
import pickle
from pathlib import Path

import numpy as np
import pypdfium2 as pdfium
import pytest
from PIL import Image, ImageFilter

from tests.fakes.openai_server import FakeOpenAIServer
from workbench.cli import main as cli
from workbench.documents import open_document
from workbench.engines.base import PageRequest
from workbench.engines.png import encode_png
from workbench.errors import DocumentError
from workbench.models import fit_size
from workbench.models.registry import ModelSpec, PageSizing, get_spec
from workbench.pipeline import prepare
from workbench.pipeline.feed import prepare_pages
from workbench.pipeline.prepare import sized

DATA = Path(__file__).resolve().parents[1] / "data"
LIGHTON = get_spec("lightonai/LightOnOCR-2-1B")  # longest edge 1540 at 200 DPI


def _blurred(image: Image.Image) -> np.ndarray:
    return np.asarray(image.convert("L").filter(ImageFilter.GaussianBlur(2)), dtype=np.int16)


def spec_with(sizing: PageSizing) -> ModelSpec:
    return ModelSpec(id="t/sized", display="t", family="t", parser="markdown", sizing=sizing)


@pytest.mark.parametrize(
    "sizing",
    [
        PageSizing(dpi=200, longest_edge=1540),
        PageSizing(dpi=200, max_pixels=1_000_000, grid=28),
        PageSizing(dpi=50, min_short_edge=1024),
    ],
)
def test_pages_have_the_rule_size_and_png_is_lossless(sizing: PageSizing) -> None:
    doc = open_document("dd.pdf", (DATA / "dd0293_p1-2.pdf").read_bytes())
    spec = spec_with(sizing)
    for page in prepare_pages(doc, None, spec, workers=0):
        rendered = doc.page(page.index, sizing.dpi)  # the old way: render at DPI, then resize
        assert page.size == sized(rendered.image, sizing).size
        assert page.size == fit_size(*rendered.image.size, sizing=sizing, is_image=False)
        assert page.png is not None
        decoded = Image.open(io.BytesIO(page.png))
        assert decoded.size == page.size
        # Drawn at the size, the page where it belongs: like a 300 DPI render shrunk to it
        # once anti-aliasing is blurred away (the same render shifted 4 px scores over 7).
        sharp = doc.page(page.index, 300).image.resize(page.size, Image.Resampling.LANCZOS)
        assert np.abs(_blurred(decoded) - _blurred(sharp)).mean() < 5


def test_grey_pages_are_single_channel_colour_pages_rgb_and_both_exact() -> None:
    grey = Image.new("RGB", (64, 40), (200, 200, 200))
    grey.putpixel((3, 4), (10, 10, 10))
    colour = grey.copy()
    colour.putpixel((5, 6), (255, 0, 0))
    for image, mode in ((grey, "L"), (colour, "RGB")):
        decoded = Image.open(io.BytesIO(encode_png(image)))
        assert decoded.mode == mode
        assert np.array_equal(np.asarray(decoded.convert("RGB")), np.asarray(image))


def test_workers_give_the_same_pages_as_in_process_and_really_run_elsewhere() -> None:
    doc = open_document("census.pdf", (DATA / "census_12s0324.pdf").read_bytes())
    here = list(prepare_pages(doc, None, LIGHTON, workers=0))
    pooled = list(prepare_pages(doc, None, LIGHTON, workers=2))
    assert [p.png for p in pooled] == [p.png for p in here]
    assert [p.size for p in pooled] == [p.size for p in here]
    pool = prepare._POOLS[2]
    pids = {p.pid for p in pool._processes.values()}
    assert pids and os.getpid() not in pids  # rendered in worker processes, not here


def test_a_prepared_page_pickles_as_its_png_not_its_pixels() -> None:
    doc = open_document("census.pdf", (DATA / "census_12s0324.pdf").read_bytes())
    [page] = prepare_pages(doc, [1], LIGHTON, workers=0)
    assert page.png is not None
    pixels = page.size[0] * page.size[1]
    assert len(pickle.dumps(page)) < len(page.png) + 10_000 < pixels
    back = pickle.loads(pickle.dumps(page))
    assert back.png == page.png and back.size == page.size
    request = PageRequest(key="k", image=page.image, png=page.png)
    assert len(pickle.dumps(request)) < len(page.png) + 10_000
    assert pickle.loads(pickle.dumps(request)).encoded() == page.png


def test_a_page_that_cannot_render_raises_the_documents_error() -> None:
    pdf = pdfium.PdfDocument.new()
    pdf.new_page(612, 792)
    buf = io.BytesIO()
    pdf.save(buf)
    doc = open_document("one.pdf", buf.getvalue())
    with pytest.raises(Exception) as info:
        list(prepare_pages(doc, [2], LIGHTON, workers=2))
    assert "outside" in str(info.value) or isinstance(info.value, DocumentError)


def test_the_png_written_is_the_png_sent(tmp_path: Path) -> None:
    with FakeOpenAIServer(models=["lightonai/LightOnOCR-2-1B"]) as server:
        code = cli(
            [
                "ocr",
                str(DATA / "dd0293_p1-2.pdf"),
                "--out",
                str(tmp_path / "run"),
                "--engine",
                "vllm-server",
                "--base-url",
                server.base_url,
                "--quiet",
            ]
        )
        bodies = list(server.requests)
    assert code == 0
    sent = []
    for body in bodies:
        part = body["messages"][-1]["content"][0]
        sent.append(base64.b64decode(part["image_url"]["url"].split(",", 1)[1]))
    written = sorted((tmp_path / "run").glob("*/page-*.png"))
    written = [p for p in written if "-r" not in p.stem]
    assert len(written) == 2 and len(sent) == 2
    assert sorted(sent) == sorted(p.read_bytes() for p in written)
    assert Image.open(written[0]).size == (1190, 1540)  # the spec's 1540 px long edge


@pytest.mark.parametrize("name", ["dd0293_p1-2.pdf", "census_12s0324.pdf", "tables_paper.pdf"])
def test_cpu_engine_pages_carry_the_pixels_their_png_decodes_to(name: str) -> None:
    """For the CPU engine the image is the drawn pixels (no PNG round trip): the same mode
    and pixels as decoding the PNG, grey pages as ``L`` and colour ones as ``RGB``."""
    doc = open_document(name, (DATA / name).read_bytes())
    for page in prepare_pages(doc, None, get_spec("cpu"), workers=0):
        assert page.png is not None and not hasattr(page.image, "fp")  # not a PNG to inflate
        decoded = Image.open(io.BytesIO(page.png))
        assert page.image.mode == decoded.mode and page.image.size == decoded.size
        assert np.array_equal(np.asarray(page.image), np.asarray(decoded))


def test_decoded_pixels_match_the_png_in_both_modes() -> None:
    raw = prepare.png_rows(7, 5)
    prepare.row_pixels(raw)[...] = 200
    prepare.row_pixels(raw)[1, 2] = 10
    grey_png = prepare.encode_rows(raw)
    grey = prepare.decoded(raw, grey_png)
    prepare.row_pixels(raw)[3, 4] = (255, 0, 0)
    colour_png = prepare.encode_rows(raw)
    colour = prepare.decoded(raw, colour_png)
    for image, png, mode in ((grey, grey_png, "L"), (colour, colour_png, "RGB")):
        assert image.mode == mode == Image.open(io.BytesIO(png)).mode
        assert np.array_equal(np.asarray(image), np.asarray(Image.open(io.BytesIO(png))))
