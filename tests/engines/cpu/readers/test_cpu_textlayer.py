"""The CPU engine's text-layer path on real born-digital pages (tests/data, see SOURCES.md):
real PDFium text layers, real CDLA layout, real Tesseract for the rasterized comparisons."""

from __future__ import annotations

import dataclasses
import json
import pickle
import re
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from PIL import Image

from workbench.documents import open_document
from workbench.documents.textlayer import extract_pdf
from workbench.engines.base import PageRequest
from workbench.engines.cpu.confidence import TABLE_TRUST
from workbench.engines.cpu.readers.pdftext import judge, lines_from_layer
from workbench.engines.factory import CpuOptions, build_engine
from workbench.markdown.assemble import assemble_page
from workbench.schema import Label, PageResult, Region, TextLayer

pytestmark = pytest.mark.slow
DATA = Path(__file__).resolve().parents[3] / "data"


def _page(name: str, index: int = 1, dpi: float = 200) -> tuple[Image.Image, TextLayer | None]:
    pdf = pdfium.PdfDocument(DATA / name)
    image = pdf[index - 1].render(scale=dpi / 72).to_pil().convert("RGB")
    return image, extract_pdf(DATA / name, index)


def _run(engine, name: str, index: int = 1, mode: str = "auto", layer: bool = True):
    image, tl = _page(name, index)
    req = PageRequest(key=name, image=image, text_layer=tl if layer else None)
    out = next(iter(engine.configured(text_layer=mode).run([req])))
    assert out.error is None, out.error
    return out


def _words(md: str) -> list[str]:
    return re.findall(r"[A-Za-z]{3,}", md)


def test_text_layer_record_is_in_points_and_picklable():
    tl = extract_pdf(DATA / "financial_statement.pdf", 1)
    assert tl is not None and (tl.width, tl.height) == (612, 792)
    assert pickle.loads(pickle.dumps(tl)) == tl
    revenue = next(w for w in tl.words if w.text == "Revenue")
    assert 60 < revenue.box[0] < 80 and 140 < revenue.box[1] < 160  # points, top-left origin
    bold = {w.text for w in tl.words if w.bold}
    assert {"Note", "Combination", "2023"} <= bold and "Revenue" not in bold
    assert extract_pdf(DATA / "scan_two_columns.pdf", 1) is None  # image-only scan


def test_document_pages_carry_their_text_layer():
    doc = open_document("fin.pdf", (DATA / "financial_statement.pdf").read_bytes())
    page = doc.page(1, dpi=100)
    assert page.text_layer is not None
    lines = lines_from_layer(page.text_layer, *page.size)  # scaled to this rendering
    revenue = next(ln for ln in lines if ln.text.startswith("Revenue"))
    assert 90 < revenue.box[0] < 110  # 72 pt at 100 DPI = 100 px


def test_financial_statement_table_headings_and_escaping(engine):
    out = _run(engine, "financial_statement.pdf")
    assert all(r.source == "text_layer" for r in out.regions if r.text)
    md = assemble_page(out.regions)
    tables = [r for r in out.regions if r.label is Label.TABLE]
    assert len(tables) == 1
    # "Year Ended December 31," spans the year columns: an HTML table (table_render)
    rows = tables[0].text.splitlines()
    body = [r for r in rows if r.startswith("<tr><td>")]
    assert len(body) == 11  # 12 label rows, the wrapped "Net income attributable to" merged
    assert '<tr><th></th><th colspan="3">Year Ended December 31,</th></tr>' in rows
    assert (
        "<tr><td>Revenue</td><td>&#36;1,204</td><td>&#36;1,087</td><td>&#36;962</td></tr>" in rows
    )
    assert any(
        r.startswith("<tr><td>Net income attributable to common stockholders</td><td>&#36;312")
        for r in rows
    )
    assert "<tr><td>Gross margin</td><td>85.2 %</td><td>87.0 %</td><td>85.7 %</td></tr>" in rows
    for heading in ("Note 2 - Business Combination", "Recently Issued Accounting Pronouncements"):
        assert re.search(rf"^#+ {re.escape(heading)}$", md, re.M), heading
    assert "ACME WIDGETS" in md  # a statement title under the top margin is no running header
    assert "Gadget\\_Works" not in md and "Gadget_Works" in md  # snake-like words stay
    assert "\\<Segment" in md and "revenue \\| cost" in md and "\\$ 84" in md
    assert "material.\\*" in md and "\\* Unaudited" in md
    assert "F-12" not in md  # the folio stays furniture


