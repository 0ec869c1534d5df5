"""Captions of charts and tables (issue 12 item 10 leftovers): "Fig. 2.", "Figure 3:", "Table 1:"
lines directly under or over a figure or table are ``caption`` regions next to it in reading
order, through the text layer and through OCR of the rendered page.

The page is written here with PDFium (as tests/data/make_born_digital.py writes its pages):
two bar charts drawn as vector paths with their tick labels, three paragraphs and a ruled
table. On it the real CDLA model makes the mistakes being fixed (asserted, so the test says
when the model stops making them): the first chart's figure box swallows its caption "Fig. 2.
…", the paragraph under it gets a figure, a text and a caption box at once, and the paragraph
under the second chart is boxed as a caption. Real pages: a LaTeX page with two photos and
"Figure 1.1: Bears" (pypdf's side-by-side-subfig.pdf), the Census page's table captions.
"""

from __future__ import annotations

from pathlib import Path

import pypdfium2 as pdfium
import pytest

from tests.engines.cpu.figures.test_cpu_boxes import DATA, _box, _overlap, _path, _run, mbd
from workbench.engines.cpu.boxes import LayoutBox, Line
from workbench.engines.cpu.figures import captions
from workbench.engines.cpu.page import Block
from workbench.markdown.assemble import assemble_page
from workbench.schema import Label, Region

pytestmark = pytest.mark.slow
PARA = (
    "Quarterly sales rose through the year as the new product reached more stores, and the "
    "second half carried most of the growth."
)
BELOW, ABOVE, TABLE = (
    "Fig. 2. Revenue by quarter in millions of dollars",
    "Figure 3: Units shipped by region",
    "Table 1: Quarterly revenue by segment",
)


def _bars(p, x0: float, x1: float, ytop: float, ybot: float, vals: list[float]) -> None:  # type: ignore[no-untyped-def]
    _path(p, [(x0, ytop), (x0, ybot), (x1, ybot)])
    w = (x1 - x0) / (len(vals) * 1.6)
    for i, v in enumerate(vals):
        bx = x0 + 20 + i * (x1 - x0 - 40) / len(vals)
        yy = ybot - (ybot - ytop) * v
        _path(p, [(bx, ybot), (bx, yy), (bx + w, yy), (bx + w, ybot)], 0.5, close=True,
              fill=True)  # fmt: skip
        p.text(bx + w / 2, ybot + 14, f"Q{i + 1}", 10, "Helvetica", "center")


def _captions(out: Path, font: str = "Times-Roman") -> None:
    """Chart with its caption under it, paragraph, caption over a second chart, paragraph,
    caption over a table."""
    pdf = pdfium.PdfDocument.new()
    p = mbd.Page(pdf)
    p.text(72, 72, "Sales in 2023", 16, "Times-Bold")
    y = p.paragraph(72, 100, 468, PARA, 11)
    _bars(p, 120, 480, y + 20, y + 200, [0.3, 0.45, 0.7, 0.9])
    p.text(72, y + 240, BELOW, 10, font)
    y = p.paragraph(72, y + 270, 468, PARA + " " + PARA, 11)
    p.text(72, y + 14, ABOVE, 10, font)
    _bars(p, 120, 480, y + 34, y + 190, [0.8, 0.5, 0.6, 0.2])
    y = p.paragraph(72, y + 230, 468, PARA, 11)
    p.text(72, y + 14, TABLE, 10, font)
    yy = y + 24
    p.rule(72, yy, 540)
    rows = [("Segment", "Q1", "Q2", "Q3"), ("Widgets", "120", "135", "150"),
            ("Gadgets", "80", "95", "99"), ("Services", "40", "42", "47")]  # fmt: skip
    for k, row in enumerate(rows):
        yy += 16
        face = "Helvetica-Bold" if k == 0 else "Helvetica"
        p.text(72, yy, row[0], 10, face)
        for j, cell in enumerate(row[1:]):
            p.text(330 + 90 * j, yy, cell, 10, face, "right")
        if k == 0:
            p.rule(72, yy + 4, 540)
    p.rule(72, yy + 6, 540)
    p.close()
    pdf.save(out)


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("pages")
    _captions(d / "captions.pdf")
    _captions(d / "bold.pdf", "Times-Bold")
    return {"roman": d / "captions.pdf", "bold": d / "bold.pdf"}


