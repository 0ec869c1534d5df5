"""Compare's page picker counts the pages of the pair on screen (found while looking at issue
24's screenshots): after Run A changed from a one-page document to a two-page one, the picker
still read "1 of 1" (the browser kept the text of the old option) while Next went to page 2."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright")
from playwright.sync_api import expect

from tests.browser import app_state
from tests.browser.test_compare_browser import use_store
from tests.fakes.fake_engine import FakeEngine
from tests.ui.runs_seed import DisagreeingEngine, make_run, seed
from workbench.runs.store import RunStore

pytestmark = pytest.mark.browser


def test_the_page_picker_counts_the_pages_of_the_runs_shown(
    fake_app_url: str, page: Any, tmp_path: Path
) -> None:
    store = tmp_path / "store"
    seed(store, pages=2)  # a two-page pair, then a newer one-page pair (run A by default)
    make_run(RunStore(store), FakeEngine(), "one page A", pages=1)
    make_run(RunStore(store), DisagreeingEngine(), "one page B", pages=1)
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(fake_app_url + "/compare")
    use_store(page, store)
    expect(page.locator(".wb-ov img")).to_have_count(2)
    picker = page.get_by_test_id("stSelectbox").filter(has_text="Page")

    def shown() -> str:  # the picker's label and the text in its box, as a person reads them
        return f"{picker.inner_text()} {picker.get_by_role('combobox').input_value()}"

    app_state.idle(page)
    assert "of 1" in shown() and "of 2" not in shown(), shown()
    run_a = page.get_by_role("combobox", name="Run A")
    two_pages = re.compile(r" · 2 p · done")  # either run of the two-page pair
    # The option is clicked, not typed: typed keys reached a box the rerun was replacing and
    # the choice was lost (seen in CI), and a click on a listed option is what a person does.
    run_a.click()
    page.get_by_role("option", name=two_pages).first.click()
    expect(run_a).to_have_value(two_pages)
    expect(page.locator(".wb-ov img")).to_have_count(2)
    app_state.idle(page)
    # Waited for, not read at once: the images were on screen before the rerun, and on a
    # loaded machine the rerun can still be on its way when the app looks idle (seen in CI).
    expect(picker).to_contain_text("of 2", timeout=30_000)
    assert "of 2" in shown() and "of 1" not in shown(), shown()
    assert page.js_errors == []
