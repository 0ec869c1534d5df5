"""Region boxes of the CPU engine (issue 12 item 10) on real pages, through the text layer and
rasterized (OCR): heading and text boxes cover all their words; a figure box that swallowed
the exercise text under it is cut above that text; a chart's tick labels stay in the figure.

The chart and the textbook page are written here with PDFium (pypdfium2, as
tests/data/make_born_digital.py writes its pages): real vector paths and real text objects in
the standard fonts, so both the text layer and the rendered page are what a PDF writer makes.
On the textbook page the real CDLA model draws one figure box over the diagram and the two
exercises below it (asserted, so the test says when the model stops doing so).
"""

from __future__ import annotations

import ctypes
import json
import re
from pathlib import Path

import numpy as np
import pypdfium2 as pdfium
import pypdfium2.raw as raw
import pytest
from PIL import Image

from tests.born_digital import mbd
from workbench.documents.textlayer import extract_pdf
from workbench.engines.base import PageRequest
from workbench.engines.cpu.boxes import LayoutBox, Line
from workbench.engines.cpu.figures import ticks as figures
from workbench.markdown.assemble import assemble_page
from workbench.schema import Label, Region

pytestmark = pytest.mark.slow
DATA = Path(__file__).resolve().parents[3] / "data"

BODY = (
    "The sample grew steadily through the run. Each reading was taken by the same instrument "
    "and written down at once, so the curve shows the raw values without any smoothing."
)
EXERCISES = [
    "1. The triangle ABC above has a base of five centimetres and a height of three "
    "centimetres. Find its area and explain each step of your working in full sentences.",
    "2. Measure the three angles of the triangle with a protractor and check that their sum "
    "is one hundred and eighty degrees, then say why this must be so for every triangle.",
]


def _path(page, pts, width=1.0, close=False, fill=False) -> None:  # type: ignore[no-untyped-def]
    obj = raw.FPDFPageObj_CreateNewPath(pts[0][0], page.height - pts[0][1])
    for x, y in pts[1:]:
        raw.FPDFPath_LineTo(obj, x, page.height - y)
    if close:
        raw.FPDFPath_Close(obj)
    raw.FPDFPageObj_SetStrokeWidth(obj, ctypes.c_float(width))
    raw.FPDFPageObj_SetStrokeColor(obj, 0, 0, 0, 255)
    raw.FPDFPageObj_SetFillColor(obj, 90, 90, 90, 255)
    raw.FPDFPath_SetDrawMode(obj, 1 if fill else 0, 1)
    raw.FPDFPage_InsertObject(page.page.raw, obj)


def _chart(out: Path) -> None:
    """A line chart: y ticks 0.5 … 4, x ticks 0 … 6, axis title, caption, text around."""
    pdf = pdfium.PdfDocument.new()
    p = mbd.Page(pdf)
    p.text(72, 72, "Growth of the Sample", 16, "Times-Bold")
    y = p.paragraph(72, 100, 468, BODY)
    x0, x1, ytop, ybot = 130.0, 470.0, y + 30, y + 250
    _path(p, [(x0, ytop), (x0, ybot), (x1, ybot)])
    for i in range(8):
        v = 0.5 * (i + 1)
        yy = ybot - (ybot - ytop) * v / 4.0
        _path(p, [(x0 - 4, yy), (x0, yy)], 0.8)
        p.text(x0 - 8, yy + 3.5, f"{v:g}", 10, "Helvetica", "right")
    for i in range(7):
        xx = x0 + (x1 - x0) * i / 6
        _path(p, [(xx, ybot), (xx, ybot + 4)], 0.8)
        p.text(xx, ybot + 16, str(i), 10, "Helvetica", "center")
    vals = [0.6, 1.1, 1.9, 2.4, 3.0, 3.3, 3.9]
    pts = [(x0 + (x1 - x0) * i / 6, ybot - (ybot - ytop) * v / 4) for i, v in enumerate(vals)]
    _path(p, pts, 1.6)
    for cx, cy in pts:
        _path(p, [(cx - 3, cy - 3), (cx + 3, cy - 3), (cx + 3, cy + 3), (cx - 3, cy + 3)],
              0.5, close=True, fill=True)  # fmt: skip
    p.text((x0 + x1) / 2, ybot + 32, "Time (s)", 10, "Helvetica", "center")
    p.text(72, ybot + 58, "Figure 1: Growth of the sample over six seconds.", 10, "Times-Italic")
    p.paragraph(72, ybot + 84, 468, BODY + " " + BODY)
    p.close()
    pdf.save(out)


