"""A dead vLLM engine stops the run with one message naming the cause and the fix (issue 20.3,
issue 25.4): forced in-process through a fake ``vllm`` module whose ``LLM.chat`` raises what
vLLM raises (``torch.OutOfMemoryError`` in the vision encoder, then ``EngineDeadError``), and
over HTTP through the fake server answering vLLM's 500 and then refusing connections. A server
that restarts (refuses for a moment, then answers) is not a dead engine: its pages go on."""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from PIL import Image

from tests.engines.test_vllm_local import FakeLLM, fake_vllm  # noqa: F401 (fixture)
from tests.fakes.fake_vllm import PROMPT_TOKENS
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from workbench.documents import open_document
from workbench.engines.base import PageRequest
from workbench.engines.dead import dead_in_process, dead_server
from workbench.engines.server.engine import VllmServerEngine
from workbench.engines.vllm_local import VllmLocalEngine
from workbench.errors import EngineDeadError, EngineUnavailable
from workbench.models.registry import get_spec
from workbench.pipeline.request import run_info
from workbench.pipeline.runner import RunJob, run_documents
from workbench.schema import PageStatus, RunStatus

OOM = (
    "CUDA out of memory. Tried to allocate 5.34 GiB. GPU 0 has a total capacity of 139.80 GiB "
    "of which 3.79 GiB is free."
)
DIED = "EngineCore encountered an issue. See stack trace (above) for the root cause."


class OutOfMemoryError(RuntimeError):  # as torch names it
    pass


class EngineDead(Exception):  # vLLM's EngineDeadError, by its name
    pass


EngineDead.__name__ = "EngineDeadError"


def pixtral_attention(pages: int) -> None:  # the frame the real traceback ends in
    raise OutOfMemoryError(OOM)


def engine_core_dies(error: BaseException, failed: str = "encountered a fatal error") -> None:
    """What vLLM's EngineCore logs as it dies (``vllm/v1/engine/core.py``); the exception its
    parent then raises carries none of it."""
    try:
        if isinstance(error, OutOfMemoryError):
            pixtral_attention(1)
        raise error
    except BaseException:
        logging.getLogger("vllm.v1.engine.core").exception("EngineCore %s.", failed)


class DyingLLM(FakeLLM):
    """Answers ``healthy`` pages, then every step raises vLLM's death (out of memory in the
    vision encoder when ``oom``), as its EngineCore does once it is gone."""

    healthy = 0
    oom = True
    logged: BaseException | None = None  # what the EngineCore logs, its parent not told

    def __init__(self, model: str, **kwargs: Any) -> None:
        super().__init__(model, **kwargs)
        self.answered = 0
        step = self.llm_engine.step

        def dying_step() -> list[Any]:
            if self.answered >= DyingLLM.healthy:
                if DyingLLM.logged is not None:
                    engine_core_dies(DyingLLM.logged)
                    raise EngineDead(DIED)
                if not DyingLLM.oom:
                    raise EngineDead(DIED)
                try:
                    pixtral_attention(self.llm_engine.get_num_unfinished_requests())
                except OutOfMemoryError as exc:
                    raise EngineDead(DIED) from exc
            # Exactly ``healthy`` answers: pages that finish in the same step as the last
            # healthy one die with the engine (one step could finish page 4 with page 3, and
            # the test then saw page 4 written about one run in six).
            engine = self.llm_engine
            before = {r.external: r for r in engine.queue}
            outputs = step()  # the finished ones (FINAL_ONLY) answer
            finished = [o for o in outputs if o.finished]
            done = finished[: max(0, DyingLLM.healthy - self.answered)]
            self.answered += len(done)
            for cut in finished[len(done) :]:  # not finished after all: the engine dies first
                request = before[cut.request_id]
                engine.queue.append(request)
                state = SimpleNamespace(is_prefilling=False, prompt_len=PROMPT_TOKENS)
                engine.output_processor.request_states[request.internal] = state
            return [o for o in outputs if not o.finished] + done

        self.llm_engine.step = dying_step  # type: ignore[method-assign]


