"""Runs: a cancelled batch says how to resume it with what the page offers ("Retry failed
pages"), not "run the same batch into this run again", which the Batch form cannot do (it
always starts a new run)."""

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


def test_a_cancelled_batch_points_at_retry_failed_pages(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    done: list[int] = []
    outcome = run_batch(
        FILES, FakeEngine(), CPU_SPEC, store, "two docs",
        RunRequest(settings=Settings(store_dir=tmp_path)),
        progress=lambda *_: done.append(1), cancelled=lambda: bool(done),
    )  # fmt: skip
    [run] = store.list()
    assert run.id == outcome.run_id and run.status == "cancelled" and run.pages < 3
    at = AppTest.from_file(str(ROOT / "pages" / "runs.py"), default_timeout=60)
    at.session_state["runs_store_dir"] = str(tmp_path)
    at.run()
    assert not at.exception
    [note] = [i.value for i in at.info if "To resume" in i.value]
    assert '"Retry failed pages"' in note, note
    assert "run the same batch" not in note, note
    assert [b for b in at.button if b.key == "runs_retry_batch"]  # the button it names is there