def _textbook(out: Path) -> None:
    """A wide triangle diagram with its labels, the two exercises right under it, a section."""
    pdf = pdfium.PdfDocument.new()
    p = mbd.Page(pdf)
    p.text(72, 72, "2.3 Area of a Triangle", 14, "Times-Bold")
    y = p.paragraph(72, 98, 468, "The area of a triangle is half the product of its base "
                    "and its height.", 11)  # fmt: skip
    top = y + 14
    a, b, c = (80.0, top + 170), (530.0, top + 170), (325.0, top + 20)
    _path(p, [a, b, c], 1.4, close=True)
    _path(p, [c, (c[0], a[1])], 0.8)
    p.text(a[0] - 14, a[1] + 4, "A", 11, "Times-Italic")
    p.text(b[0] + 5, b[1] + 4, "B", 11, "Times-Italic")
    p.text(c[0] - 4, c[1] - 6, "C", 11, "Times-Italic")
    p.text(305, a[1] + 16, "5 cm", 10, "Times-Roman")
    y = a[1] + 26
    for ex in EXERCISES:
        y = p.paragraph(80, y, 450, ex, 9) + 2
    p.text(72, y + 20, "2.4 Similar Triangles", 14, "Times-Bold")
    p.paragraph(72, y + 44, 468, "Two triangles are similar when their angles are equal.", 11)
    p.close()
    pdf.save(out)


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("pages")
    _chart(d / "chart.pdf")
    _textbook(d / "textbook.pdf")
    return {"chart": d / "chart.pdf", "textbook": d / "textbook.pdf"}


def _image(path: Path, index: int = 1) -> Image.Image:
    page = pdfium.PdfDocument(path)[index - 1]
    return page.render(scale=200 / 72).to_pil().convert("RGB")


def _run(engine, path: Path, index: int = 1, mode: str = "auto"):  # type: ignore[no-untyped-def]
    layer = extract_pdf(path, index) if mode == "auto" else None
    req = PageRequest(key=path.name, image=_image(path, index), text_layer=layer)
    out = next(iter(engine.configured(text_layer=mode).run([req])))
    assert out.error is None, out.error
    trace = json.loads(out.raw)
    assert trace["reader"] == ("text_layer" if mode == "auto" else "tesseract")
    return out.regions, trace


def _box(r: Region) -> tuple[float, float, float, float]:
    assert r.bbox is not None
    return (r.bbox.x0, r.bbox.y0, r.bbox.x1, r.bbox.y1)


def _inside(inner, outer, tol: float = 1.0) -> bool:  # type: ignore[no-untyped-def]
    return (
        inner[0] >= outer[0] - tol
        and inner[1] >= outer[1] - tol
        and inner[2] <= outer[2] + tol
        and inner[3] <= outer[3] + tol
    )


def _overlap(a, b) -> float:  # type: ignore[no-untyped-def]
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return max(w, 0.0) * max(h, 0.0)


@pytest.mark.parametrize(
    "name,index,mode",
    [
        ("pdflatex_outline.pdf", 2, "auto"),  # "1 Foo": the layout box left out the number
        ("pdflatex_outline.pdf", 2, "never"),
        ("two_column_article.pdf", 1, "auto"),
        ("financial_statement.pdf", 1, "auto"),
    ],
)
def test_every_region_box_holds_its_words(engine, name, index, mode):
    regions, trace = _run(engine, DATA / name, index, mode)
    heads = [r for r in regions if r.label in (Label.TITLE, Label.SECTION_HEADER)]
    assert heads
    for text, box, *_ in trace["lines"]:
        # each line is owned by the region it overlaps most; that region's box holds it whole
        owner = max(regions, key=lambda r: _overlap(box, _box(r)))
        assert _inside(box, _box(owner)), (text, box, owner.label, _box(owner))
    if name == "pdflatex_outline.pdf":
        foo = next(r for r in heads if "Foo" in r.text and r.text.lstrip("# ").startswith("1"))
        one = next(b for t, b, *_ in trace["lines"] if t.startswith("1 Foo") or t == "1")
        assert _inside(one, _box(foo))