def _page(i: int) -> PageRequest:
    return PageRequest(key=f"p{i}", image=Image.new("RGB", (60, 40)), prompt="OCR")


def test_the_cause_is_read_from_the_exception_chain() -> None:
    try:
        try:
            pixtral_attention(64)
        except OutOfMemoryError as exc:
            raise EngineDead(DIED) from exc
    except EngineDead as exc:
        dead = dead_in_process(exc, 64)
    assert dead is not None
    assert dead.cause == "vLLM ran out of GPU memory in the vision encoder with 64 page(s) at once"
    assert "max_num_batched_tokens=4096" in dead.fix and dead.setting == {
        "max_num_batched_tokens": 4096
    }
    assert dead.restart_label == "Restart vLLM with max_num_batched_tokens=4096"
    plain = dead_in_process(EngineDead(DIED), 3)  # vLLM said nothing more: unknown, say where
    assert plain is not None and "vLLM did not say why" in plain.cause
    assert "EngineCore traceback" in plain.fix and "max_num_batched_tokens" not in str(plain)
    logged = dead_in_process(EngineDead(DIED), 3, "", "/tmp/vllm-log.json")  # where to look
    assert logged is not None and logged.fix.endswith(
        "(vLLM's warnings and errors: /tmp/vllm-log.json)"
    )
    known = dead_in_process(EngineDead(DIED), 3, "", "")  # no file kept: nothing to name
    assert known is not None and "warnings and errors" not in known.fix
    assert dead_in_process(ValueError("prompt is longer than max_model_len"), 3) is None
    assert dead_server("fake failure") is None
    served = dead_server(OOM)
    assert served is not None and served.cause == "vLLM ran out of GPU memory"
    assert "--max-num-batched-tokens 4096" in served.fix


@pytest.mark.parametrize("oom", [True, False])
def test_in_process_death_is_not_retried_page_by_page(
    fake_vllm: SimpleNamespace,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    oom: bool,
) -> None:
    import sys

    monkeypatch.setattr(sys.modules["vllm"], "LLM", DyingLLM)
    monkeypatch.setattr(DyingLLM, "healthy", 0)
    monkeypatch.setattr(DyingLLM, "oom", oom)
    engine = VllmLocalEngine("m/ocr")
    outputs = list(engine.run([_page(i) for i in range(4)]))
    llm = FakeLLM.last
    assert llm is not None and len(llm.rendered) <= 4  # each page sent at most once, no retries
    assert engine.dead is not None
    assert {o.error for o in outputs} == {str(engine.dead)}
    if oom:
        cause = "ran out of GPU memory in the vision encoder with "
        assert cause in str(engine.dead) and "max_num_batched_tokens=4096" in str(engine.dead)
    else:  # no memory named: no memory fix (issue 31.4)
        assert DIED.rstrip(".") in str(engine.dead) and "vLLM did not say why" in str(engine.dead)
        assert "ocr-workbench-vllm-" in engine.dead.fix  # where vLLM's errors were kept
        assert "max_num_batched_tokens" not in str(engine.dead)
    sent = len(llm.rendered)
    later = list(engine.run([_page(9)]))  # a later run sends nothing to the dead engine
    assert len(llm.rendered) == sent and later[0].error == str(engine.dead)


