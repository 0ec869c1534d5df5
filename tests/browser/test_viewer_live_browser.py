"""The Viewer answers while pages are processed (issue 11): the real app server, headless
Chromium, and the FakeEngine working ``SLOW_FAKE_DELAY`` seconds per page in the server's
background worker.

Click-to-update is measured in the browser: from the click on "Next" to the moment the page
shows the next page's facts line, while the worker is still processing the document (its
progress bar is on screen before and after the click). Before the worker, a click waited
for the page in progress (up to 12 s on the CPU engine). The assertion is relative to the
work, not to the machine's speed: a page takes ``SLOW_FAKE_DELAY`` (4 s) here, and the median
click must be answered in under half of that, which a click that waited for the page in
progress cannot be. The measured numbers are printed (idle 2-core machine: about 1 s; the
goal is well under a second, a script run that draws a never-shown page costs most of it).
Two sessions processing at once both answer, and share one engine instance.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium
import pytest

pytest.importorskip("playwright")
from playwright.sync_api import expect

from tests.browser import app_state
from tests.browser.conftest import SLOW_FAKE_DELAY

pytestmark = [pytest.mark.browser, pytest.mark.slow]

DATA = Path(__file__).resolve().parents[2] / "tests" / "data"
PAGES = 12
#: click-to-update (median of the clicks) while the document is processed: under half a page's
#: work, so no click waited for the page in progress
LIMIT_S = SLOW_FAKE_DELAY / 2
#: Bound for the first page: it includes starting the page-preparing worker processes,
#: which took 40 s on this 2-core machine under a load average of 20.
FIRST_PAGE_MS = 180_000


def _long_pdf(path: Path, sources: list[str], pages: int = PAGES) -> Path:
    """A real PDF of ``pages`` pages made from the pages of real test PDFs."""
    out = pdfium.PdfDocument.new()
    while len(out) < pages:
        for name in sources:
            src = pdfium.PdfDocument(DATA / name)
            out.import_pages(src, list(range(min(len(src), pages - len(out)))))
            src.close()
            if len(out) >= pages:
                break
    out.save(path)
    out.close()
    return path


def _shows_page(
    page: Any, n: int, processed: bool = False, timeout: float = 60_000, of: int = PAGES
) -> None:
    """Wait, checking every animation frame, until the facts line names page ``n`` (and,
    with ``processed``, no longer says "not processed")."""
    page.wait_for_function(
        """([t, done]) => { const s = document.body.innerText;
             return s.includes(t) && (!done || !s.includes('not processed')); }""",
        arg=[f"page {n} of {of}", processed],
        polling="raf",
        timeout=timeout,
    )


def _click_next_timed(page: Any, n: int, of: int = PAGES) -> float:
    """Seconds from a click on Next to page ``n`` on screen."""
    button = page.get_by_role("button", name="Next ▶")
    expect(button).to_be_enabled()
    start = time.perf_counter()
    button.click()
    _shows_page(page, n, of=of)
    return time.perf_counter() - start


def _upload(page: Any, url: str, pdf: Path) -> None:
    app_state.open_viewer(page, url)
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files([pdf])


def _first_page_processed(page: Any, of: int = PAGES) -> None:
    _shows_page(page, 1, processed=True, timeout=FIRST_PAGE_MS, of=of)


def _processing(page: Any, of: int = PAGES) -> bool:
    """Pages of the document are still pending: the document download does not cover it
    yet (the page is redrawn with every page once the last one is done)."""
    complete = page.get_by_role("button", name=f"Document JSON ({of} p.)")
    return complete.count() == 0


def test_clicks_are_answered_while_the_document_is_processed(
    slow_fake_app_url: str, page: Any, tmp_path: Path
) -> None:
    pdf = _long_pdf(tmp_path / "long-a.pdf", ["pdflatex_outline.pdf", "dd0293_p1-2.pdf"])
    _upload(page, slow_fake_app_url, pdf)
    _first_page_processed(page)
    expect(page.get_by_test_id("stProgress")).to_be_visible()  # the rest is being processed
    took = []
    for n in range(2, 7):
        assert _processing(page), "the document finished before the clicks were measured"
        took.append(_click_next_timed(page, n))
    assert _processing(page)  # still processing after the last measured click
    # The page on screen is processed next and appears without another click.
    _shows_page(page, 6, processed=True, timeout=30_000)
    # Every page ends up processed; the progress bar goes and downloads cover the document.
    expect(page.get_by_test_id("stProgress")).to_have_count(0, timeout=PAGES * 10_000)
    expect(page.get_by_role("button", name=f"Document JSON ({PAGES} p.)")).to_be_visible()
    idle = [_click_next_timed(page, n) for n in range(7, 10)]  # the same clicks, all done
    print(f"click-to-update ({SLOW_FAKE_DELAY} s/page): processing {took}, idle {idle}")
    assert page.js_errors == []
    assert statistics.median(took) < LIMIT_S, (took, idle)


def test_two_sessions_processing_at_once_both_answer_and_share_one_engine(
    slow_fake_app_url: str, browser: Any, tmp_path: Path
) -> None:
    n_pages = 60  # both still processing while the other session uploads and clicks
    pdfs = [
        _long_pdf(tmp_path / "long-b.pdf", ["dd0293_p1-2.pdf", "census_12s0324.pdf"], n_pages),
        _long_pdf(tmp_path / "long-c.pdf", ["sf424_page2.pdf", "va210966_p1.pdf"], n_pages),
    ]
    contexts = [browser.new_context(viewport={"width": 1500, "height": 1100}) for _ in pdfs]
    try:
        pages = [ctx.new_page() for ctx in contexts]
        for pg in pages:
            pg.set_default_timeout(60_000)
        for pg, pdf in zip(pages, pdfs, strict=True):
            _upload(pg, slow_fake_app_url, pdf)
        for pg in pages:
            _first_page_processed(pg, of=n_pages)
        took: list[list[float]] = [[], []]
        for n in range(2, 5):
            for i, pg in enumerate(pages):
                assert _processing(pg, of=n_pages), f"session {i} finished before the clicks"
                took[i].append(_click_next_timed(pg, n, of=n_pages))
        # Both sessions' pages on screen get processed (turns, not one document after the
        # other), and one engine serves both: the sidebar shows the same instance.
        for pg in pages:
            _shows_page(pg, 4, processed=True, timeout=60_000, of=n_pages)
            expect(pg.get_by_test_id("stSidebar")).to_contain_text("instance: 1")
        print(f"two sessions, click-to-update: {took}")
        assert statistics.median(took[0] + took[1]) < LIMIT_S, took
    finally:
        for ctx in contexts:
            ctx.close()
