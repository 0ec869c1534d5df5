"""The viewer keeps every processing as a run in the store (issue: runs that last); pages are
processed by the background worker (settle waits for it and reruns, as the page's polling
fragment does in a browser)."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.fakes.fake_engine import FakeEngine
from tests.ui.settle import settle
from workbench.runs.store import RunStore

ROOT = Path(__file__).resolve().parents[3]
LATEX = ("latex.pdf", (ROOT / "tests/data/pdflatex_outline.pdf").read_bytes(), "application/pdf")


def test_processing_in_the_viewer_saves_a_run_page_by_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WORKBENCH_STORE_DIR", str(tmp_path))
    eng = FakeEngine()
    at = AppTest.from_file(str(ROOT / "workbench" / "Home.py"), default_timeout=120)
    at.session_state["engine_override"] = eng
    at.run()
    settle(at.file_uploader(key="wb_uploads").set_value([LATEX]).run())
    assert not at.exception and eng.calls == 4

    [summary] = RunStore(tmp_path).list()
    assert summary.pages == 4 and summary.engine == "fake"
    reader = RunStore(tmp_path).open(summary.id)
    pages = reader.pages("latex.pdf")
    assert [p.page for p in pages] == [1, 2, 3, 4]
    assert reader.image("latex.pdf", 2).size == (pages[1].width, pages[1].height)
    assert any(summary.id in c.value for c in at.caption)

    at.button(key="wb_next").click().run()  # navigation neither recomputes nor adds a run
    assert eng.calls == 4 and len(RunStore(tmp_path).list()) == 1


class _StoppedAfterOnePage(FakeEngine):
    """Dies on the second page with an exception that is not the workbench's own (here the
    one Streamlit uses to stop a script)."""

    def run(self, requests):  # type: ignore[no-untyped-def]
        from streamlit.runtime.scriptrunner_utils.exceptions import StopException

        for i, out in enumerate(super().run(requests)):
            if i == 1:
                raise StopException()
            yield out


def test_work_cut_short_leaves_a_cancelled_run_not_a_running_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WORKBENCH_STORE_DIR", str(tmp_path))
    at = AppTest.from_file(str(ROOT / "workbench" / "Home.py"), default_timeout=120)
    at.session_state["engine_override"] = _StoppedAfterOnePage()
    at.run()
    at = settle(at.file_uploader(key="wb_uploads").set_value([LATEX]).run())
    [summary] = RunStore(tmp_path).list()
    assert summary.status == "cancelled"
    assert summary.pages >= 1
    # The worker lives on and says what happened; the pages it could not do are not retried.
    assert any("latex.pdf: processing failed (StopException" in w.value for w in at.warning)
    assert not at.exception
