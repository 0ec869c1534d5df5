"""A batch whose server stops answering says so while its pages wait on it (a walkthrough
found "0/6 pages · estimating time left" for half a minute, nothing saying the server was gone;
the pages wait on retries before they fail). The batch is held at its engine's gate, so "while
it runs" is a state, not a time; its engine choice names a server on a port nobody listens on.
Also what a walkthrough of the Batch form found: the Run name box says what an empty name gives."""

from __future__ import annotations

from pathlib import Path

from tests.browser.conftest import _free_port
from tests.ui.runs.test_runs_batch_apptest import WAIT_S, GatedEngine, started
from tests.ui.runs.test_runs_batch_apptest import _open_gates as _open_gates  # autouse
from workbench.engines.factory import CpuOptions, ServerOptions
from workbench.runs.store import RunStore
from workbench.ui.engines import EngineChoice


def _lost_warnings(at: object) -> list[str]:
    return [w.value for w in at.warning if "is not answering" in w.value]  # type: ignore[attr-defined]


def test_a_running_batch_says_its_server_does_not_answer(tmp_path: Path) -> None:
    engine = GatedEngine()
    at = started(tmp_path, engine)
    job = at.session_state["batch_job"]
    dead = f"http://127.0.0.1:{_free_port()}/v1"
    at.session_state["batch_choice"] = EngineChoice(
        "vllm-server", ServerOptions(base_url=dead, model="m")
    )
    at.run()
    assert not at.exception and job.running
    said = _lost_warnings(at)
    assert len(said) == 1 and dead in said[0], [w.value for w in at.warning]
    engine.gate.set()
    job.thread.join(WAIT_S)


def test_a_batch_on_the_cpu_engine_says_nothing_of_a_server(tmp_path: Path) -> None:
    engine = GatedEngine()
    at = started(tmp_path, engine)
    job = at.session_state["batch_job"]
    at.session_state["batch_choice"] = EngineChoice("cpu", CpuOptions())
    at.run()
    assert not at.exception and job.running
    assert _lost_warnings(at) == []
    engine.gate.set()
    job.thread.join(WAIT_S)


def test_an_unnamed_batch_is_named_as_the_run_name_box_says(tmp_path: Path) -> None:
    """The box said "batch" while an unnamed batch's run was named after its first document."""
    engine = GatedEngine()
    at = started(tmp_path, engine)
    job = at.session_state["batch_job"]
    engine.gate.set()
    job.thread.join(WAIT_S)
    at.run()
    assert at.text_input(key="batch_name").placeholder == "the first document's name"
    (run,) = RunStore(tmp_path).list()
    assert run.name == "one"  # one.tiff, the first of the two