@pytest.mark.parametrize(
    ("logged", "said"),
    [
        (RuntimeError("CUDA error: an illegal memory access was encountered"),
         "the vLLM engine died: RuntimeError: CUDA error: an illegal memory access was "
         "encountered"),
        (OutOfMemoryError(OOM), "vLLM ran out of GPU memory in the vision encoder with "),
    ],
    ids=["cuda-error", "oom-in-the-encoder"],
)  # fmt: skip
def test_in_process_death_says_what_the_engine_core_logged(
    fake_vllm: SimpleNamespace,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    logged: BaseException,
    said: str,
) -> None:
    """Issue 29: the cause shown is the one vLLM reported, though only its EngineCore's log
    holds it (``workbench.engines.core_log``), and the fix is the one that cause needs."""
    import sys

    logging.getLogger("vllm.v1.engine.core").error("RuntimeError: an earlier engine's")
    monkeypatch.setattr(sys.modules["vllm"], "LLM", DyingLLM)
    monkeypatch.setattr(DyingLLM, "healthy", 1)
    monkeypatch.setattr(DyingLLM, "logged", logged)
    engine = VllmLocalEngine("m/ocr", concurrency=2)
    outputs = list(engine.run([_page(i) for i in range(4)]))
    assert engine.dead is not None and said in engine.dead.cause
    assert {o.error for o in outputs if o.error} == {str(engine.dead)}
    assert "did not say why" not in str(engine.dead) and "earlier" not in str(engine.dead)
    memory = isinstance(logged, OutOfMemoryError)
    assert ("max_num_batched_tokens=4096" in engine.dead.fix) is memory


