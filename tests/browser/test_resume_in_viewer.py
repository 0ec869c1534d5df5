"""Stop says what will be true, and Runs' "Resume in the Viewer" resumes in one click
(issue 30.4), in the real app and Chromium with a FakeEngine that takes 4 s a page.

A 4-page PDF is dropped in the Viewer and Stop pressed once page 1 is done, while page 2 is in
flight: the page in flight is finished and saved, and the message then counts it (on e859558 it
said "3 page(s) not processed" while the run went on to hold 2 of 4). Runs shows the stopped
run; "Resume in the Viewer" reopens the document from the original the store keeps and goes on
in that run until it holds 4 of 4 (on e859558 it opened an empty Viewer).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright")
from playwright.sync_api import expect

from tests.browser import app_state
from tests.browser.fake_server_app import pdf_file
from tests.browser.test_compare_browser import use_store
from tests.browser.test_workset_browser import _nav
from workbench.runs.store import RunStore

pytestmark = [pytest.mark.browser, pytest.mark.slow]

STOPPED = re.compile(r"Processing stopped: (\d) page\(s\) not processed; (\d) of 4 done and saved")


def test_stop_counts_what_the_run_holds_and_resume_in_the_viewer_finishes_it(
    slow_fake_app_url: str, page: Any, tmp_path: Path, shots: Path
) -> None:
    page.goto(slow_fake_app_url + "/runs")
    use_store(page, tmp_path / "store")
    _nav(page, "Viewer", "Viewer")
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(
        [pdf_file(tmp_path / "stopped.pdf", 4)]
    )
    expect(page.get_by_text("Page 1 title").first).to_be_visible()
    page.get_by_role("button", name=re.compile(r"\bStop\b")).click()
    stopped = page.get_by_text(STOPPED)
    expect(stopped).to_be_visible()
    app_state.idle(page)
    left, done = (int(g) for g in STOPPED.search(stopped.inner_text()).groups())  # type: ignore[union-attr]
    assert left + done == 4 and done >= 1
    page.screenshot(path=str(shots / "viewer-stopped.png"))
    # Runs: the run holds what the message said.
    _nav(page, "Runs", "Runs")
    expect(page.get_by_text(f"Stopped with {done} of 4 page(s) saved")).to_be_visible()
    page.get_by_role("button", name="Resume in the Viewer").click()
    # The Viewer: the document is back and its processing goes on, in the same run.
    expect(page.get_by_role("heading", name="Viewer")).to_be_visible()
    expect(page.get_by_role("combobox", name="File", exact=True)).to_have_value("stopped.pdf")
    expect(page.get_by_text("page 1 of 4").first).to_be_visible()
    expect(page.get_by_text("Processing in the background")).to_have_count(0, timeout=120_000)
    app_state.idle(page)
    expect(page.get_by_text("Processing stopped")).to_have_count(0)
    _nav(page, "Runs", "Runs")
    picker = page.get_by_role("combobox", name="Run", exact=True)
    expect(picker).to_have_value(re.compile(r"^stopped\.pdf · .* · done · "))
    expect(page.get_by_text("Stopped with")).to_have_count(0)
    runs = RunStore(tmp_path / "store").list()
    assert [(r.status, r.pages) for r in runs] == [("done", 4)]  # the same run, finished
    page.screenshot(path=str(shots / "runs-resumed.png"))
    assert page.js_errors == []
