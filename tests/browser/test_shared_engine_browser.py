"""The app on the shared in-process vLLM engine (issue 29): the real app server, headless
Chromium, and the real :class:`~workbench.engines.vllm_local.VllmLocalEngine` over the fake
vLLM of :mod:`tests.fakes.fake_vllm` (a page takes ``TOKENS`` steps of ``STEP_S`` seconds,
``SEQS`` pages at once, as vLLM's engine steps them).

* The first page of a 50-page PDF is on screen, processed, while the document is still being
  processed (before, ``llm.chat`` took the whole document and returned when its last page
  was done).
* A second session's one-page PDF is processed while the first session's 50 pages are still
  in the engine: it is not queued behind them.

The assertions are about order (what is done while what is still running), not about time.
This configuration (four pages at once, 3 s a page) passes on the old worker and engine too:
the Viewer fed the old engine small chunks. What the old engine did to a long document in
one ``llm.chat`` call is measured on the H200 (benchmarks/gpu_inprocess_results.md) and
checked without a browser in tests/ui/jobs/test_jobs_shared_engine.py (fails on the old
worker).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright")

from tests.browser.conftest import _serve
from tests.browser.test_viewer_live_browser import _long_pdf, _processing, _shows_page, _upload
from workbench.runs.store import RunStore
from workbench.settings import Settings

pytestmark = [pytest.mark.browser, pytest.mark.slow]

STEP_S, TOKENS, SEQS = 0.05, 60, 4  # 3 s a page, 4 at once: 50 pages take over 35 s
FIRST_PAGE_MS = 180_000  # starting the page-preparing workers on a loaded 2-core machine


@pytest.fixture(scope="module")
def vllm_app_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    env = {
        "WORKBENCH_ENGINE_FACTORY": "tests.fakes.fake_vllm:from_env",
        "WORKBENCH_FAKE_STEP_S": str(STEP_S),
        "WORKBENCH_FAKE_TOKENS": str(TOKENS),
        "WORKBENCH_FAKE_SEQS": str(SEQS),
    }
    yield from _serve(tmp_path_factory, env)


def _pages_written(document: str) -> int:
    """Pages the app's run store holds for ``document`` now (the server's store: the test
    run's WORKBENCH_STORE_DIR, which the app server inherits)."""
    store = RunStore(Settings.from_env().store_dir)
    return max((r.pages for r in store.list() if document in r.documents), default=0)


def test_pages_show_as_they_finish_and_a_second_session_is_not_queued_behind(
    vllm_app_url: str, browser: Any, tmp_path: Path
) -> None:
    long = _long_pdf(tmp_path / "long-50.pdf", ["dd0293_p1-2.pdf", "census_12s0324.pdf"], 50)
    short = _long_pdf(tmp_path / "scan-1.pdf", ["va210966_p1.pdf"], 1)
    contexts = [browser.new_context(viewport={"width": 1500, "height": 1100}) for _ in range(2)]
    try:
        first, second = (ctx.new_page() for ctx in contexts)
        for pg in (first, second):
            pg.set_default_timeout(60_000)
        _upload(first, vllm_app_url, long)
        _shows_page(first, 1, processed=True, timeout=FIRST_PAGE_MS, of=50)
        assert _processing(first, of=50)  # page 1 shown while the other 49 are in the engine
        _upload(second, vllm_app_url, short)
        _shows_page(second, 1, processed=True, timeout=FIRST_PAGE_MS, of=1)
        # The one-page scan did not wait for the 50 pages: the long document's run (written
        # by the server as each page finishes) is still short of them.
        assert _pages_written("long-50.pdf") < 50
    finally:
        for ctx in contexts:
            ctx.close()
