"""Compare in a real browser: two runs side by side in the interactive overlay, one side's
Next moves both, disagreements are outlined, a selection on one side selects its partner."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.ui.runs_seed import DOC, seed

pytestmark = pytest.mark.browser


def use_store(page: Any, store: Path) -> None:
    """Point this browser session at ``store`` through the page's own store setting."""
    from playwright.sync_api import expect

    page.get_by_text("Run store:").click()
    field = page.get_by_label("Store folder (on the server)")
    field.fill(str(store))
    field.press("Enter")
    page.get_by_role("button", name="Use this folder").click()
    # The first run of a page on a cold server (imports, the store read) can pass 5 s on a
    # loaded 2-core CI box: seen once in a full run, never alone.
    expect(page.get_by_text(f"Run store: {store}")).to_be_visible(timeout=30_000)


def test_sides_follow_each_other(app_url: str, page: Any, tmp_path: Path, shots: Path) -> None:
    from playwright.sync_api import expect

    store = tmp_path / "store"
    seed(store, pages=3)
    page.goto(app_url + "/compare")
    use_store(page, store)
    pictures = page.locator(".wb-ov img")
    expect(pictures).to_have_count(2)

    def alts() -> list[str | None]:
        return [pictures.nth(i).get_attribute("alt") for i in range(2)]

    expect(pictures.first).to_have_attribute("alt", f"A: {DOC} — page 1")
    assert alts() == [f"A: {DOC} — page 1", f"B: {DOC} — page 1"]
    before = [pictures.nth(i).get_attribute("src") for i in range(2)]
    expect(page.get_by_text("Disagreements on page 1: 2")).to_be_visible()
    # Disagreements are outlined on the boxes: one-side-only dashed, other-label solid.
    sides = page.locator(".wb-ov")
    marked_a, marked_b = (
        sides.nth(0).locator(".wb-box.marked"),
        sides.nth(1).locator(".wb-box.marked"),
    )
    expect(marked_b).to_have_count(2)  # run B (the original) has the formula A dropped
    expect(marked_a).to_have_count(1)
    dashed = sides.nth(1).locator('.wb-box.marked[data-label="formula"]')
    expect(dashed).to_have_css("outline-style", "dashed")
    expect(sides.nth(1).locator('.wb-box.marked[data-label="table"]')).to_have_css(
        "outline-style", "solid"
    )
    # Tags stay hidden until pointed at: they never cover the page's text.
    assert sides.nth(0).locator(".wb-tag").first.is_hidden()
    page.screenshot(path=str(shots / "compare-page1.png"), full_page=True)

    # Select A's figure: B's matched table is selected too.
    sides.nth(0).locator('.wb-box[data-label="figure"]').click()
    expect(sides.nth(1).locator('.wb-box.sel[data-label="table"]')).to_have_count(1)
    expect(sides.nth(0).locator('.wb-box.sel[data-label="figure"]')).to_have_count(1)

    page.locator(".st-key-cmp_next_A button").click()  # Next on side A only
    expect(pictures.first).to_have_attribute("alt", f"A: {DOC} — page 2")
    expect(pictures.nth(1)).to_have_attribute("alt", f"B: {DOC} — page 2")
    expect(page.get_by_text("Text diff, page 2")).to_be_visible()
    after = [pictures.nth(i).get_attribute("src") for i in range(2)]
    assert after[0] != before[0] and after[1] != before[1]  # both pictures changed
    page.screenshot(path=str(shots / "compare-page2.png"), full_page=True)

    page.locator(".st-key-cmp_next_B button").click()  # and the other way round
    expect(pictures.first).to_have_attribute("alt", f"A: {DOC} — page 3")
    expect(pictures.nth(1)).to_have_attribute("alt", f"B: {DOC} — page 3")
    expect(page.locator(".st-key-cmp_next_A button")).to_be_disabled()  # last page
    assert page.get_by_test_id("stException").count() == 0
    assert not page.js_errors
