"""The viewer end to end: the real app server, headless Debian Chromium, real PDFs, and the
real embedded CPU engine (unless WORKBENCH_FAKE_ENGINE is set for the run).

Covers what AppTest cannot: the overlay component drawing boxes, click-to-select in both
directions, file drop (input and a true HTML5 drop event), client-side rendering of the
Markdown table, and page errors in the browser console. Screenshots are saved for review.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright")
from playwright.sync_api import expect

from tests.browser import app_state

pytestmark = [pytest.mark.browser, pytest.mark.slow]

DATA = Path(__file__).resolve().parents[2] / "tests" / "data"
CENSUS = DATA / "census_12s0324.pdf"
OCR_TIMEOUT = 180_000  # first page includes loading the CPU engine


def _open_viewer(page: Any, app_url: str) -> None:
    app_state.open_viewer(page, app_url)


def test_drop_pdf_shows_regions_and_markdown(app_url: str, page: Any, shots: Path) -> None:
    _open_viewer(page, app_url)
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files([CENSUS])
    expect(page.locator(".wb-box").first).to_be_visible(timeout=OCR_TIMEOUT)
    assert page.locator(".wb-box").count() >= 3
    facts = page.get_by_test_id("wb-stats")  # its "·" separators are drawn by CSS
    expect(facts.first).to_contain_text(re.compile(r"census_12s0324\.pdf[\s·]*page 1 of 1"))
    # Layout regions include the page's table, and its Markdown renders as an HTML table.
    assert page.locator('.wb-box[data-label="table"]').count() >= 1
    tables = page.locator('[class*="st-key-wbblk-0-"] table')
    expect(tables.first).to_be_visible()
    assert "Violent crime" in tables.first.inner_text()
    # A legend with a count per label sits under the page.
    expect(page.locator(".wb-legend").first).to_contain_text("table")
    page.screenshot(path=str(shots / "viewer-census.png"), full_page=True)
    # Downloads: the page's Markdown and the document's JSON are real files.
    with page.expect_download() as md_download:
        page.get_by_role("button", name="Page Markdown").click()
    assert md_download.value.suggested_filename == "census_12s0324-page-0001.md"
    assert "Violent crime" in Path(md_download.value.path()).read_text()
    with page.expect_download() as json_download:
        page.get_by_role("button", name="Document JSON (1 p.)").click()
    pages = json.loads(Path(json_download.value.path()).read_text())
    assert [p["page"] for p in pages] == [1] and pages[0]["regions"]
    assert page.js_errors == []


def test_box_and_text_select_each_other(app_url: str, page: Any, shots: Path) -> None:
    _open_viewer(page, app_url)
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files([CENSUS])
    boxes = page.locator(".wb-box")
    expect(boxes.first).to_be_visible(timeout=OCR_TIMEOUT)
    table_box = page.locator('.wb-box[data-label="table"]').first
    rid = table_box.get_attribute("data-region")
    table_box.click()
    # The box is emphasised, the picker names it, and its text block is outlined.
    expect(page.locator(f'.wb-box.sel[data-region="{rid}"]')).to_have_count(1)
    picker = page.get_by_role("combobox", name="Selected region")
    expect(picker).to_have_value(re.compile(rf"^{rid} · table"))
    expect(page.locator(f".st-key-wbblk-0-{rid}")).to_have_css("outline-style", "solid")
    page.screenshot(path=str(shots / "viewer-box-selected.png"))
    # The reverse: click another region's text, and its box becomes the selected one.
    blocks = page.locator('[class*="st-key-wbblk-0-"]')
    other = next(
        cls.split("st-key-wbblk-0-")[1].split()[0]
        for cls in (blocks.nth(i).get_attribute("class") or "" for i in range(blocks.count()))
        if f"st-key-wbblk-0-{rid} " not in cls + " "
    )
    page.locator(f".st-key-wbblk-0-{other}").click()
    expect(page.locator(f'.wb-box.sel[data-region="{other}"]')).to_have_count(1)
    expect(page.locator(".wb-box.sel")).to_have_count(1)
    expect(picker).to_have_value(re.compile(rf"^{other} · "))
    page.screenshot(path=str(shots / "viewer-text-selected.png"))
    assert page.js_errors == []


def test_dropped_bad_files_get_errors_and_good_file_works(
    app_url: str, page: Any, shots: Path
) -> None:
    _open_viewer(page, app_url)
    files = [
        ("notes.pdf", "application/pdf", b"this is a text file, not a PDF"),
        ("locked.pdf", "application/pdf", (DATA / "bad" / "encrypted.pdf").read_bytes()),
        ("census.pdf", "application/pdf", CENSUS.read_bytes()),
    ]
    payload = [(n, t, base64.b64encode(b).decode()) for n, t, b in files]
    transfer = page.evaluate_handle(
        """(files) => { const dt = new DataTransfer();
            for (const [name, type, b64] of files)
                dt.items.add(new File([Uint8Array.from(atob(b64), c => c.charCodeAt(0))],
                                      name, {type}));
            return dt; }""",
        payload,
    )
    zone = page.get_by_test_id("stFileUploaderDropzone")
    for event in ("dragenter", "dragover", "drop"):
        zone.dispatch_event(event, {"dataTransfer": transfer})
    alerts = page.get_by_test_id("stAlertContentError")
    expect(alerts.filter(has_text="notes.pdf: not a PDF or image")).to_be_visible(timeout=60_000)
    expect(alerts.filter(has_text="locked.pdf: the PDF is encrypted")).to_be_visible()
    expect(page.locator(".wb-box").first).to_be_visible(timeout=OCR_TIMEOUT)
    expect(page.get_by_test_id("wb-stats").first).to_contain_text(
        re.compile(r"census\.pdf[\s·]*page 1 of 1")
    )
    page.screenshot(path=str(shots / "viewer-bad-files.png"), full_page=True)
    assert page.js_errors == []


def test_arrow_keys_page_through_and_escape_clears(fake_app_url: str, page: Any) -> None:
    """FakeEngine server: four pages instantly, so this is about navigation only."""
    _open_viewer(page, fake_app_url)
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(
        [DATA / "pdflatex_outline.pdf"]
    )
    expect(page.locator(".wb-box").first).to_be_visible(timeout=60_000)

    def at_page(n: int) -> None:  # a rerun may briefly leave the old element beside the new
        page.wait_for_function("t => document.body.innerText.includes(t)", arg=f"page {n} of 4")
        expect(page.get_by_role("spinbutton", name="Page (of 4)").last).to_have_value(str(n))
        expect(page.locator(f'.wb-ov[data-key="wb_ov_{n - 1}"]')).to_be_visible(timeout=20_000)

    def press(key: str) -> None:
        # An arrow key pressed while a script run redraws the page reaches an overlay about to
        # be replaced: wait until the app is idle, as a person waits for the page to settle.
        app_state.idle(page)
        page.keyboard.press(key)

    page.mouse.click(1400, 20)  # focus the page, not a text field
    for expected in (2, 3, 4, 4):
        press("ArrowRight")
        at_page(expected)
    press("ArrowLeft")
    at_page(3)
    page.locator('.wb-box[data-label="table"]').first.click()
    expect(page.locator(".wb-box.sel")).to_have_count(1)
    press("Escape")
    expect(page.locator(".wb-box.sel")).to_have_count(0)
    # Typing in the page-range field never pages.
    page.get_by_placeholder("all pages — or e.g. 1,3-5").click()
    page.keyboard.press("ArrowLeft")
    page.wait_for_timeout(500)  # a rerun the key might have asked for has started by now
    app_state.idle(page)
    at_page(3)
    assert page.js_errors == []


def test_tags_stay_off_the_text_and_zoom_enlarges_the_page(
    fake_app_url: str, page: Any, shots: Path
) -> None:
    """Dense pages: a label tag shows only on hover/selection (or when asked for all), so
    tags never hide the text they label; zoom makes the page larger inside a scroll box."""
    _open_viewer(page, fake_app_url)
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files([CENSUS])
    box = page.locator('.wb-box[data-label="text"]').first
    expect(box).to_be_visible(timeout=60_000)
    tags = page.locator(".wb-tag")
    visible_tags = "(els) => els.filter(e => getComputedStyle(e).visibility === 'visible').length"
    assert tags.evaluate_all(visible_tags) == 0
    expect(page.locator(".wb-legend").first).to_contain_text("text")
    box.hover()
    expect(box.locator(".wb-tag")).to_be_visible()
    page.mouse.move(5, 5)
    page.get_by_text("All label tags").click()
    expect(page.locator(".wb-ov.tags-all")).to_have_count(1)
    assert tags.evaluate_all(visible_tags) == tags.count() > 3

    scroller = page.locator(".wb-scroll").first
    fit = scroller.evaluate("e => e.querySelector('.wb-ov').getBoundingClientRect().width")
    page.locator("button", has_text="2×").click()
    expect(page.locator(".wb-scroll.zoomed")).to_have_count(1)
    zoomed = page.locator(".wb-scroll.zoomed").evaluate(
        "e => [e.querySelector('.wb-ov').getBoundingClientRect().width, e.clientWidth,"
        " e.scrollWidth]"
    )
    assert zoomed[0] > 1.9 * fit and zoomed[2] > zoomed[1]  # larger, and it scrolls sideways
    page.screenshot(path=str(shots / "viewer-zoom-2x.png"))
    assert page.js_errors == []
