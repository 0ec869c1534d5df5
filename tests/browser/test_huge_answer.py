"""A 5 MB model answer in the real app and Chromium: the page stays quick to show (issue 10.4).

The app runs the real server engine (``tests.fakes.openai_server:engine_from_env``) against
the fake OpenAI server run as a script, which answers page 1 (landscape) of a two-page PDF
with about 5 MB of Markdown (paragraphs and table rows: tens of thousands of regions) and
page 2 with a normal page. Drawn whole, such a page stalled the tab 80-100 s; bounded for display
(:mod:`workbench.markdown.display`) going back to it takes seconds, with a note saying it was
cut, while the page download still has every character.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright")
from playwright.sync_api import expect

from tests.browser.fake_server_app import pdf_file, serve_with_fake_server

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _block(i: int) -> str:  # numbered, so no repetition loop is seen and no retry asked
    rows = "".join(f"| row {i}.{j} | value {i * 20 + j} |\n" for j in range(20))
    return f"Paragraph {i} read by the model, once.\n\n| row | value |\n|---|---|\n{rows}\n"


HUGE = "".join(_block(i) for i in range(7400))  # 5.0 MB, 14 800 regions
NOTE = "too long to show whole"


@pytest.fixture(scope="module")
def huge_app_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    answer = tmp_path_factory.mktemp("huge") / "huge.md"
    answer.write_text(HUGE, encoding="utf-8")
    # By the page's shape, not "--first": the Viewer sends both pages at once, and under load
    # page 2's request sometimes arrived first (seen in CI: page 1 got the short answer).
    yield from serve_with_fake_server(tmp_path_factory, ["--landscape-answer", str(answer)])


def test_back_to_a_5_mb_page_takes_seconds(
    huge_app_url: str, page: Any, tmp_path: Path, shots: Path
) -> None:
    page.goto(huge_app_url + "/viewer")
    expect(page.get_by_test_id("stFileUploaderDropzone")).to_be_visible(timeout=60_000)
    pdf = pdf_file(tmp_path / "looping.pdf", 2, landscape=(1,))  # page 1 is the huge one
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files([pdf])
    note = page.get_by_text(NOTE)
    t0 = time.monotonic()
    expect(note).to_be_visible(timeout=120_000)
    print(f"5 MB page 1 shown {time.monotonic() - t0:.1f} s after the upload")
    expect(page.get_by_text(re.compile(r"page 1 of 2")).first).to_be_visible()
    t0 = time.monotonic()
    page.get_by_role("button", name="Next ▶").click()
    expect(page.get_by_text(re.compile(r"page 2 of 2")).first).to_be_visible(timeout=60_000)
    expect(page.get_by_text("Text read by the fake OCR server.").first).to_be_visible(
        timeout=60_000
    )
    expect(note).to_have_count(0)
    print(f"page 2 shown {time.monotonic() - t0:.1f} s after Next")
    started = time.monotonic()
    page.get_by_role("button", name="◀ Prev").click()
    expect(page.get_by_text(re.compile(r"page 1 of 2")).first).to_be_visible(timeout=120_000)
    expect(note).to_be_visible(timeout=120_000)
    expect(page.locator('[class*="st-key-wbblk-0-"] table').first).to_be_visible(timeout=120_000)
    back = time.monotonic() - started
    page.screenshot(path=str(shots / "huge-answer-page-1.png"))
    print(f"back to the 5 MB page: {back:.1f} s")
    # Seconds on an idle machine; the bound leaves room for a shared, loaded test machine.
    # Unbounded, the same page took 121 s to show first and going on to page 2 did not end
    # within the next 8 minutes (measured with the bound switched off, same machine).
    assert back < 15, f"going back to the 5 MB page took {back:.1f} s"
    # Only the display is cut: the page's download is the whole answer.
    with page.expect_download() as download:
        page.get_by_role("button", name="Page Markdown").click()
    assert len(Path(download.value.path()).read_text()) > 4_500_000
    assert page.js_errors == []