def _holds(box, line) -> bool:  # type: ignore[no-untyped-def]
    """Most of ``line`` lies in ``box``."""
    return _overlap(line, box) > 0.5 * (line[2] - line[0]) * (line[3] - line[1])


def _host(regions: list[Region], cap: Region) -> Region:
    """The region right before or after ``cap`` in reading order that is a figure or table."""
    near = [r for r in regions if abs(r.order - cap.order) == 1]
    hosts = [r for r in near if r.label in (Label.FIGURE, Label.TABLE)]
    assert len(hosts) == 1, (cap.text, [(r.label, r.text[:30]) for r in near])
    return hosts[0]


@pytest.mark.parametrize("face", ["roman", "bold"])
@pytest.mark.parametrize("mode", ["auto", "never"])
def test_captions_are_labelled_and_sit_by_their_figure(engine, made, mode, face):
    regions, trace = _run(engine, made[face], mode=mode)
    md = assemble_page(regions)
    if face == "roman":  # the layout model's mistakes this page is about
        layout = trace["layout"]
        below = next(b for t, b, *_ in trace["lines"] if t.startswith("Fig"))
        assert any(n == "figure" and _holds(b, below) for n, b, _ in layout)
        para = next(b for t, b, *_ in trace["lines"] if t.startswith("product reached"))
        labels = {n for n, b, _ in layout if _holds(b, para)}
        assert {"text", "figure", "figure_caption"} <= labels
        last = max((b for t, b, *_ in trace["lines"] if t.startswith("Quarterly")),
                   key=lambda b: b[1])  # fmt: skip
        assert {n for n, b, _ in layout if _holds(b, last)} == {"figure_caption"}
    caps = sorted((r for r in regions if r.label is Label.CAPTION), key=lambda r: r.order)
    assert [r.text for r in caps] == [BELOW, ABOVE, TABLE]
    for cap, kind, where in zip(caps, (Label.FIGURE, Label.FIGURE, Label.TABLE),
                                ("below", "above", "above"), strict=True):  # fmt: skip
        host = _host(regions, cap)
        assert host.label is kind
        c, h = _box(cap), _box(host)
        assert _overlap(c, h) == 0, (cap.text, c, h)
        if where == "below":
            assert cap.order == host.order + 1 and 0 <= c[1] - h[3] < 80
        else:
            assert cap.order == host.order - 1 and 0 <= h[1] - c[3] < 80
    # the paragraphs are text, each printed once; the charts keep only their labels
    paras = [r for r in regions if r.text.startswith("Quarterly sales rose")]
    assert [r.label for r in paras] == [Label.TEXT] * 3
    assert md.count("carried most of the growth") == 4
    figs = [r for r in regions if r.label is Label.FIGURE]
    assert len(figs) == 2 and all("Revenue" not in f.text and "sales" not in f.text for f in figs)
    assert not any(ln.startswith("#") and "Figure" in ln for ln in md.splitlines())


@pytest.mark.parametrize("mode", ["auto", "never"])
def test_census_table_captions_sit_over_their_tables(engine, mode):
    """A real page: each table's title is a heading (set large), the bracketed note under it
    is the table's caption, directly before the table."""
    regions, _ = _run(engine, DATA / "census_12s0324.pdf", mode=mode)
    caps = [r for r in regions if r.label is Label.CAPTION]
    assert [r.text.lstrip("\\")[:13] for r in caps] == ["[In thousands", "[Based on Uni"]
    for cap in caps:
        assert _host(regions, cap).label is Label.TABLE
        assert _host(regions, cap).order == cap.order + 1