def test_two_column_article_reads_columns_headings_and_formula(engine):
    out = _run(engine, "two_column_article.pdf")
    md = assemble_page(out.regions)
    assert md.startswith("# Reading Order in Two-Column Articles")
    order = [md.index(h) for h in ("## 1 Introduction", "## 2 Method", "## 3 Results")]
    assert order == sorted(order)  # left column first, though 1 and 3 are level
    assert md.index("run on the same pages") < md.index("## 2 Method")
    assert "Ada Lovelace\\*, Charles Babbage\\* and Grace Hopper\\*\\*" in md
    assert "snake_case" in md and "\\<b>" in md and "pipe \\| or a hash # in" in md
    assert "$$\ns(t) = -16t^{2} + 560t\n$$" in md  # scripts from glyph positions
    assert "Journal of Test Documents" not in md  # running head at the top margin


def test_each_word_once(engine):
    for name in ("financial_statement.pdf", "two_column_article.pdf", "pdflatex_outline.pdf"):
        out = _run(engine, name)
        md = assemble_page(out.regions, include_furniture=True)
        tl = extract_pdf(DATA / name, 1)
        assert tl is not None
        want: dict[str, int] = {}
        for w in _words(" ".join(w.text for w in tl.words)):
            want[w] = want.get(w, 0) + 1
        got: dict[str, int] = {}
        md = re.sub(r"</?(?:table|thead|tbody|tr|th|td)\b[^>]*>", " ", md)  # HTML tables
        for w in _words(md.replace("&#36;", "$")):
            got[w] = got.get(w, 0) + 1
        assert got == want, name


def test_math_superscript_from_a_real_latex_page(engine):
    """pypdf's superscript-pdftex.pdf: "x² = 9 means x ∈ {3, −3}" set by pdfTeX."""
    out = _run(engine, "superscript_pdftex.pdf")
    md = assemble_page(out.regions)
    assert "x² = 9" in md or "x^{2} = 9" in md
    assert not any(r.label in (Label.HEADER, Label.FOOTER) for r in out.regions if r.text)


def test_modes_never_and_only(engine):
    never = _run(engine, "financial_statement.pdf", mode="never")
    assert {r.source for r in never.regions if r.text} <= {"tesseract", "rapidocr"}
    only = _run(engine, "scan_two_columns.pdf", mode="only")
    assert not [r for r in only.regions if r.text]  # no layer, no OCR
    auto_scan = _run(engine, "scan_two_columns.pdf")
    assert any(r.source == "tesseract" and r.text for r in auto_scan.regions)


