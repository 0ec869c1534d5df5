"""Compare, Runs, Viewer and the sidebar as a new user sees them (issue 24), at 1400×1000 and
1100×800, on a seeded run store (real run folders) and the FakeEngine: Compare's two pages
start level and its word diff finds only the words that differ. Screenshots of each are
saved (``shots``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright")
from playwright.sync_api import expect

from tests.browser import app_state
from tests.browser.test_compare_browser import use_store
from tests.ui.runs_seed import seed

pytestmark = pytest.mark.browser

SIZES = [(1400, 1000), (1100, 800)]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_compare_runs_viewer_and_sidebar(
    fake_app_url: str, page: Any, tmp_path: Path, shots: Path, size: tuple[int, int]
) -> None:
    w = size[0]
    page.set_viewport_size({"width": size[0], "height": size[1]})
    store = tmp_path / "store"
    seed(store, pages=2)
    page.goto(fake_app_url + "/compare")
    use_store(page, store)
    pictures = page.locator(".wb-ov img")
    expect(pictures).to_have_count(2)
    app_state.idle(page)
    tops = [pictures.nth(i).bounding_box()["y"] for i in range(2)]
    assert abs(tops[0] - tops[1]) <= 2, tops  # the two pages start level
    page.screenshot(path=str(shots / f"i24-compare-{w}.png"))
    # The word diff: B rewords "Left" as "Leftmost" and drops the formula; no markup in it.
    diff = page.locator(".wb-diff")
    diff.scroll_into_view_if_needed()
    text = diff.inner_text()
    assert "Leftmost" in text and "<td" not in text and "|---" not in text, text
    page.screenshot(path=str(shots / f"i24-compare-diff-{w}.png"))
    # (The tables' cells are drawn on a canvas: their formatting is checked in AppTest,
    # tests/ui/compare/test_compare_apptest.py.)
    # Runs.
    page.goto(fake_app_url + "/runs")
    use_store(page, store)
    expect(page.get_by_test_id("stDataFrame").first).to_be_visible()
    app_state.idle(page)
    page.screenshot(path=str(shots / f"i24-runs-{w}.png"))
    # Viewer with a sample, the sidebar's CPU settings open.
    app_state.open_viewer(page, fake_app_url)
    page.get_by_role("button", name="latex-article-4p.pdf").click()
    expect(page.locator(".wb-box").first).to_be_visible()
    page.get_by_test_id("stSidebar").get_by_text("CPU engine settings").click()
    app_state.idle(page)
    page.screenshot(path=str(shots / f"i24-viewer-{w}.png"))
    assert page.js_errors == []
