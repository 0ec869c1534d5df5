"""Edit mode in a real browser: draw a box on the canvas with the mouse, save it as a
corrections layer, export it as COCO, and check its page_px coordinates."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.browser.test_compare_browser import use_store
from tests.ui.runs_seed import DOC, PAGE_SIZE, seed

pytestmark = pytest.mark.browser

CANVAS_WIDTH = 500  # page is 800 px wide: one canvas px = 1.6 page px


def test_draw_save_and_export_region(app_url: str, page: Any, tmp_path: Path, shots: Path) -> None:
    from playwright.sync_api import expect

    store = tmp_path / "store"
    run_id, _ = seed(store, pages=2, both=False)
    page.goto(app_url + "/runs")
    use_store(page, store)
    expect(page.get_by_text(f"{DOC} · page 1 · 800×1000 page_px")).to_be_visible()

    page.get_by_text("Edit mode").click()
    width = page.get_by_label("Canvas width (px)")
    width.fill(str(CANVAS_WIDTH))
    width.press("Enter")
    page.get_by_label("Label for new boxes").click()
    page.get_by_role("option", name="signature", exact=True).click()
    canvas = page.locator("canvas.upper-canvas")
    expect(canvas).to_have_attribute("width", str(CANVAS_WIDTH))
    page.wait_for_timeout(500)  # let the canvas settle after the remount
    canvas.evaluate("el => el.scrollIntoView({block: 'center'})")  # mouse must hit it on screen
    page.wait_for_timeout(300)
    box = canvas.bounding_box()
    assert box is not None and round(box["width"]) == CANVAS_WIDTH
    assert box["y"] >= 0 and box["y"] + 400 < page.viewport_size["height"]
    x0, y0, x1, y1 = 100, 300, 220, 370  # canvas px
    page.mouse.move(box["x"] + x0, box["y"] + y0)
    page.mouse.down()
    page.mouse.move(box["x"] + (x0 + x1) / 2, box["y"] + (y0 + y1) / 2, steps=5)
    page.mouse.move(box["x"] + x1, box["y"] + y1, steps=5)
    page.mouse.up()
    page.wait_for_timeout(1500)  # the canvas sends its drawing; the script reruns
    page.get_by_role("button", name="Save corrections").click()
    expect(page.get_by_text("Saved 8 region(s) to page-0001.corrected.json")).to_be_visible()
    page.screenshot(path=str(shots / "editor-drawn.png"), full_page=True)

    f = PAGE_SIZE[0] / CANVAS_WIDTH  # 1.6 both ways (625 px tall canvas)
    want = [x0 * f, y0 * f, x1 * f, y1 * f]
    saved = json.loads((store / run_id / "memo" / "page-0001.corrected.json").read_text())
    assert saved["coordinate_space"] == "page_px"
    new = [r for r in saved["regions"] if r["native_label"] == "hand"]
    assert len(new) == 1 and new[0]["label"] == "signature"
    assert new[0]["bbox"] == pytest.approx(want, abs=4)
    model = json.loads((store / run_id / "memo" / "page-0001.json").read_text())
    assert len(model["regions"]) == 7  # the model's layer is untouched

    page.get_by_text("Edit mode").click()  # back to the viewer; export this page as COCO
    page.get_by_role("tab", name="Export").click()
    page.get_by_text("This page").click()
    expect(page.get_by_text(f"{DOC} · page 1", exact=True)).to_be_visible()  # rerun done
    page.screenshot(path=str(shots / "export-before.png"))
    with page.expect_download() as info:
        page.locator(".st-key-exp_COCO button").click()
    coco = json.loads(Path(info.value.path()).read_text())
    assert coco["images"][0]["regions_source"] == "corrected"
    sig = next(c["id"] for c in coco["categories"] if c["name"] == "signature")
    anns = [a for a in coco["annotations"] if a["category_id"] == sig]
    assert len(anns) == 1
    x, y, w, h = anns[0]["bbox"]
    assert [x, y, x + w, y + h] == pytest.approx(want, abs=4)
    assert page.get_by_test_id("stException").count() == 0
    assert not page.js_errors