def test_caption_rules():
    good = ["FIGURE 4 Revenue", "Fig 3: x", "Table 2.1. Sales", "Figure 12", "Tab. 3 — Totals"]
    for text in (BELOW, ABOVE, TABLE, *good, "Exhibit 5: Fees", "Figure S2: Extra"):
        assert captions.is_caption(text), text
    for text in ("Table 1 shows the revenue", "Figures are in millions", "Tablespoons 2",
                 "The figure 3 below", "Figure it out"):  # fmt: skip
        assert not captions.is_caption(text), text

    def ln(t: str, box: tuple[float, float, float, float]) -> Line:
        return Line(t, box, 95.0, "tesseract")

    # (a) a caption swallowed at a figure's bottom edge leaves it; the figure stops above it
    fig = Block("figure", (100.0, 100.0, 900.0, 700.0), [ln("Q1 Q2", (200.0, 600.0, 500.0, 620.0)),
                ln("Fig. 1. Sales", (100.0, 660.0, 400.0, 685.0))], 0.9)  # fmt: skip
    out = captions.attach([fig], 25.0)
    assert [b.native for b in out] == ["figure", "figure_caption"]
    assert out[0].box[3] < 660 and [x.text for x in out[0].lines] == ["Q1 Q2"]
    # (b) a text block starting with a caption line, far from any figure, stays text
    far = Block("text", (100.0, 900.0, 900.0, 925.0), [ln(TABLE, (100.0, 900.0, 900.0, 925.0))],
                0.9)  # fmt: skip
    assert captions.attach([fig, far], 25.0)[1].native == "text"
    # (c) the model's caption box on a paragraph under a captioned table becomes text
    table = Block("table", (100.0, 1000.0, 900.0, 1200.0), [], 0.9)
    over = Block("text", (100.0, 960.0, 600.0, 985.0), [ln(TABLE, (100.0, 960.0, 600.0, 985.0))],
                 0.9)  # fmt: skip
    sales = ln("The table shows the sales.", (100.0, 1220.0, 900.0, 1245.0))
    under = Block("figure_caption", (100.0, 1220.0, 900.0, 1245.0), [sales], 0.8)
    out = captions.attach([table, over, under], 25.0)
    assert [b.native for b in out] == ["table", "table_caption", "text"]
    # duplicate boxes on one paragraph: no figure, and text unless it opens with a caption
    boxes = [LayoutBox("figure", (100.0, 100.0, 900.0, 180.0), 0.6),
             LayoutBox("text", (101.0, 100.0, 900.0, 181.0), 0.6),
             LayoutBox("figure_caption", (110.0, 100.0, 898.0, 180.0), 0.7)]  # fmt: skip
    para = [
        ln(PARA[:60], (101.0, 102.0, 890.0, 128.0)),
        ln(PARA[60:], (101.0, 140.0, 700.0, 166.0)),
    ]
    assert [b.native for b in captions.dedupe(boxes, para)] == ["text"]
    para[0] = ln(ABOVE, para[0].box)
    assert [b.native for b in captions.dedupe(boxes, para)] == ["figure_caption"]


@pytest.mark.parametrize("mode", ["auto", "never"])
def test_real_latex_page_figure_caption_and_chapter_heading(engine, mode):
    """pypdf's side-by-side-subfig page: a chapter heading, two photos with sub-captions
    "(a) …" "(b) …", the caption "Figure 1.1: Bears" under them, prose that cites "figure
    1.1a" (not a caption: it does not open its line)."""
    regions, _ = _run(engine, DATA / "latex_subfig_captions.pdf", mode=mode)
    md = assemble_page(regions)
    assert [ln for ln in md.splitlines() if ln.startswith("#")] == ["## 1 Your Chapter"]
    caps = [r for r in regions if r.label is Label.CAPTION]
    assert [r.text for r in caps] == ["Figure 1.1: Bears"]
    fig = _host(regions, caps[0])
    assert fig.label is Label.FIGURE and fig.order == caps[0].order - 1
    assert "South American coati" in fig.text and "Brown bear" in fig.text
    assert _overlap(_box(caps[0]), _box(fig)) == 0
    cites = next(r for r in regions if "You can now see" in r.text)
    assert cites.label is Label.TEXT
