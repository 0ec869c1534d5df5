"""The CPU reader's passes (workbench/engines/cpu/passes.py): one tuple of named passes, each
switchable off, each switch changing what that pass owns and nothing else on these pages; the
package has no file over 300 lines and no name prefix standing in for a folder."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from workbench.engines.cpu import passes
from workbench.engines.cpu.boxes import LayoutBox, Line, Word
from workbench.engines.cpu.compose import compose
from workbench.engines.cpu.page import Block
from workbench.schema import Label, Region

PACKAGE = Path(passes.__file__).parent


def _line(text: str, box: tuple[float, float, float, float], conf: float = 95.0) -> Line:
    return Line(text, box, conf, "tesseract", [Word(text, box, conf)])


def _body(n: int = 8, y: float = 300.0) -> list[Line]:
    text = "plain running text line {} of the page."
    return [_line(text.format(k), (100, y + 30 * k, 900, y + 20 + 30 * k)) for k in range(n)]


Off = tuple[str, ...]
Case = tuple[Callable[[Off], list[Region]], Callable[[list[Region]], bool]]


def _page_number(off: Off = ()) -> list[Region]:
    return compose(1000, 2000, [], [*_body(), _line("7", (490, 1960, 510, 1980))], off=off)


def _texty_figure(off: Off = ()) -> list[Region]:
    lines = [_line(f"field {i}:", (20, 30 + 60 * i, 400, 50 + 60 * i)) for i in range(14)]
    return compose(1000, 1000, [LayoutBox("figure", (0, 0, 1000, 1000), 0.9)], lines, off=off)


def _ocr_formula(off: Off = ()) -> list[Region]:
    ocr = [Line("s(7) = —161% + 5601", (100, 100, 500, 140), 60.0, "tesseract")]
    return compose(800, 1000, [LayoutBox("equation", (90, 90, 510, 150), 0.9)], ocr, off=off)


def _title(off: Off = ()) -> list[Region]:
    off = (*off, "headings")  # which would claim the big line by its type first
    lines = [_line("Big Title", (60, 45, 900, 110)), *_body()]
    return compose(1000, 2000, [LayoutBox("title", (50, 40, 950, 115), 0.9)], lines, off=off)


def _short_box(off: Off = ()) -> list[Region]:
    lines = [_line("1 Foo and more", (60, 300, 400, 330)), *_body(y=400)]
    return compose(1000, 2000, [LayoutBox("text", (100, 300, 400, 330), 0.9)], lines, off=off)


def _signature(off: Off = ()) -> list[Region]:
    return compose(1000, 2000, [], _body(), signatures=[(100.0, 800.0, 400.0, 880.0)], off=off)


def _bullets(off: Off = ()) -> list[Region]:
    items = [_line(f"• item {k}", (100, 300 + 30 * k, 400, 320 + 30 * k)) for k in range(3)]
    return compose(1000, 2000, [], items, off=off)


def _only_furniture(off: Off = ()) -> list[Region]:
    return compose(1000, 2000, [], [_line("7", (490, 1960, 510, 1980))], off=off)


def _labels(regions: list[Region]) -> list[Label]:
    return [r.label for r in regions]


#: pass name → (a page, a property that holds with every pass and fails with this one off)
CASES: dict[str, Case] = {
    "page_numbers": (_page_number, lambda rs: Label.PAGE_NUMBER in _labels(rs)),
    "text_figures": (_texty_figure, lambda rs: Label.FIGURE not in _labels(rs)),
    "ocr_formulas": (_ocr_formula, lambda rs: _labels(rs) == [Label.FIGURE] and not rs[0].text),
    "title": (_title, lambda rs: rs[0].label is Label.TITLE and rs[0].native_label == "title"),
    "grow_boxes": (_short_box, lambda rs: any(r.bbox and r.bbox.x0 == 60 for r in rs)),
    "signature_boxes": (_signature, lambda rs: Label.SIGNATURE in _labels(rs)),
    "lists": (_bullets, lambda rs: _labels(rs) == [Label.LIST]),
    "furniture_only_page": (_only_furniture, lambda rs: _labels(rs) == [Label.TEXT]),
}  # fmt: skip


def test_passes_are_one_tuple_of_unique_names():
    assert isinstance(passes.PASSES, tuple)
    assert len(set(passes.NAMES)) == len(passes.NAMES) == len(passes.PASSES)
    assert set(passes.NAMES) >= passes.FRAME


def test_an_unknown_pass_is_refused():
    with pytest.raises(ValueError, match="no such CPU pass: nope"):
        compose(1000, 1000, [], _body(), off={"nope"})


@pytest.mark.parametrize("name", sorted(CASES))
def test_switching_a_pass_off_undoes_what_it_owns(name: str):
    page, holds = CASES[name]
    assert holds(page(()))
    assert not holds(page((name,)))


def test_a_block_reports_its_reader_and_confidence_from_printed_lines():
    a = Line("abcd", (0, 0, 10, 10), 90.0, "tesseract")
    b = Line("xy", (0, 20, 10, 30), 60.0, "rapidocr")
    block = Block("text", (0, 0, 10, 30), [a, b], 0.9)
    assert block.reader == "tesseract" and block.confidence == 0.8
    block.crop = True  # shown as an image: prints nothing, so no reader and no confidence
    assert block.reader is None and block.confidence is None


def test_no_module_over_300_lines_and_no_prefix_for_a_folder():
    for path in PACKAGE.rglob("*.py"):
        assert len(path.read_text(encoding="utf-8").splitlines()) <= 300, path
    for folder in [PACKAGE, *(p for p in PACKAGE.rglob("*") if p.is_dir())]:
        prefixes = Counter(
            p.stem.split("_")[0] for p in folder.glob("*.py") if "_" in p.stem.strip("_")
        )
        assert all(n == 1 for n in prefixes.values()), (folder, prefixes)


@pytest.mark.slow
def test_the_engine_switches_passes_off_by_name_and_says_so():
    from workbench.engines.cpu import get_cpu_engine

    engine = get_cpu_engine()
    assert "passes_off" not in engine.describe()
    quiet = engine.without("page_numbers", "lists")
    assert quiet.describe()["passes_off"] == "lists,page_numbers"
    assert quiet.tess is engine.tess and engine.passes_off == frozenset()  # models shared
    with pytest.raises(ValueError, match="no such CPU pass: nope"):
        engine.without("nope")
