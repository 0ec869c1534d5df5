"""The Viewer's inputs once documents are loaded (issue 24.6), at 1400×1000 and 1100×800: the
page image starts within the first screen with room to read (the "Documents" expander holding
the uploader closes after an upload), every one of eight files shows in full when the user opens
it (Streamlit clipped its file list to two rows of chips), and a ninth file can still be added
without losing the eight.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright")
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from tests.browser import app_state

pytestmark = pytest.mark.browser

DATA = Path(__file__).resolve().parents[2] / "tests" / "data"
PDFS = sorted(DATA.glob("*.pdf"))
SIZES = [(1400, 1000), (1100, 800)]
#: The page image must start this far above the fold at least: at 1100×800 it started at 718 px
#: (82 px of page in the first screen), under the uploader and its file chips.
PAGE_IN_VIEW = 200


def _clipped(page: Any, testid: str) -> bool:
    """Whether an element of the uploader hides some of its content (scrolls or clips), once
    the layout has settled: the chips are drawn by the browser as soon as files are picked, the
    page's style may land a moment later on a loaded machine (CI saw one such moment), so this
    waits up to 5 s for the full list and answers for what the user is then left with."""
    js = f"() => {{ const e = document.querySelector('[data-testid={testid}]');"
    js += " return e !== null && e.scrollHeight <= e.clientHeight + 1; }"
    with contextlib.suppress(PlaywrightTimeout):  # still clipped: judged below
        page.wait_for_function(js, timeout=5000)
    return bool(page.get_by_test_id(testid).evaluate("e => e.scrollHeight > e.clientHeight + 1"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_page_is_in_view_after_an_upload_and_every_file_shows(
    fake_app_url: str, page: Any, shots: Path, size: tuple[int, int]
) -> None:
    width, height = size
    page.set_viewport_size({"width": width, "height": height})
    app_state.open_viewer(page, fake_app_url)
    eight = PDFS[:8]
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(eight)
    picture = page.locator(".wb-ov img").first
    expect(picture).to_be_visible()
    app_state.idle(page)
    top = picture.bounding_box()["y"]
    page.screenshot(path=str(shots / f"viewer-inputs-loaded-{width}.png"))
    assert top < height - PAGE_IN_VIEW, f"the page image starts at {top:.0f} px"
    # Every file, in full: the uploader's list is not clipped, and the names are all listed.
    page.get_by_text("Documents: drop files").click()
    chips = page.get_by_test_id("stFileChip")
    expect(chips).to_have_count(8)
    expect(chips.last).to_be_visible()
    app_state.idle(page)
    assert not _clipped(page, "stFileChips")
    assert not _clipped(page, "stFileUploaderDropzone")
    listing = page.get_by_text("8 files:")
    for pdf in eight:
        expect(listing).to_contain_text(pdf.name)
    page.screenshot(path=str(shots / f"viewer-inputs-eight-files-{width}.png"))
    # A ninth file is added to the eight, and the page comes back into view.
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(PDFS[8])
    expect(page.get_by_text("all 9 files")).to_be_visible()
    app_state.idle(page)
    expect(chips).to_have_count(9)
    expect(chips.first).to_be_hidden()  # the expander closed again
    assert picture.bounding_box()["y"] < height - PAGE_IN_VIEW
    assert page.js_errors == []


def test_the_batch_uploader_shows_every_file(fake_app_url: str, page: Any) -> None:
    """Runs → Batch's uploader: eight files, none clipped."""
    page.set_viewport_size({"width": 1100, "height": 800})
    page.goto(fake_app_url + "/runs")
    page.get_by_text("Batch: process many documents as one run").click()
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(PDFS[:8])
    chips = page.get_by_test_id("stFileChip")
    expect(chips).to_have_count(8)
    app_state.idle(page)
    assert not _clipped(page, "stFileChips")
    assert not _clipped(page, "stFileUploaderDropzone")
    assert page.js_errors == []
