"""Runs: a batch run whose pages failed (a server that went away) is retried in one click,
into the same run (issue 30.2, "and of a batch"). On e859558 the Runs page had no such action:
the batch had to be run again by hand, into a new run."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests.fakes.fake_engine import FakeEngine
from workbench.models.registry import CPU_SPEC
from workbench.pipeline.batch import run_batch
from workbench.pipeline.request import RunRequest
from workbench.runs.store import RunStore
from workbench.settings import Settings

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "tests" / "data"
FILES = [(n, (DATA / n).read_bytes()) for n in ("financial_statement.pdf", "dd0293_p1-2.pdf")]


def test_retry_failed_pages_of_a_batch_goes_on_in_the_same_run(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    failing = FakeEngine(fail_keys=["dd0293_p1-2.pdf#2", "financial_statement.pdf#1"])
    request = RunRequest(settings=Settings(store_dir=tmp_path))
    first = run_batch(FILES, failing, CPU_SPEC, store, "two docs", request)
    assert first.status == "partial"
    at = AppTest.from_file(str(ROOT / "pages" / "runs.py"), default_timeout=60)
    at.session_state["runs_store_dir"] = str(tmp_path)
    at.session_state["engine_override"] = FakeEngine()  # the server is back
    at.run()
    at.button(key="runs_retry_batch").click().run()
    assert not at.exception
    job = at.session_state["batch_job"]
    assert job.thread is not None
    job.thread.join(60)
    assert not job.running and job.error is None, job.error
    at.run()
    [run] = store.list()  # the same run, not a second one
    assert run.id == first.run_id and run.status == "done" and run.pages == 3
    reader = store.open(run.id)
    assert all(e.status.value == "ok" for e in reader.info.pages), reader.info.pages
    assert not [b for b in at.button if b.key == "runs_retry_batch"]  # nothing left to retry
