"""The Runs page shows and acts on one run (issue 24.2): after Delete, the run picker names the
run whose pages and export are shown, never the deleted one. The real app in Chromium on a
seeded run store (real run folders written by the run writer)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright")
from playwright.sync_api import expect

from tests.browser import app_state
from tests.browser.test_compare_browser import use_store
from tests.ui.runs_seed import seed
from workbench.runs.store import RunStore

pytestmark = pytest.mark.browser


def test_after_delete_the_picker_names_the_run_shown(
    fake_app_url: str, page: Any, tmp_path: Path, shots: Path
) -> None:
    page.set_viewport_size({"width": 1400, "height": 1000})
    store = tmp_path / "store"
    a, b = seed(store, pages=2)
    assert b is not None
    page.goto(fake_app_url + "/runs")
    use_store(page, store)
    picker = page.get_by_role("combobox", name="Run")
    # Pick the older run, A, then delete it.
    picker.click()
    page.get_by_role("option", name=re.compile(re.escape(a))).click()
    app_state.idle(page)
    expect(picker).to_have_value(re.compile(re.escape(a)))
    page.get_by_role("button", name="Delete").click()
    page.get_by_role("button", name="Yes, delete it").click()
    app_state.idle(page)
    expect(page.get_by_test_id("stDataFrame").first).to_be_visible()
    # The picker, the view and the export all name run B. Waited for before the store is
    # read: under CI's load the app looked idle before the delete's rerun had begun.
    expect(picker).to_have_value(re.compile(re.escape(b)))
    assert [r.id for r in RunStore(store).list()] == [b]
    expect(page.get_by_text(re.compile(r"fake-b/fake-layout-2")).first).to_be_visible()
    page.get_by_role("tab", name="Export").click()
    with page.expect_download() as dl:
        page.get_by_role("button", name="Markdown").click()
    # Run B's engine rewords the left column ("Leftmost"); run A's Markdown has no such word.
    assert "Leftmost" in Path(dl.value.path()).read_text()
    page.screenshot(path=str(shots / "runs-after-delete.png"))
    assert page.get_by_test_id("stException").count() == 0


def test_compare_with_opens_compare_on_the_run_shown(
    fake_app_url: str, page: Any, tmp_path: Path
) -> None:
    """Runs → "Compare with…" goes to Compare with the run shown as Run A (the page is found
    from ``workbench/ui/runs/view.py``'s place in the repository)."""
    page.set_viewport_size({"width": 1400, "height": 1000})
    store = tmp_path / "store"
    a, _ = seed(store, pages=2)
    page.goto(fake_app_url + "/runs")
    use_store(page, store)
    picker = page.get_by_role("combobox", name="Run")
    picker.click()
    page.get_by_role("option", name=re.compile(re.escape(a))).click()
    expect(picker).to_have_value(re.compile(re.escape(a)))
    app_state.idle(page)
    page.get_by_role("button", name="Compare with…").click()
    expect(page.get_by_role("heading", name="Compare runs")).to_be_visible()
    expect(page).to_have_url(re.compile(r"/compare(\?.*)?$"))
    expect(page.get_by_text(f"run {a}")).to_be_visible()
    assert page.get_by_test_id("stException").count() == 0