@pytest.mark.parametrize("mode", ["auto", "never"])
def test_chart_tick_labels_stay_in_the_figure(engine, made, mode):
    regions, trace = _run(engine, made["chart"], mode=mode)
    md = assemble_page(regions)
    figs = [r for r in regions if r.label is Label.FIGURE]
    assert len(figs) == 1
    fig = _box(figs[0])
    ticks = [(t, b) for t, b, *_ in trace["lines"] if figures.numeric(Line(t, b, 100, ""))]
    assert len(ticks) >= 8  # the tick labels were read ...
    for t, b in ticks:  # ... and the figure's box holds every one of them
        assert _inside(b, fig, tol=2), (t, b, fig)
    for r in regions:  # no region, and no Markdown paragraph, made only of numbers
        if r.label is not Label.FIGURE:
            assert not re.fullmatch(r"[\d.\s\\]+", r.text), r
    for para in md.split("\n\n"):
        assert not re.fullmatch(r"[\d.,\s\\]+", para.strip()), para
    assert "3.5" not in md and md.count("Time (s)") == 1
    assert md.count("Growth of the sample over six seconds") == 1


@pytest.mark.parametrize("mode", ["auto", "never"])
def test_exercise_text_under_a_figure_is_its_own_region(engine, made, mode):
    regions, trace = _run(engine, made["textbook"], mode=mode)
    md = assemble_page(regions)
    # the layout model's own figure box reaches over the exercises (the mistake being fixed)
    fig_boxes = [b for native, b, _ in trace["layout"] if native == "figure"]
    ex_line = next(b for t, b, *_ in trace["lines"] if "protractor" in t)
    assert any(_inside(ex_line, b, tol=4) for b in fig_boxes)
    figs = [r for r in regions if r.label is Label.FIGURE]
    assert len(figs) == 1
    fig = _box(figs[0])
    exercise = [r for r in regions if "protractor" in r.text]
    assert len(exercise) == 1 and exercise[0].label in (Label.TEXT, Label.LIST)
    ex = _box(exercise[0])
    assert "Find its area" in exercise[0].text
    assert _overlap(ex, fig) <= 0.02 * (ex[2] - ex[0]) * (ex[3] - ex[1])
    assert fig[3] <= ex[1] + 2 and fig[3] - fig[1] > 300  # the diagram keeps its box
    for words in ("Find its area", "protractor", "one hundred and eighty", "5 cm"):
        assert md.replace("5cm", "5 cm").count(words) == 1, words
    assert md.index("Figure") < md.index("Find its area") < md.index("Similar Triangles")


def test_text_over_a_picture_is_not_cut_out(engine, made):
    """The same page with grey ink under the exercises (text set on the picture): the figure
    keeps its text."""
    image = _image(made["textbook"])
    lines, _ = engine.tess.read(image)
    block = [ln for ln in lines if ln.box[1] > 860 and ln.box[3] < 1010]  # the exercises
    assert len(block) == 4 and "protractor" in " ".join(ln.text for ln in block)
    a = np.asarray(image).copy()
    y0, y1 = int(min(ln.box[1] for ln in block)), int(max(ln.box[3] for ln in block))
    rng = np.random.default_rng(0)
    band = a[y0:y1, 170:1530]
    noise = rng.random(band.shape[:2]) < 0.15
    band[noise & (band.mean(axis=2) > 200)] = 120
    gray = np.asarray(Image.fromarray(a).convert("L"))
    fig = LayoutBox("figure", (170.0, 345.0, 1532.0, 996.0), 0.6)
    line_h = float(np.median([ln.height for ln in lines]))
    assert figures.release_text([fig], lines, gray, line_h) == [fig]
    clean = np.asarray(image.convert("L"))
    cut = figures.release_text([fig], lines, clean, line_h)
    assert len(cut) == 2 and cut[0].box[3] < y0 and cut[1].native == "ocr_lines"


