"""Compare polish (issue 13), in Chromium at 1400×1000 and 1100×900, on run stores seeded with
real runs (FakeEngine and DisagreeingEngine through the pipeline and the run writer, see
tests/ui/runs_seed.py): run pickers say document, engine/model, date, pages and status and
tell two look-alike runs apart; label pills count each side; similarity sits between the
sides; a one-page document gets bars instead of empty lines; "Start the missing run" offers
the CPU engine's settings. Screenshots are saved (``shots``).
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright")
from playwright.sync_api import expect

from tests.browser.test_compare_browser import use_store
from tests.fakes.fake_engine import FakeEngine
from tests.ui.runs_seed import DOC, DisagreeingEngine, make_run, seed
from workbench.engines.factory import CpuOptions
from workbench.runs.store import RunStore

pytestmark = pytest.mark.browser

SIZES = [(1400, 1000), (1100, 900)]


def _open(page: Any, app_url: str, store: Path, size: tuple[int, int]) -> None:
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.goto(app_url + "/compare")
    use_store(page, store)
    expect(page.locator(".wb-ov img")).to_have_count(2)


def _picker(page: Any, name: str) -> Any:
    """The text field of the selectbox labelled ``name`` (it shows the picked option)."""
    return page.get_by_role("combobox", name=name)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_pickers_pills_and_similarity(
    app_url: str, page: Any, tmp_path: Path, shots: Path, size: tuple[int, int]
) -> None:
    store = tmp_path / "store"
    seed(store, pages=1)
    _open(page, app_url, store, size)

    label_a = _picker(page, "Run A").input_value()
    label_b = _picker(page, "Run B (same document)").input_value()
    for label in (label_a, label_b):
        assert label.startswith(DOC), label  # the document first, not a truncated engine
        assert " · 1 p · done" in label, label
        assert "/fake-layout-" in label, label
        assert re.search(r" · \d\d \w{3} \d{4} \d\d:\d\d · ", label), label  # the date
    if size[0] >= 1400:  # the whole label shows at 1400 px
        for name in ("Run A", "Run B (same document)"):
            field = _picker(page, name)
            assert field.evaluate("(e) => e.scrollWidth <= e.clientWidth + 1"), name
    # The full facts (whole model name, run id) are in the caption under each picker.
    captions = page.get_by_test_id("stCaptionContainer")
    expect(captions.filter(has_text=re.compile(r"run \d{8}-\d{6}-"))).to_have_count(2)

    # Pills count each side: FakeEngine finds a table where DisagreeingEngine sees a figure.
    pills = page.get_by_test_id("stButtonGroup").filter(has_text="text · A")
    expect(pills).to_contain_text("text · A 2 / B 2")

    def tables_figures(label: str) -> tuple[int, int]:
        return (1, 0) if "fake-layout-1" in label else (0, 1)

    (ta, fa), (tb, fb) = tables_figures(label_a), tables_figures(label_b)
    for name, a, b in (("table", ta, tb), ("figure", fa, fb)):
        if a + b:
            expect(pills).to_contain_text(f"{name} · A {a} / B {b}")
        else:
            expect(pills).not_to_contain_text(f"{name} ·")

    # Similarity A↔B is one value between the two sides, not one per side.
    between = page.get_by_test_id("wb-between")
    expect(between).to_contain_text("text similarity")
    expect(between).to_contain_text("layout agreement")
    sides = page.locator(".wb-ov")
    a_box, b_box = sides.nth(0).bounding_box(), sides.nth(1).bounding_box()
    mid = (a_box["x"] + a_box["width"] + b_box["x"]) / 2
    bb = between.bounding_box()
    assert abs(bb["x"] + bb["width"] / 2 - mid) < 40, (bb, a_box, b_box)
    assert bb["y"] + bb["height"] <= min(a_box["y"], b_box["y"])
    page.screenshot(path=str(shots / f"polish-compare-top-{size[0]}.png"))

    # One page: bars per side instead of lines through one point.
    heading = page.get_by_text("Page 1, side by side")
    heading.scroll_into_view_if_needed()
    expect(heading).to_be_visible()
    expect(page.get_by_text("Across pages")).to_have_count(0)
    # The seeded runs took no measurable time: no empty chart, a sentence instead.
    expect(page.get_by_text("Seconds for page 1: not measured on either side.")).to_be_visible()
    expect(page.get_by_text("Similarity A↔B:")).to_be_visible()
    page.screenshot(path=str(shots / f"polish-compare-one-page-{size[0]}.png"))

    # A second identical pair (same engines, document, minute, names): still told apart.
    seed(store, pages=1)
    page.reload()
    use_store(page, store)
    _picker(page, "Run A").click()
    expect(page.get_by_role("option")).to_have_count(4)
    texts = page.get_by_role("option").all_inner_texts()
    page.keyboard.press("Escape")
    assert len(set(texts)) == len(RunStore(store).list()) == 4, texts
    assert page.get_by_test_id("stException").count() == 0
    assert not page.js_errors


def test_many_pages_get_lines_and_missing_run_offers_cpu_settings(
    app_url: str, page: Any, tmp_path: Path, shots: Path
) -> None:
    store = tmp_path / "store"
    seed(store, pages=3)
    _open(page, app_url, store, SIZES[0])
    expect(page.get_by_text("Across pages")).to_be_visible()
    expect(page.get_by_text("Seconds per page, by page")).to_be_visible()

    page.get_by_text("Start the missing run").click()
    engine = page.get_by_role("combobox", name="Engine for run B")
    expect(engine).to_be_visible()
    if "Embedded CPU engine" not in engine.input_value():
        engine.click()
        page.get_by_role("option", name="Embedded CPU engine").click()
    # One widget per CpuOptions field (the CPU engine's own settings contract).
    fields = [f.name for f in dataclasses.fields(CpuOptions) if f.name != "kind"]
    assert fields, "CpuOptions has settings"
    for name in fields:
        expect(page.locator(f".st-key-cmp_new_cpu_{name}")).to_be_visible()
    page.locator(".st-key-cmp_new_cpu_" + fields[0]).scroll_into_view_if_needed()
    page.screenshot(path=str(shots / "polish-compare-missing-run-cpu.png"))
    assert page.get_by_test_id("stException").count() == 0
    assert not page.js_errors


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_one_page_with_timings_gets_bars_per_side(
    app_url: str, page: Any, tmp_path: Path, shots: Path, size: tuple[int, int]
) -> None:
    store = RunStore(tmp_path / "store")
    make_run(store, FakeEngine(delay=0.05), "memo A", pages=1)
    make_run(store, DisagreeingEngine(delay=0.2), "memo B", pages=1)
    _open(page, app_url, tmp_path / "store", size)
    heading = page.get_by_text("Page 1, side by side")
    heading.scroll_into_view_if_needed()
    caption = page.get_by_text("Seconds for page 1, each side")
    expect(caption).to_be_visible()
    # The bar chart sits in the same column as its caption.
    column = page.get_by_test_id("stColumn").filter(has=caption).last
    expect(column.get_by_test_id("stVegaLiteChart")).to_have_count(1)
    expect(page.get_by_text("Across pages")).to_have_count(0)
    caption.scroll_into_view_if_needed()
    page.screenshot(path=str(shots / f"polish-compare-one-page-bars-{size[0]}.png"))
    assert page.get_by_test_id("stException").count() == 0
    assert not page.js_errors
