"""Compare in a real browser: two runs side by side, one side's Next moves both."""

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
    expect(page.get_by_text(f"Run store: {store}")).to_be_visible()


def test_sides_follow_each_other(app_url: str, page: Any, tmp_path: Path, shots: Path) -> None:
    from playwright.sync_api import expect

    store = tmp_path / "store"
    seed(store, pages=3)
    page.goto(app_url + "/compare")
    use_store(page, store)
    captions = page.get_by_test_id("stImageCaption")
    expect(captions).to_have_text([f"A: {DOC} — page 1", f"B: {DOC} — page 1"])
    images = page.get_by_test_id("stImage").locator("img")
    before = [images.nth(i).get_attribute("src") for i in range(2)]
    expect(page.get_by_text("Disagreements on page 1: 2")).to_be_visible()

    page.locator(".st-key-cmp_next_A button").click()  # Next on side A only
    expect(captions).to_have_text([f"A: {DOC} — page 2", f"B: {DOC} — page 2"])
    expect(page.get_by_text("Text diff, page 2")).to_be_visible()
    after = [images.nth(i).get_attribute("src") for i in range(2)]
    assert after[0] != before[0] and after[1] != before[1]  # both pictures changed
    page.screenshot(path=str(shots / "compare-page2.png"), full_page=True)

    page.locator(".st-key-cmp_next_B button").click()  # and the other way round
    expect(captions).to_have_text([f"A: {DOC} — page 3", f"B: {DOC} — page 3"])
    expect(page.locator(".st-key-cmp_next_A button")).to_be_disabled()  # last page
    assert page.get_by_test_id("stException").count() == 0
    assert not page.js_errors
