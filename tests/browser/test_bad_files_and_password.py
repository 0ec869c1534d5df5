"""Files that cannot be read, as a new user drops them (issue 24.6 and "missing"): six bad files
give one error summary, not six tall banners; an encrypted PDF gets a password field, and
the right password opens it (tests/data/bad/encrypted.pdf, pypdf's AES-256 sample, whose
user password is "password")."""

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


def test_bad_files_are_one_summary_and_a_locked_pdf_opens_with_its_password(
    fake_app_url: str, page: Any, shots: Path
) -> None:
    page.set_viewport_size({"width": 1400, "height": 1000})
    app_state.open_viewer(page, fake_app_url)
    files = [
        {"name": f"notes-{i}.pdf", "mimeType": "application/pdf", "buffer": b"not a PDF %d" % i}
        for i in range(5)
    ]
    files.append(
        {
            "name": "locked.pdf",
            "mimeType": "application/pdf",
            "buffer": (DATA / "bad" / "encrypted.pdf").read_bytes(),
        }
    )
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(files)
    alerts = page.get_by_test_id("stAlertContentError")
    expect(alerts.first).to_contain_text("6 files cannot be read")
    expect(alerts).to_have_count(1)
    assert alerts.first.bounding_box()["height"] < 220
    page.get_by_text("All 6 files that cannot be read").click()
    expect(page.get_by_text("notes-4.pdf: not a PDF or image")).to_be_visible()
    page.screenshot(path=str(shots / "viewer-bad-files-summary.png"))
    # The locked PDF: a wrong password says so, the right one opens it.
    field = page.get_by_role("textbox", name="Password for locked.pdf")
    field.fill("wrong")
    field.press("Enter")
    expect(alerts.first).to_contain_text("this password does not open it")
    field = page.get_by_role("textbox", name="Password for locked.pdf")
    field.fill("password")
    field.press("Enter")
    expect(page.get_by_test_id("wb-stats").first).to_contain_text(
        re.compile(r"locked\.pdf[\s·]*page 1 of 1")
    )
    expect(alerts.first).to_contain_text("5 files cannot be read")
    app_state.idle(page)
    expect(page.get_by_test_id("wb-stats").first).to_contain_text("locked.pdf")  # stays open
    assert page.js_errors == []
