"""The Viewer keeps the user's documents (issue 30.1): two PDFs dropped, Compare opened, the
Viewer opened again: both files and their pages are still there, at the page that was shown;
a reload of the page brings them back too, at that page (``&at=2`` in the URL); "Clear all
documents" empties the set. On e859558 the Viewer came back empty ("Drop one or more PDFs…").
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright")
from playwright.sync_api import expect

from tests.browser import app_state

pytestmark = pytest.mark.browser

DATA = Path(__file__).resolve().parents[2] / "tests" / "data"
TWO = [DATA / "financial_statement.pdf", DATA / "dd0293_p1-2.pdf"]  # 1 + 2 pages
EMPTY = "Drop one or more PDFs or images above"


def _holds_both(page: Any) -> None:
    """The Viewer shows the two files' three pages, the first page drawn."""
    expect(page.get_by_text("Page (of 3, all 2 files)")).to_be_visible()
    expect(page.locator(".wb-ov img").first).to_be_visible()
    app_state.idle(page)
    expect(page.get_by_text(EMPTY)).to_have_count(0)


def _nav(page: Any, link: str, title: str) -> None:
    page.get_by_test_id("stSidebarNav").get_by_text(link, exact=True).click()
    expect(page.get_by_role("heading", name=title)).to_be_visible()
    app_state.idle(page)


def test_dropped_files_survive_navigation_and_reload_and_clear(
    fake_app_url: str, page: Any, shots: Path
) -> None:
    app_state.open_viewer(page, fake_app_url)
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(TWO)
    _holds_both(page)
    # To the next page of the set, so the position is kept too.
    page.get_by_role("button", name="Next ▶").click()
    expect(page.get_by_label("Page (of 3, all 2 files)")).to_have_value("2")
    app_state.idle(page)
    _nav(page, "Compare", "Compare runs")
    _nav(page, "Runs", "Runs")
    _nav(page, "Viewer", "Viewer")
    _holds_both(page)
    expect(page.get_by_label("Page (of 3, all 2 files)")).to_have_value("2")
    page.screenshot(path=str(shots / "viewer-back-from-compare.png"))
    # A reload of the page: a new Streamlit session, the same documents, the same page.
    expect(page).to_have_url(re.compile(r"[?&]at=2(&|$)"))
    page.reload()
    app_state.connected(page)
    _holds_both(page)
    expect(page.get_by_label("Page (of 3, all 2 files)")).to_have_value("2")
    # Clear all: the set is empty, and stays empty after a reload.
    page.get_by_text("Documents: drop files").click()
    expect(page.get_by_text("Kept from before")).to_be_visible()  # each with a remove cross
    page.screenshot(path=str(shots / "viewer-kept-files.png"))
    page.get_by_role("button", name="Clear all documents").click()
    expect(page.get_by_text(EMPTY)).to_be_visible()
    app_state.idle(page)
    page.reload()
    app_state.connected(page)
    expect(page.get_by_text(EMPTY)).to_be_visible()
    assert page.js_errors == []