def test_untrustworthy_layers_are_refused():
    image, tl = _page("financial_statement.pdf")
    assert tl is not None and judge(tl, image) is None
    blank = Image.new("RGB", image.size, "white")  # a layer with no ink under it
    assert "no ink" in (judge(tl, blank) or "")
    garbled = TextLayer(tl.width, tl.height, tl.words, tl.chars, unmapped=tl.chars // 2)
    assert "garbled" in (judge(garbled, image) or "")
    hidden = TextLayer(tl.width, tl.height, tl.words, tl.chars, invisible=tl.chars)
    assert "invisible" in (judge(hidden, image) or "")


def test_text_layer_page_is_not_read_by_ocr(engine, monkeypatch):
    """What keeps a born-digital page fast (benchmarks/cpu_textlayer.py measures how fast): no
    OCR reader runs on a page whose text layer is trusted. A structural check, not a timed one."""
    from workbench.engines.cpu.engine import CpuEngine

    def no_ocr(*args: object, **kwargs: object) -> None:
        raise AssertionError("the page was OCR'd although its text layer is trusted")

    monkeypatch.setattr(CpuEngine, "_ocr", no_ocr)
    out = _run(engine, "financial_statement.pdf")
    assert out.error is None
    assert {r.source for r in out.regions if r.text} == {"text_layer"}


def test_confidence_and_sources_recorded(engine):
    out = _run(engine, "financial_statement.pdf")
    # The text layer's characters are sure; a table's grid is not (engines/cpu/confidence.py).
    want = {r.id: TABLE_TRUST if r.label is Label.TABLE else 1.0 for r in out.regions if r.text}
    assert {r.id: r.confidence for r in out.regions if r.text} == want
    assert TABLE_TRUST in want.values() and 1.0 in want.values()
    result = PageResult(
        document="d", page=1, width=1, height=1, engine="cpu", model="m", regions=out.regions
    )
    assert result.confidence is not None and TABLE_TRUST < result.confidence < 1.0
    assert not result.low_confidence
    weak = [Region(id="r0", label=Label.TEXT, native_label="t", text="abc", confidence=0.3)]
    low = PageResult(document="d", page=1, width=1, height=1, engine="c", model="m", regions=weak)
    assert low.low_confidence and "confidence" in low.model_dump()


def test_factory_builds_configured_engine():
    engine = build_engine(CpuOptions(text_layer="never", detect_tables=False))
    info = engine.describe()
    assert info["text_layer"] == "never" and info["detect_tables"] == "false"
    assert build_engine(CpuOptions()).describe()["text_layer"] == "auto"


def test_single_line_page_is_read(engine):
    """One line cropped from a real page (as a cropped invoice line): whatever the layout
    model calls it, the page's only content reaches the Markdown."""
    image, _ = _page("financial_statement.pdf")
    line = image.crop((150, 405, 1560, 462))  # the "Revenue $ 1,204 $ 1,087 $ 962" row
    out = next(iter(engine.run([PageRequest(key="line", image=line)])))
    assert out.error is None
    md = assemble_page(out.regions)
    assert "Revenue" in md and "1,204" in md and "962" in md


def test_layer_with_wrong_letters_is_refused_by_a_quick_ocr_sample(engine):
    """Glyphs mapped to the wrong letters (every letter shifted by one, as a broken font
    encoding does) pass the unmapped and ink checks; a quick Tesseract reading of three
    lines disagrees, so the page is read by OCR."""
    image, tl = _page("two_column_article.pdf")
    assert tl is not None
    shift = str.maketrans(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
        "bcdefghijklmnopqrstuvwxyzaBCDEFGHIJKLMNOPQRSTUVWXYZA",
    )
    wrong = [dataclasses.replace(w, text=w.text.translate(shift)) for w in tl.words]
    bad = dataclasses.replace(tl, words=tuple(wrong))
    assert judge(bad, image) is None  # mapped, inked: only the OCR sample can tell
    out = next(iter(engine.run([PageRequest(key="bad", image=image, text_layer=bad)])))
    trace = json.loads(out.raw)
    assert "disagrees" in trace["text_layer"] and trace["reader"] == "tesseract"
    assert "Reading Order" in assemble_page(out.regions)
    good = next(iter(engine.run([PageRequest(key="good", image=image, text_layer=tl)])))
    assert json.loads(good.raw)["reader"] == "text_layer"


def test_text_in_an_image_object_is_ocrd_beside_the_layer(engine, tmp_path):
    """A born-digital page with a picture of text pasted in (a scanned line as an image
    object): the layer gives the page's text, Tesseract reads only the picture."""
    fin, _ = _page("financial_statement.pdf")
    picture = fin.crop((150, 1300, 1300, 1380))  # "* Unaudited. Amounts are rounded ..."
    pdf = pdfium.PdfDocument.new()
    pdf.import_pages(pdfium.PdfDocument(DATA / "two_column_article.pdf"), [0])
    page = pdf[0]
    obj = pdfium.PdfImage.new(pdf)
    obj.set_bitmap(pdfium.PdfBitmap.from_pil(picture))
    w, h = picture.width * 72 / 200, picture.height * 72 / 200
    obj.set_matrix(pdfium.PdfMatrix().scale(w, h).translate(72, 792 - 600 - h))
    page.insert_obj(obj)
    page.gen_content()
    pdf.save(tmp_path / "pasted.pdf")
    tl = extract_pdf(tmp_path / "pasted.pdf", 1)
    assert tl is not None and len(tl.images) == 1
    image = pdfium.PdfDocument(tmp_path / "pasted.pdf")[0].render(scale=200 / 72).to_pil()
    out = next(iter(engine.run([PageRequest(key="p", image=image.convert("RGB"), text_layer=tl)])))
    ocr = [r for r in out.regions if r.source == "tesseract"]
    assert len(ocr) == 1 and "Amounts are rounded to the nearest million" in ocr[0].text
    assert sum(r.source == "text_layer" for r in out.regions) >= 10


def test_a_caption_line_a_table_box_swallowed_goes_back_to_the_caption(engine):
    """Census Table 324: the layout model's table box starts a line too high; the caption's
    last line ("could represent multiple arrests ... source]") stays in the caption instead
    of becoming the table's header row."""
    out = _run(engine, "census_12s0324.pdf")
    caption = next(r for r in out.regions if r.label is Label.CAPTION)
    table = next(r for r in out.regions if r.label is Label.TABLE)
    assert caption.text.rstrip().endswith("See text, this section and source]")
    assert "could represent multiple arrests" not in table.text
    assert caption.order < table.order
    assert caption.bbox is not None and table.bbox is not None
    assert table.bbox.y0 >= caption.bbox.y1 - 2  # the boxes no longer overlap by that line


def test_a_layer_in_a_script_the_checker_cannot_read_is_kept(engine):
    """The quick OCR check is Tesseract's English model: on a Japanese page it read nothing
    of the layer's words and refused a correct layer, and the OCR read kana as noise."""
    out = _run(engine, "cjk_layer_twotables.pdf")
    trace = json.loads(out.raw)
    assert trace["reader"] == "text_layer", trace["text_layer"]
    md = assemble_page(out.regions)
    assert "連結株主資本等変動計算書" in md and "5,664" in md
