"""What a new user sees (issue 24.3, 24.5), in Chromium at the two sizes the issue names.

* The sidebar's "CPU engine settings" are usable: every control at least 150 px wide, labels
  on one line, the DPI shown as 200 (not "2").
* Tag-like text on a real page, tests/data/financial_statement.pdf ("(see Note #5 and
  <Segment Information>)"), is shown whole in the Viewer's rendered Markdown (real CPU engine).
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright")
from playwright.sync_api import expect

from tests.browser import app_state

pytestmark = pytest.mark.browser

DATA = Path(__file__).resolve().parents[2] / "tests" / "data"
SIZES = [(1400, 1000), (1100, 800)]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_sidebar_cpu_settings_are_usable(
    fake_app_url: str, page: Any, shots: Path, size: tuple[int, int]
) -> None:
    page.set_viewport_size({"width": size[0], "height": size[1]})
    app_state.open_viewer(page, fake_app_url)
    sidebar = page.get_by_test_id("stSidebar")
    sidebar.get_by_text("CPU engine settings").click()
    dpi = sidebar.get_by_role("spinbutton", name="dpi")
    expect(dpi).to_be_visible()
    expect(dpi).to_have_value("200")
    # The number is whole in its box, not cut to its first digit.
    assert dpi.evaluate("(e) => e.scrollWidth <= e.clientWidth + 1")
    widgets = sidebar.locator(
        '[class*="st-key-sb_cpu_"]:not([class*="st-key-sb_cpu_"] [class*="st-key-sb_cpu_"])'
    )
    assert widgets.count() >= 4
    for i in range(widgets.count()):
        box = widgets.nth(i).bounding_box()
        is_switch = widgets.nth(i).locator('input[type="checkbox"]').count() > 0
        assert box is not None and (is_switch or box["width"] >= 150), (i, box)
        label = widgets.nth(i).locator("label").first
        height = label.evaluate("(e) => e.getBoundingClientRect().height")
        assert height < 40, (i, height)  # one line, not a letter per line
    sidebar.screenshot(path=str(shots / f"sidebar-cpu-settings-{size[0]}.png"))


@pytest.mark.slow
def test_tag_like_text_is_shown_in_the_viewer(app_url: str, page: Any, shots: Path) -> None:
    page.set_viewport_size({"width": 1400, "height": 1000})
    app_state.open_viewer(page, app_url)
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(
        [DATA / "financial_statement.pdf"]
    )
    blocks = page.locator('[class*="st-key-wbblk-0-"]')
    expect(blocks.first).to_be_visible(timeout=180_000)
    expect(blocks.filter(has_text="(see Note #5 and <Segment Information>)")).to_have_count(1)
    page.screenshot(path=str(shots / "viewer-tag-like-text.png"), full_page=True)
    # The run's HTML, ZIP and COCO are downloads in the Viewer too, and keep the words.
    with page.expect_download() as html_dl:
        page.get_by_role("button", name="Document HTML").click()
    assert html_dl.value.suggested_filename.endswith(".html")
    assert "&lt;Segment Information&gt;" in Path(html_dl.value.path()).read_text()
    with page.expect_download() as zip_dl:
        page.get_by_role("button", name="Document ZIP").click()
    assert zipfile.is_zipfile(zip_dl.value.path())
    with page.expect_download() as coco_dl:
        page.get_by_role("button", name="Document COCO").click()
    coco = json.loads(Path(coco_dl.value.path()).read_text())
    assert coco["images"] and coco["annotations"]
    assert page.js_errors == []
