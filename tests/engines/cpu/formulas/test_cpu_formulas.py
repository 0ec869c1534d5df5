"""Display formulas on the text-layer path (issue 12 item 7): TeX from glyph geometry on real
born-digital pages, prose kept out of formulas, an image crop when the geometry confuses."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from workbench.documents.textlayer import extract_pdf
from workbench.engines.cpu import markdown as text
from workbench.engines.cpu.boxes import Line
from workbench.engines.cpu.formulas import find as formulas
from workbench.engines.cpu.formulas.atoms import _atom
from workbench.engines.cpu.formulas.blocks import split_blocks
from workbench.engines.cpu.formulas.tex import Confused, row_tex, sound
from workbench.engines.cpu.page import Block
from workbench.engines.cpu.readers import pdftext

DATA = Path(__file__).resolve().parents[3] / "data"


def _lines(name: str, page: int = 1, dpi: int = 200) -> list[Line]:
    layer = extract_pdf(DATA / name, page)
    assert layer is not None
    w, h = round(layer.width * dpi / 72), round(layer.height * dpi / 72)
    return pdftext.lines_from_layer(layer, w, h)


def _display(lines: list[Line]) -> list[Line]:
    return [ln for ln in lines if ln.display]


def test_constructed_page_scripts_fraction_and_sum_with_limits():
    lines = _lines("born_digital_formulas.pdf")
    tex = [ln.tex for ln in _display(lines)]
    assert tex == [
        "e^{i\\pi} + 1 = 0",  # raised smaller glyphs, π from the Symbol font
        "x = \\frac{a + b}{2c}",  # numerator over a ruled bar over the denominator
        "S = \\sum_{i = 1}^{n}i^{2}",  # limits above and below the sign
    ]
    assert all(sound(t or "") for t in tex)


def test_constructed_page_prose_and_other_column_stay_out():
    lines = _lines("born_digital_formulas.pdf")
    shown = _display(lines)
    for ln in shown:
        assert not re.search(r"[a-z]{3,}", ln.text), ln.text  # no prose word in a formula
    euler, fraction = shown[0], shown[1]
    # level with each other, one per column: the left formula ends before the right column
    assert euler.box[2] < fraction.box[0]
    assert abs(euler.box[1] - fraction.box[1]) < 40
    prose = " ".join(ln.text for ln in lines if not ln.display)
    for words in ("principal branch", "centred on the bar", "as Archimedes knew"):
        assert words in prose


def test_sentence_math_wrapped_onto_its_own_line_stays_inline_text():
    """ "... the speed given by" / "v(t) = 3t² + 1." at the paragraph's margin and leading:
    the sentence goes on, so the math stays in the text (a display stands apart)."""
    lines = _lines("born_digital_formulas.pdf")
    wrapped = [ln for ln in lines if ln.text.startswith("v(t)")]
    assert len(wrapped) == 1
    assert not wrapped[0].display and wrapped[0].text == "v(t) = 3t² + 1."


def test_two_column_article_formula_exact_and_number_apart():
    shown = _display(_lines("two_column_article.pdf"))
    assert [ln.tex for ln in shown] == ["s(t) = -16t^{2} + 560t"]
    assert "(1)" not in shown[0].text  # the equation number is text at the column's edge


@pytest.mark.parametrize(
    ("name", "page"),
    [("superscript_pdftex.pdf", 1), ("pdflatex_outline.pdf", 2), ("latex_subfig_captions.pdf", 1)],
)
def test_real_latex_prose_pages_have_no_display_formula(name, page):
    """Inline math in a sentence ("x² = 9 means x ∈ {3, −3}") stays in its line."""
    lines = _lines(name, page)
    assert _display(lines) == []
    if name.startswith("superscript"):
        assert any("x² = 9" in ln.text for ln in lines)


def test_engine_markdown_typesets_the_formulas_and_crops_none():
    from workbench.engines.cpu.compose import compose

    lines = _lines("born_digital_formulas.pdf")
    regions = compose(1700, 2200, [], lines)
    maths = [r.text for r in regions if r.label.value == "formula"]
    assert "$$\ne^{i\\pi} + 1 = 0\n$$" in maths
    assert "$$\nx = \\frac{a + b}{2c}\n$$" in maths
    prose = [r.text for r in regions if r.label.value == "text"]
    assert not any("$$" in t for t in prose)


def _row(*glyphs: tuple[str, tuple[float, float, float, float], float, str]):
    return [_atom(ch, box, size, style) for ch, box, size, style in glyphs]


def test_stacked_full_size_atoms_no_rule_explains_are_confused():
    # "a" over "b" at full size with no bar between them: no TeX is sound, so none is made
    atoms = _row(
        ("x", (0, 20, 10, 34), 14, "i"),
        ("=", (12, 20, 22, 34), 14, ""),
        ("a", (24, 4, 34, 18), 14, "i"),
        ("b", (24, 36, 34, 50), 14, "i"),
    )
    with pytest.raises(Confused):
        row_tex(atoms, [])


def test_confused_formula_becomes_an_image_crop_block():
    ln = Line("a ? b", (10, 10, 90, 40), 100.0, "text_layer", display=True, tex=None)
    prose = Line("Some words here.", (10, 50, 200, 70), 100.0, "text_layer")
    out = split_blocks([Block("text", (0, 0, 300, 80), [ln, prose], 0.9)])
    assert [(b.native, len(b.lines)) for b in out] == [("figure", 0), ("text", 1)]


def test_sound_tex_checks():
    assert sound("\\left[\\sum_{i=1}^{k} x_{i} \\right]")
    assert not sound("\\sum ζ^{ψ(gs)} n")  # not ASCII
    assert not sound("n # .")  # stray specials
    assert not sound("x^{2")  # unbalanced
    assert not sound("\\left( x")
    with pytest.raises(Confused):
        _atom('"', (0, 0, 1, 1), 10, "")  # no TeX for a quote (a CMEX code in a text font)


def test_math_alphanumerics_and_accents():
    assert [_atom(ch, (0, 0, 1, 1), 10, "").tex for ch in "𝑥𝐄𝔽ℝ𝛼û"] == [
        "x", "\\mathbf{E}", "\\mathbb{F}", "\\mathbb{R}", "\\alpha", "\\hat{u}",
    ]  # fmt: skip
    atoms = _row(
        ("x", (0, 10, 8, 24), 14, "i"),
        ("=", (10, 10, 20, 24), 14, ""),
        ("u", (22, 10, 30, 24), 14, "i"),
        ("ˆ", (23, 6, 29, 20), 14, ""),  # TeX's \hat: the accent glyph on a raised baseline
    )
    assert row_tex(atoms, []) == "x = \\hat{u}"


def test_tex_symbol_font_codes_without_unicode():
    """CMSY drawn without a Unicode map: PDFium reports its codes ("7" the maps-to bar, "6"
    the negation slash, "k" the double bar); they become TeX, in the order TeX means."""
    maps = _row(
        ("z", (0, 10, 8, 24), 14, "im"),
        ("7", (11, 12, 13, 22), 14, "ims"),
        ("→", (11, 12, 25, 22), 14, "ims"),
        ("y", (28, 10, 36, 24), 14, "im"),
    )
    assert row_tex(maps, []) == "z \\mapsto y"
    neq = _row(
        ("a", (0, 10, 8, 24), 14, "im"),
        ("=", (11, 12, 21, 22), 14, ""),
        ("6", (13, 10, 19, 24), 14, "ims"),  # the slash starts right of the "=" it crosses
        ("b", (24, 10, 32, 24), 14, "im"),
    )
    assert row_tex(neq, []) == "a \\not= b"
    norm = _row(
        ("k", (0, 10, 4, 24), 14, "ims"),
        ("x", (5, 10, 13, 24), 14, "im"),
        ("k", (14, 10, 18, 24), 14, "ims"),
    )
    assert row_tex(norm, []) == "\\|x\\|"


def test_list_item_with_math_is_text_and_a_figure_keeps_its_labels():
    from workbench.schema import TextWord

    def run(*words: tuple[str, float]) -> list:
        return [(TextWord(t, (x, 100, x + 10, 114), 12.0, style="im"), (x, 100, x + 10, 114))
                for t, x in words]  # fmt: skip

    keep, found = formulas.find([run(("•", 10), ("x", 30), ("=", 42), ("1", 54))], [], 1, 1)
    assert keep == [0] and found == []  # a bulleted item's math is inline in its text
    label = Line("R^n", (500, 500, 540, 520), 100.0, "text_layer", display=True, tex="R^{n}")
    out = split_blocks([Block("figure", (0, 0, 800, 800), [label], 0.9)])
    assert out == [Block("figure", (0, 0, 800, 800), [label], 0.9)]


def test_inline_math_plain_text_cannot_say_becomes_tex_in_the_sentence():
    from workbench.engines.cpu.compose import compose

    lines = _lines("born_digital_formulas.pdf")
    entry = [ln for ln in lines if ln.text.startswith("Each entry")]
    assert len(entry) == 1 and not entry[0].display
    regions = compose(1700, 2200, [], lines)
    texts = "\n".join(r.text for r in regions)
    assert "Each entry $a_{ij}$ of the matrix is summed once." in texts  # not "a\_(ij)"
    # what Unicode can say stays plain: pdfTeX's "x² = 9 means x ∈ {3, −3}"
    tex_lines = [ln.text for ln in _lines("superscript_pdftex.pdf")]
    assert any("x² = 9" in t for t in tex_lines)
    assert not any(text.MATH_OPEN in t for t in tex_lines)


def test_escape_keeps_inline_tex_and_escapes_around_it():
    raw = f"cost $5 for {text.MATH_OPEN}x_{{i}} * y{text.MATH_CLOSE} *each*"
    assert text.escape(raw) == "cost \\$5 for $x_{i} * y$ \\*each\\*"
    assert text.escape(f"{text.MATH_OPEN}a^{{2}}{text.MATH_CLOSE} # 1") == "$a^{2}$ # 1"


def test_double_scripts_are_unsound():
    assert not sound("\\sum_{k}^{n}_{=1} a")  # KaTeX: "Double subscript"
    assert not sound("x_{a}_{b}")
    assert sound("x_{a}^{b} + {x_{a}}_{b}")


def test_inline_tex_markers_never_reach_html_cells_or_display_formulas():
    from workbench.engines.cpu.tables.render import _cell_html

    cell = f"a {text.MATH_OPEN}x_{{i}}{text.MATH_CLOSE}"
    assert _cell_html(cell) == "a x_{i}"
    assert text.formula_markdown([f"{text.MATH_OPEN}x_{{i}}{text.MATH_CLOSE} = 1"]) == (
        "$$\nx_{i} = 1\n$$"
    )