def test_an_engine_core_that_failed_to_start_says_why(
    fake_vllm: SimpleNamespace,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Chandra OCR 2 on the H200 (2026-12-06): its EngineCore died at start of a missing
    module, logged in the child; the parent raised only "Engine core initialization failed"."""
    import sys

    class NoStart(FakeLLM):
        def __init__(self, model: str, **kwargs: Any) -> None:
            engine_core_dies(ModuleNotFoundError("No module named 'flashinfer'"), "failed to start")
            raise RuntimeError(
                "Engine core initialization failed. See root cause above. Failed core proc(s): "
                "{'EngineCore_DP0': 1}"
            )

    monkeypatch.setattr(sys.modules["vllm"], "LLM", NoStart)
    with pytest.raises(EngineUnavailable) as raised:
        VllmLocalEngine("m/ocr")
    assert "initialization failed" in str(raised.value)
    assert "(its EngineCore: ModuleNotFoundError: No module named 'flashinfer')" in str(
        raised.value
    )
    assert "gdn_prefill_backend=triton" in str(raised.value)  # and the fix that cause needs


def test_a_missing_flashinfer_gets_its_own_fix_in_process_and_from_a_server() -> None:
    log = (
        "ERROR 12-06 03:08:04 [core.py:1332] EngineCore encountered a fatal error.\n"
        "ERROR 12-06 03:08:04 [core.py:1332] Traceback (most recent call last):\n"
        'ERROR 12-06 03:08:04 [core.py:1332]   File "qwen_gdn_linear_attn.py", line 174\n'
        "ERROR 12-06 03:08:04 [core.py:1332] ModuleNotFoundError: No module named 'flashinfer'\n"
    )
    dead = dead_in_process(EngineDead(DIED), 4, log)
    assert dead is not None and "No module named 'flashinfer'" in dead.cause
    assert "gdn_prefill_backend=triton" in dead.fix and "flashinfer-python" in dead.fix
    assert dead.setting == {}  # not a memory fix
    said = "ModuleNotFoundError: No module named 'flashinfer'\nEngineDeadError: " + DIED
    served = dead_server(said)  # a server's error body: no log prefixes
    assert served is not None and "--gdn-prefill-backend triton" in served.fix


def test_in_process_failures_keep_written_pages_and_a_rerun_completes(
    fake_vllm: SimpleNamespace,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """Issue 25.4: a page that fails, then the engine dying at its second batch: the pages
    written stay, the rest carry the reason; a rerun with a healthy engine completes the run."""
    import sys

    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument.new()
    for _ in range(6):
        pdf.new_page(300, 400)
    path = tmp_path / "six.pdf"
    pdf.save(str(path))
    doc = open_document("six.pdf", path.read_bytes())
    spec = get_spec("lightonai/LightOnOCR-2-1B")
    monkeypatch.setattr(sys.modules["vllm"], "LLM", DyingLLM)
    monkeypatch.setattr(DyingLLM, "healthy", 3)  # three pages are read, then it dies
    out = tmp_path / "run"

    def job_for(engine: VllmLocalEngine) -> RunJob:
        info = run_info(engine, spec, name="run", run_id="run", documents=[doc.info()],
                        dpi=72, source="cli")  # fmt: skip
        return RunJob.start(out, engine, spec, info)

    engine = VllmLocalEngine("m/ocr", concurrency=3)
    job = job_for(engine)
    outcome = run_documents(job, [job.plan(doc)])
    statuses = {p.page: p.status for p in job.writer.info.pages}
    assert statuses == {1: PageStatus.OK, 2: PageStatus.OK, 3: PageStatus.OK,
                        4: PageStatus.ERROR, 5: PageStatus.ERROR, 6: PageStatus.ERROR}  # fmt: skip
    assert outcome.status is RunStatus.PARTIAL
    assert {f.detail for f in outcome.failed} == {str(engine.dead)}
    written = {p: (out / "six" / f"page-000{p}.json").stat().st_mtime_ns for p in (1, 2, 3)}
    engine.close()

    monkeypatch.setattr(sys.modules["vllm"], "LLM", FakeLLM)  # "after the fix"
    healthy = VllmLocalEngine("m/ocr")
    job = job_for(healthy)
    plan = job.plan(doc)
    assert plan.todo == [4, 5, 6]
    assert run_documents(job, [plan]).status is RunStatus.DONE
    assert {p.status for p in job.writer.info.pages} == {PageStatus.OK}
    for p, mtime in written.items():  # finished pages were not rewritten
        assert (out / "six" / f"page-000{p}.json").stat().st_mtime_ns == mtime


def _server_page(i: int) -> PageRequest:
    return PageRequest(key=f"p{i}", image=Image.new("RGB", (60, 40)), prompt="OCR")


def test_a_server_whose_engine_died_gets_nothing_more() -> None:
    replies = [Reply(DIED, status=500, delay=0.3)] + [Reply("x", fault="stall")] * 3
    with FakeOpenAIServer(replies, models=["m"]) as server:
        engine = VllmServerEngine(server.base_url, model="m", concurrency=4, backoff=0.01)
        outputs = list(engine.run([_server_page(i) for i in range(12)]))
        sent = server.completions
    assert engine.dead is not None
    assert sent == 4  # the four in flight; the eight after them were never sent
    assert [o.error for o in outputs] == [str(engine.dead)] * 12  # the stalled ones too
    assert DIED.rstrip(".") in str(engine.dead) and "vLLM did not say why" in str(engine.dead)
    assert "the server's log: the EngineCore traceback" in str(engine.dead)
    assert "max-num-batched-tokens" not in str(engine.dead)  # nothing said memory
    assert isinstance(engine.dead, EngineDeadError)


def test_a_dead_server_then_refusing_fails_at_once_with_the_cause() -> None:
    server = FakeOpenAIServer([Reply(OOM, status=500)], models=["m"]).start()
    engine = VllmServerEngine(server.base_url, model="m", concurrency=1, backoff=0.01)
    [first] = list(engine.run([_server_page(0)]))
    server.stop()  # vllm serve exits: connection refused from now on
    outputs = list(engine.run([_server_page(i) for i in range(1, 4)]))
    assert "vLLM ran out of GPU memory" in (first.error or "")
    assert [o.error for o in outputs] == [first.error] * 3  # not "cannot reach", no wait


def test_a_restarting_server_is_waited_for_and_the_pages_go_on() -> None:
    server = FakeOpenAIServer(models=["m"]).start()
    port = server.port
    engine = VllmServerEngine(server.base_url, model="m", concurrency=2, backoff=0.01)
    [first] = list(engine.run([_server_page(0)]))
    server.stop()
    restarted: list[FakeOpenAIServer] = []

    def restart() -> None:
        time.sleep(1.5)
        restarted.append(FakeOpenAIServer(models=["m"], port=port).start())

    thread = threading.Thread(target=restart)
    thread.start()
    try:
        outputs = list(engine.run([_server_page(i) for i in range(1, 5)]))
    finally:
        thread.join()
        for s in restarted:
            s.stop()
    assert first.ok and all(o.ok for o in outputs), [o.error for o in outputs]
    assert engine.dead is None and restarted[0].completions == 4


def test_the_cli_flag_the_fix_names_reaches_the_engine_args() -> None:
    import argparse

    from workbench.cli.ocr.cmd import register, run_request
    from workbench.settings import Settings

    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    model = "lightonai/LightOnOCR-2-1B"
    args = parser.parse_args(["ocr", "x.pdf", "--out", "o", "--engine", "vllm", "--model", model,
                              "--max-num-batched-tokens", "4096"])  # fmt: skip
    options = run_request(args, Settings()).options
    assert options.engine_args == {"max_num_batched_tokens": 4096}  # type: ignore[union-attr]


def test_a_silent_server_costs_one_idle_wait_not_three() -> None:
    """Issue 25.2: a server that accepts a page and never answers fails it after one idle
    timeout; the transport retries (meant for lost connections and 5xx) do not send it again."""
    with FakeOpenAIServer(models=["m"]) as server:
        server.hang = True
        engine = VllmServerEngine(server.base_url, model="m", idle_timeout=1.0, retries=3)
        started = time.monotonic()
        [out] = list(engine.run([_server_page(0)]))
        took = time.monotonic() - started
        sent = server.completions
    assert sent == 1 and len(out.attempts) == 1
    assert "no answer within 1 s" in (out.error or "")
    assert took < 2.5  # one wait of 1 s (and the watchdog's tick), not three


def test_a_whole_batch_that_raises_is_isolated_page_by_page(
    fake_vllm: SimpleNamespace,  # noqa: F811
) -> None:
    """Issue 25.4: an error that is not a dead engine (every page is bad) stays with its page:
    each page gets its own reason, the engine stays usable."""
    engine = VllmLocalEngine("m/ocr")
    bad = [
        PageRequest(key=f"b{i}", image=Image.new("RGB", (60, 40)), prompt="BAD") for i in range(3)
    ]
    outputs = list(engine.run(bad))
    llm = FakeLLM.last
    assert llm is not None and llm.rendered == []  # vLLM refused each one as it came
    assert all("prompt is longer than max_model_len" in (o.error or "") for o in outputs)
    assert engine.dead is None
    [good] = list(engine.run([_page(1)]))
    assert good.ok


def test_a_500_then_refusals_past_the_restart_wait_is_a_dead_server() -> None:
    """vLLM answers a bare 500 when its engine dies, then exits: after the wait a restart is
    given, the engine is dead and the rest fail at once with that cause."""
    calls: list[int] = []

    def respond(body: dict[str, Any]) -> Reply:
        calls.append(1)
        if len(calls) == 1:
            return Reply("page one")
        threading.Timer(0.1, server.stop).start()  # the server exits after its 500
        return Reply("", status=500)

    server = FakeOpenAIServer(respond=respond, models=["m"]).start()
    engine = VllmServerEngine(
        server.base_url, model="m", concurrency=1, backoff=0.5, reconnect_wait=1.0
    )  # the retry after the 500 comes once the server has exited
    [first] = list(engine.run([_server_page(0)]))
    outputs = list(engine.run([_server_page(i) for i in range(1, 5)]))
    assert first.ok and engine.dead is not None
    assert "the vLLM server died: it answered HTTP 500" in str(engine.dead)
    assert "refused connections for 1 s" in str(engine.dead)
    assert [o.error for o in outputs] == [str(engine.dead)] * 4
    assert len(calls) == 2  # nothing was sent after the 500


ILLEGAL = """Traceback (most recent call last):
  File "vllm/v1/engine/core.py", line 701, in run_engine_core
    engine_core.run_busy_loop()
RuntimeError: CUDA error: an illegal memory access was encountered
CUDA kernel errors might be asynchronously reported at some other API call.
vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace \
(above) for the root cause."""


def test_the_cause_shown_is_the_one_vllm_reported_and_the_fix_is_its_own() -> None:
    """Issue 31.4: the error line before EngineDeadError is the cause; memory is not blamed."""
    served = dead_server(ILLEGAL)
    assert served is not None
    assert served.cause == (
        "the vLLM engine died: RuntimeError: CUDA error: an illegal memory access was encountered"
    )
    assert "max-num-batched-tokens" not in str(served) and served.setting == {}
    assert "restart `vllm serve`" in served.fix
    try:
        try:
            raise RuntimeError("CUDA error: an illegal memory access was encountered")
        except RuntimeError as exc:
            raise EngineDead(DIED) from exc
    except EngineDead as exc:
        dead = dead_in_process(exc, 8)
    assert dead is not None
    assert dead.cause == served.cause  # "RuntimeError: CUDA error: …", as from the server
    assert "max_num_batched_tokens" not in str(dead) and dead.restart_label == "Restart vLLM"


def test_an_engine_core_killed_while_vllm_waits_on_it_ends_the_run_at_once(
    fake_vllm: SimpleNamespace,  # noqa: F811
) -> None:
    """The H200, vLLM 0.26, 2026-12-05: a kill -9 of the EngineCore under a running caller; vLLM
    logged "engine core exited unexpectedly", set its engine_dead flag, and its step() never
    returned: the run had not ended 300 s later. The flag ends it: every page not done gets
    the death, said as what it is (no memory fix), and the engine is rebuilt on next use."""
    FakeLLM.tokens = 50  # 0.1 s a page: the kill lands mid-run
    engine = VllmLocalEngine("m/ocr", {"max_num_seqs": 8})
    llm = FakeLLM.last
    assert llm is not None
    outputs: list[Any] = []
    try:
        run = threading.Thread(
            target=lambda: outputs.extend(engine.run(_page(i) for i in range(40)))
        )
        run.start()
        while len(llm.rendered) < 8:
            time.sleep(0.005)
        killed = time.monotonic()
        llm.die(hang=True)
        run.join(10)
        ended = time.monotonic() - killed
        assert not run.is_alive() and ended < 3  # the watchdog looks every 0.5 s
        assert len(outputs) == 40 and engine.dead is not None
        failed = [o for o in outputs if o.error]
        assert failed and {o.error for o in failed} == {str(engine.dead)}
        assert "engine core exited unexpectedly" in str(engine.dead)
        assert "max_num_batched_tokens" not in str(engine.dead)  # nothing said memory
        started = time.monotonic()
        engine.close()
        assert time.monotonic() - started < 2  # the hung step is not waited for
    finally:
        llm.released.set()


def test_the_cause_is_read_from_a_log_without_vllms_prefixes() -> None:
    from workbench.engines.dead import log_cause

    log = (
        "(EngineCore_DP0 pid=7) ERROR 12-06 03:08:04 [core.py:1332] Traceback (most recent "
        "call last):\n"
        "(EngineCore_DP0 pid=7) ERROR 12-06 03:08:04 [core.py:1332] RuntimeError: CUDA error: "
        "an illegal memory access was encountered\n"
        "ERROR 12-06 03:08:05 [async_llm.py:480] EngineDeadError: EngineCore encountered an "
        "issue. See stack trace (above) for the root cause.\n"
    )
    assert log_cause(log) == "RuntimeError: CUDA error: an illegal memory access was encountered"
    assert log_cause("INFO 12-06 03:08:04 [core.py:1] ValueError: fine, nothing died\n") is None