def test_text_at_a_figure_boxs_top_edge_is_released(engine, made):
    """A figure box drawn from the intro paragraph down over the diagram (the layout model's
    mistake at the top edge this time): the paragraph is cut off, the diagram's labels stay."""
    image = _image(made["textbook"])
    lines, _ = engine.tess.read(image)
    intro = next(ln for ln in lines if ln.text.startswith("The area of a triangle"))
    fig = LayoutBox("figure", (170.0, intro.box[1] - 6, 1532.0, 870.0), 0.6)
    line_h = float(np.median([ln.height for ln in lines]))
    out = figures.release_text([fig], lines, np.asarray(image.convert("L")), line_h)
    assert len(out) == 2 and out[1].native == "ocr_lines"
    assert intro.box[3] < out[0].box[1] < 362  # under the paragraph, over the apex label C
    assert out[1].box == intro.box


def test_tick_numbers_and_labels_units():
    def ln(t: str, box=(0.0, 0.0, 10.0, 10.0)) -> Line:  # type: ignore[no-untyped-def]
        return Line(t, box, 95.0, "tesseract")

    for t in ("4", "3.5", "-2", "−0.25", "10%", "2019 2020 2021", "1,000", "$5"):
        assert figures.numeric(ln(t)), t
    for t in ("Time (s)", "4 apples", "Fig. 3", ""):
        assert not figures.numeric(ln(t)), t
    # a loose "3.5" right of a figure joins it; a paragraph's short last line does not
    fig = LayoutBox("figure", (100.0, 100.0, 500.0, 400.0), 0.9)
    para = LayoutBox("text", (100.0, 500.0, 500.0, 560.0), 0.9)
    tick = ln("3.5", (70.0, 200.0, 95.0, 215.0))
    short = ln("the end", (100.0, 420.0, 160.0, 435.0))
    above = ln("a paragraph line that runs on", (100.0, 402.0, 480.0, 417.0))
    members = {-1: [tick, short, above], 1: [ln("Body text here.", (100.0, 510.0, 400.0, 525.0))]}
    out = figures.attach_ticks([fig, para], members, set(), 15.0)
    assert out[0] == [tick] and out[-1] == [short, above] and len(out[1]) == 1
    folio = ln("7", (290.0, 420.0, 305.0, 435.0))  # under the figure, in the bottom margin
    out = figures.attach_ticks([fig], {-1: [folio]}, set(), 15.0, height=440.0)
    assert out[-1] == [folio] and 0 not in out
    # tick labels along the border are not the figure's text; numbers in its middle (a table
    # the layout model called a figure) are
    grown = (70.0, 100.0, 500.0, 400.0)
    middle = ln("1,204 1,087 962", (200.0, 240.0, 380.0, 255.0))
    assert figures.without_ticks([tick, middle], grown, 15.0) == [middle]


def test_huckfinn_illustration_keeps_its_caption(engine):
    """A real scan: the illustration's caption is a short label row, not released text; the
    text lines beside it reach into the picture (a decorative initial), their region's box
    grows over them, but the reading order stays the layout boxes' (the sentence "She never
    told me / why, …" is not cut by the figure)."""
    regions, trace = _run(engine, DATA / "scan_huckfinn_c03-29.pdf", mode="never")
    figs = [r for r in regions if r.label is Label.FIGURE]
    assert len(figs) == 1 and "WATSON" in figs[0].text
    ely = next(r for r in regions if r.text.startswith("ELI"))
    first = next(b for t, b, *_ in trace["lines"] if t.startswith("ELI"))
    assert _inside(first, _box(ely)) and _box(ely)[0] < 400  # grown over the initial
    md = assemble_page(regions)
    start, end = md.index("never told me"), md.index("why, and I couldn")
    assert start < end and "![Figure" not in md[start:end]
