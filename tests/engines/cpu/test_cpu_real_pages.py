"""The CPU engine on real pages (tests/data, see SOURCES.md): real Tesseract, CDLA, RapidOCR."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pypdfium2 as pdfium
import pytest
from PIL import Image, ImageDraw

from workbench.engines.base import Engine, PageRequest
from workbench.engines.cpu import get_cpu_engine
from workbench.evaluate.metrics import char_errors, plain_text
from workbench.markdown.assemble import assemble_page
from workbench.schema import Label

pytestmark = pytest.mark.slow
DATA = Path(__file__).resolve().parents[2] / "data"
PAGES = {
    "census": ("census_12s0324.pdf", 0),
    "two_columns": ("scan_two_columns.pdf", 0),
    "dd0293_p2": ("dd0293_p1-2.pdf", 1),
    "latex_p2": ("pdflatex_outline.pdf", 1),
    "toc": ("pdflatex_outline.pdf", 0),
    "sf424": ("sf424_page2.pdf", 0),
    "huckfinn": ("scan_huckfinn_c03-29.pdf", 0),
    "va210966": ("va210966_p1.pdf", 0),
}


def _render(name: str, page: int) -> Image.Image:
    return pdfium.PdfDocument(DATA / name)[page].render(scale=200 / 72).to_pil().convert("RGB")


@pytest.fixture(scope="module")
def results(engine):
    reqs = [PageRequest(key=k, image=_render(*v)) for k, v in PAGES.items()]
    outs = {o.key: o for o in engine.run(reqs)}
    assert set(outs) == set(PAGES)
    for o in outs.values():
        assert o.error is None, o.error
    return outs


def test_engine_protocol_and_sharing(engine):
    assert isinstance(engine, Engine)
    assert engine.name == "cpu" and "tesseract" in engine.model and "CDLA" in engine.model
    assert get_cpu_engine() is engine
    assert "degraded" not in engine.describe()


def test_regions_are_ordered_with_ids(results):
    for o in results.values():
        assert [r.id for r in o.regions] == [f"r{i}" for i in range(len(o.regions))]
        assert all(r.bbox is not None for r in o.regions)
        json.loads(o.raw)


def test_two_column_scan_reads_left_column_first(results):
    md = assemble_page(results["two_columns"].regions)
    # last words of the left column, then first words of the right column
    assert md.index("Southcott") < md.index("achievements") < md.index("Woodman")
    assert md.index("tongue") < md.index("Woodman")


def test_census_tables_are_pipe_tables_with_every_row(results):
    tables = [r for r in results["census"].regions if r.label is Label.TABLE]
    assert len(tables) == 2
    race = next(t for t in tables if "Runaways" in t.text and "Islander" in t.text)
    rows = race.text.splitlines()
    assert rows[1].startswith("|---|")
    numeric = [r for r in rows if len(re.findall(r"\|\s*[\d,]+\s*(?=\|)", r)) >= 4]
    assert len(numeric) == 32  # Table 325: Total .. Runaways, as in the text layer
    assert any(r.startswith("| Total") and "10,690,561" in r for r in rows)


def test_no_ocr_line_is_dropped(results):
    for key, o in results.items():
        body = re.sub(r"\s+", " ", " ".join(r.text for r in o.regions))
        words = set(re.findall(r"\w+", body))
        for text, *_ in json.loads(o.raw)["lines"]:
            # a de-hyphenated break ("reve-" + "lations") survives as part of a longer word
            missing = [w for w in re.findall(r"\w+", text) if w not in words and w not in body]
            assert not missing, (key, text, missing)


def test_toc_page_numbers_tesseract_skips_are_read_on_their_rows(results):
    """Tesseract drops the page numbers after the dot leaders; RapidOCR's detections that no
    Tesseract word covers are read and appended to their row, as in the text layer."""
    md = assemble_page(results["toc"].regions, include_furniture=True)
    flat = re.sub(r"[.\s]+", " ", md)
    assert "1 Foo 2 2 Bar 2 3 Baz 2 4 Foo 2 5 Bar 3 6 Baz 3 7 Foo 3 8 Bar 4 9 Baz 4" in flat, flat
    assert json.loads(results["toc"].raw)["rapidocr"]["missed_lines"] >= 9


def test_forms_the_layout_model_calls_tables_read_as_text(results):
    """CDLA boxes the whole VA form as one table; its detections grid into one column, so it
    is dissolved into text regions instead of a one-column pipe table."""
    regions = results["va210966"].regions
    assert not [r for r in regions if r.label is Label.TABLE]
    assert sum(r.label is Label.TEXT for r in regions) >= 10
    assert "VETERAN'S NAME" in " ".join(r.text for r in regions)


def test_furniture_is_labelled(results):
    census = {r.label for r in results["census"].regions}
    assert Label.FOOTER in census
    dd = results["dd0293_p2"].regions
    assert any(r.label is Label.PAGE_NUMBER and "2" in r.text for r in dd)
    assert any(r.label is Label.HEADER for r in dd)
    md = assemble_page(dd)
    assert "Page 2 of 4" not in md  # furniture stays out of the document Markdown


def test_no_signature_on_printed_pages(results):
    for key, o in results.items():
        assert not [r for r in o.regions if r.label is Label.SIGNATURE], key


def test_signature_found_in_ink_on_a_real_form(engine):
    """A cursive stroke (synthetic ink) on the real SF-424 page becomes a signature region."""
    image = _render("sf424_page2.pdf", 0)
    t = np.linspace(0, 1, 900)
    xs = 900 + 420 * t + 25 * np.sin(2 * np.pi * 9 * t)
    ys = 2035 + 34 * np.sin(2 * np.pi * 7 * t) * np.cos(2 * np.pi * 1.3 * t) + 9 * np.sin(46 * t)
    ImageDraw.Draw(image).line(
        list(zip(xs.tolist(), ys.tolist(), strict=True)), fill=(20, 20, 90), width=3
    )
    out = next(iter(engine.run([PageRequest(key="signed", image=image)])))
    sigs = [r for r in out.regions if r.label is Label.SIGNATURE]
    assert len(sigs) == 1 and sigs[0].bbox is not None
    assert sigs[0].bbox.x0 < 920 and sigs[0].bbox.x1 > 1300


@pytest.mark.parametrize(("key", "limit"), [("dd0293_p2", 0.25), ("latex_p2", 0.05)])
def test_cer_against_text_layer(results, key, limit):
    name, page = PAGES[key]
    ref = pdfium.PdfDocument(DATA / name)[page].get_textpage().get_text_range()
    hyp = plain_text(assemble_page(results[key].regions, include_furniture=True))
    assert char_errors(hyp, ref).cer < limit


@pytest.mark.parametrize(
    "image",
    [
        Image.new("RGB", (800, 1000), "white"),
        Image.new("RGB", (800, 1000), "black"),
        Image.new("L", (3, 3), 128),
        Image.new("RGBA", (40, 2000), (0, 0, 0, 0)),
    ],
    ids=["blank", "black", "tiny", "sliver"],
)
def test_never_raises_on_degenerate_images(engine, image):
    out = next(iter(engine.run([PageRequest(key="x", image=image)])))
    assert out.error is None and out.regions is not None
