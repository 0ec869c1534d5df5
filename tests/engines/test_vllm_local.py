"""VllmLocalEngine: the code path against a fake ``vllm`` that schedules like vLLM's engine
(:mod:`tests.fakes.fake_vllm`), and the real thing on a GPU."""

from __future__ import annotations

import gc
import importlib.util
import os
import sys
import threading
import time
import types
import weakref
from collections.abc import Iterator
from functools import partial
from types import SimpleNamespace
from typing import Any

import pytest
from PIL import Image, ImageDraw

from tests.fakes import fake_vllm as fv
from tests.fakes.fake_vllm import FakeLLM
from workbench.engines.base import Engine, PageRequest, streams, watchable
from workbench.engines.dead import known_fix
from workbench.engines.gate import RESERVE
from workbench.engines.llm import INSTALL_HINT
from workbench.engines.load_cause import inspection_cause
from workbench.engines.vllm_local import VllmLocalEngine
from workbench.errors import CANCELLED, EngineUnavailable
from workbench.schema import Sampling


@pytest.fixture
def fake_vllm(monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    cleanups = SimpleNamespace(count=0)

    def cleanup() -> None:
        cleanups.count += 1

    distributed = types.ModuleType("vllm.distributed")
    parallel_state = types.ModuleType("vllm.distributed.parallel_state")
    parallel_state.cleanup_dist_env_and_memory = cleanup  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "vllm", fv.module())
    monkeypatch.setitem(sys.modules, "vllm.distributed", distributed)
    monkeypatch.setitem(sys.modules, "vllm.distributed.parallel_state", parallel_state)
    monkeypatch.setattr(FakeLLM, "tokens", 4)
    monkeypatch.setattr(FakeLLM, "step_s", 0.002)
    return cleanups


def _page(i: int, prompt: str = "OCR", **kw: Any) -> PageRequest:
    return PageRequest(key=f"p{i}", image=Image.new("RGB", (50 + i, 40)), prompt=prompt, **kw)


def test_without_vllm_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "vllm", None)  # makes `import vllm` raise ImportError
    with pytest.raises(EngineUnavailable) as info:
        VllmLocalEngine("some/model")
    assert str(info.value) == INSTALL_HINT


def test_engine_args_and_what_vllm_chose(fake_vllm: SimpleNamespace) -> None:
    engine = VllmLocalEngine("m/ocr", {"gpu_memory_utilization": 0.8, "max_num_seqs": 64})
    assert isinstance(engine, Engine)
    llm = FakeLLM.last
    assert llm is not None and llm.model == "m/ocr"
    assert llm.kwargs == {
        "max_model_len": -1,
        "scheduling_policy": "priority",  # a newcomer's page before another run's backlog
        "disable_log_stats": False,  # LLM.get_metrics() for stats()
        "gpu_memory_utilization": 0.8,
        "max_num_seqs": 64,
    }
    assert engine.actual == {
        "max_model_len": 32768,
        "num_gpu_blocks": 2000,
        "block_size": 16,
        "kv_tokens": 32000,
    }
    described = engine.describe()
    assert described["max_model_len"] == "32768" and described["kv_tokens"] == "32000"
    assert described["gpu_memory_utilization"] == "0.8"
    # max_num_seqs, less the slots kept for a newcomer
    assert engine.concurrency == 64 - RESERVE and described["pages in flight"] == str(64 - RESERVE)
    VllmLocalEngine("m/ocr", {"max_model_len": 4096}, max_model_len=8192)
    assert FakeLLM.last is not None and FakeLLM.last.kwargs["max_model_len"] == 8192


def test_load_failure_is_engine_unavailable(fake_vllm: SimpleNamespace) -> None:
    with pytest.raises(EngineUnavailable, match="could not load m/ocr: gpu_memory_utilization"):
        VllmLocalEngine("m/ocr", {"gpu_memory_utilization": 1.5})


def test_a_failing_page_does_not_sink_the_batch(fake_vllm: SimpleNamespace) -> None:
    engine = VllmLocalEngine("m/ocr")
    outputs = {o.key: o for o in engine.run([_page(0), _page(1, "BAD"), _page(2)])}
    assert outputs["p0"].ok and outputs["p2"].ok
    assert "prompt is longer than max_model_len" in (outputs["p1"].error or "")


def test_close_releases_and_is_idempotent(fake_vllm: SimpleNamespace) -> None:
    engine = VllmLocalEngine("m/ocr")
    llm = FakeLLM.last
    assert llm is not None
    alive = weakref.ref(llm)
    FakeLLM.last = None
    del llm
    engine.close()
    gc.collect()
    assert alive() is None  # the engine no longer holds the LLM
    assert fake_vllm.count == 1
    engine.close()
    assert fake_vllm.count == 1
    [out] = list(engine.run([_page(0)]))
    assert out.error == "the vLLM engine was closed"


def test_close_calls_engine_core_shutdown(fake_vllm: SimpleNamespace) -> None:
    engine = VllmLocalEngine("m/ocr")
    llm = FakeLLM.last
    assert llm is not None
    engine.close()
    engine.close()
    assert llm.shutdowns == 1


def _counted(pages: list[PageRequest], pulled: list[str]) -> Iterator[PageRequest]:
    for page in pages:
        pulled.append(page.key)
        yield page


def test_it_streams_and_sends_each_page_with_its_sampling(fake_vllm: SimpleNamespace) -> None:
    engine = VllmLocalEngine("m/ocr")
    assert streams(engine) and watchable(engine) and isinstance(engine, Engine)
    sampling = Sampling(temperature=0.1, top_p=0.9, max_tokens=900, extra={"top_k": 5})
    outputs = {o.key: o for o in engine.run(_page(i, sampling=sampling) for i in range(6))}
    llm = FakeLLM.last
    assert llm is not None and llm.llm_engine.steps >= 4
    assert len(llm.rendered) == 6  # one enqueue_chat a page
    for i in range(6):
        out = outputs[f"p{i}"]
        assert out.ok and out.raw == f"width {50 + i}" and out.tokens == 4
        assert len(out.attempts) == 1 and out.attempts[0].finish_reason == "stop"


def test_pages_come_back_one_by_one_while_the_rest_are_in_vllm(fake_vllm: SimpleNamespace) -> None:
    FakeLLM.tokens = 3
    engine = VllmLocalEngine("m/ocr", {"max_num_seqs": 4})
    pulled: list[str] = []
    pulled_at_first = None
    outputs = []
    for out in engine.run(_counted([_page(i) for i in range(40)], pulled)):
        if pulled_at_first is None:
            pulled_at_first = len(pulled)
        outputs.append(out)
    assert len(outputs) == 40 and all(o.ok for o in outputs)
    # the first page was yielded when it finished, not when the 40th did: only the slots'
    # worth (4, and the one pulled for the slot it freed) had been pulled by then
    assert pulled_at_first is not None and pulled_at_first <= 4 + 1
    llm = FakeLLM.last
    assert llm is not None and llm.llm_engine.most_running <= 4  # never past the slots


def test_a_looping_page_is_sent_again_hotter_in_its_slot(fake_vllm: SimpleNamespace) -> None:
    retry = (Sampling(temperature=0.3, top_p=0.95),)
    pages = [_page(i, "LOOP" if i in (1, 3) else "OCR", retry_sampling=retry) for i in range(5)]
    engine = VllmLocalEngine("m/ocr")
    outputs = {o.key: o for o in engine.run(pages)}
    llm = FakeLLM.last
    assert llm is not None and len(llm.rendered) == 7  # five pages, two of them twice
    for key in ("p1", "p3"):
        assert [(a.temperature, a.repeated) for a in outputs[key].attempts] == [
            (0.0, True),
            (0.3, False),
        ]
        assert outputs[key].raw.startswith("width")
    assert len(outputs["p0"].attempts) == 1


def test_chat_template_kwargs_go_with_their_page(fake_vllm: SimpleNamespace) -> None:
    engine = VllmLocalEngine("m/ocr")
    thinking = {"enable_thinking": False}
    list(engine.run([_page(0), _page(1, chat_template_kwargs=thinking), _page(2)]))
    llm = FakeLLM.last
    assert llm is not None and llm.rendered == [None, thinking, None]


def _second_caller(engine: VllmLocalEngine, long: int, after: int = 0) -> dict[str, Any]:
    """Caller A runs ``long`` pages; once A fills the slots (and has ``after`` pages back),
    caller B asks for one page."""
    seen: dict[str, Any] = {"a_done": 0}
    started = threading.Event()

    def caller_a() -> None:
        for out in engine.run(_page(i) for i in range(long)):
            seen["a_done"] += 1
            started.set()
            seen.setdefault("a_last", out)

    thread = threading.Thread(target=caller_a)
    thread.start()
    deadline = time.monotonic() + 10

    def filled() -> bool:  # A holds every slot (unpaced: and vLLM holds every page of A's)
        paced = engine._loop.pace_tokens is not None
        return engine._gate.held >= engine.concurrency and (
            paced or engine.unfinished() >= engine.concurrency
        )

    while not filled() and not started.is_set():
        assert time.monotonic() < deadline
        time.sleep(0.001)
    while seen["a_done"] < after:
        assert time.monotonic() < deadline
        time.sleep(0.001)
    t0 = time.monotonic()
    [b] = list(engine.run([PageRequest(key="b", image=Image.new("RGB", (999, 40)), prompt="OCR")]))
    seen["b_s"], seen["b"], seen["a_at_b"] = time.monotonic() - t0, b, seen["a_done"]
    llm = FakeLLM.last
    assert llm is not None
    seen["b_id"] = next(i for i, text in llm.texts.items() if text == "width 999")
    seen["thread"] = thread
    return seen


def test_a_second_caller_is_not_queued_behind_the_first(fake_vllm: SimpleNamespace) -> None:
    FakeLLM.tokens = 5
    engine = VllmLocalEngine("m/ocr", {"max_num_seqs": 8})
    seen = _second_caller(engine, 200)
    seen["thread"].join(30)
    assert seen["b"].ok and seen["b"].raw == "width 999"
    # B's one page came back while A had most of its 200 still to do: it got a slot within
    # the next few that freed, not after A's pages
    assert seen["a_at_b"] < 40
    alone_s = FakeLLM.tokens * FakeLLM.step_s
    assert seen["a_done"] == 200 and seen["b_s"] < 200 * alone_s  # far from A's whole run


@pytest.mark.parametrize(
    ("policy", "paced"), [("priority", True), ("fcfs", True), ("priority", False)]
)
def test_a_newcomers_page_is_prefilled_before_another_runs_backlog(
    fake_vllm: SimpleNamespace, monkeypatch: pytest.MonkeyPatch, policy: str, paced: bool
) -> None:
    """As measured on the H200 (vLLM 0.26): a one-page caller asked right after a 200-page
    caller took every slot waited 47 s (FCFS), and 60.6 s with priority scheduling: vLLM had
    made every page it was given *running* and runs those before any newer page. Paced (the
    loop adds pages no faster than vLLM prefills them, the newcomer's first), its page is
    prefilled after a few of the other caller's, whatever vLLM's policy."""
    monkeypatch.setattr(FakeLLM, "tokens", 5)
    monkeypatch.setattr(FakeLLM, "prefill_steps", 3)
    monkeypatch.setattr(FakeLLM, "prefill_per_step", 2)  # vLLM's token budget: a backlog
    engine = VllmLocalEngine("m/ocr", {"max_num_seqs": 64, "scheduling_policy": policy})
    if not paced:
        engine._loop.pace_tokens = None
    llm = FakeLLM.last
    assert llm is not None and engine.concurrency == 64 - RESERVE
    seen = _second_caller(engine, 200)
    seen["thread"].join(60)
    assert seen["b"].ok and seen["a_done"] == 200
    a_before_b = llm.llm_engine.finished.index(seen["b_id"])
    if paced:
        assert a_before_b < 12  # a few of A's pages were already prefilled: nothing more
    else:
        assert a_before_b >= engine.concurrency - 8  # behind the whole backlog, as measured


@pytest.mark.parametrize("paced", [True, False])
def test_pages_reach_vllm_no_faster_than_it_prefills_them(
    fake_vllm: SimpleNamespace, monkeypatch: pytest.MonkeyPatch, paced: bool
) -> None:
    """Paced, vLLM holds two steps of prefill at most (the fake's step prefills two thirds of
    a page: two pages waiting), not every page in flight; and the run takes no more steps."""
    monkeypatch.setattr(FakeLLM, "tokens", 5)
    monkeypatch.setattr(FakeLLM, "prefill_steps", 3)
    monkeypatch.setattr(FakeLLM, "prefill_per_step", 2)
    engine = VllmLocalEngine("m/ocr", {"max_num_seqs": 64})
    if not paced:
        engine._loop.pace_tokens = None
    llm = FakeLLM.last
    assert llm is not None
    outputs = list(engine.run(_page(i) for i in range(60)))
    assert len(outputs) == 60 and all(o.ok for o in outputs)
    if paced:
        assert llm.llm_engine.most_unprefilled <= 2
        # prefill bounds the run either way: 60 pages x 3 steps / 2 a step, and the last decodes
        assert llm.llm_engine.steps <= 60 * 3 / 2 * 1.1 + FakeLLM.tokens + 2
    else:
        assert llm.llm_engine.most_unprefilled >= 20


@pytest.mark.parametrize("hold", [True, False])
def test_a_newcomers_page_decodes_without_the_other_runs_prefills(
    fake_vllm: SimpleNamespace, monkeypatch: pytest.MonkeyPatch, hold: bool
) -> None:
    """On the H100 (vLLM 0.26, paced): a one-page caller beside a 200-page caller took 16.8 s,
    35.9x alone, because each of its decode steps also carried the other caller's prefill
    chunk. While its page is in vLLM the loop adds none of the other run's pages (held, A's
    pages still decode), so its steps carry no prefill once A's already added are done."""
    monkeypatch.setattr(FakeLLM, "tokens", 30)
    monkeypatch.setattr(FakeLLM, "prefill_steps", 3)
    monkeypatch.setattr(FakeLLM, "prefill_per_step", 2)
    engine = VllmLocalEngine("m/ocr", {"max_num_seqs": 64})
    if not hold:
        engine._loop.hold_s = 0.0
    llm = FakeLLM.last
    assert llm is not None and engine._loop.pace_tokens is not None
    seen = _second_caller(engine, 120, after=5)
    seen["thread"].join(60)
    assert seen["b"].ok and seen["a_done"] == 120
    crowded = llm.llm_engine.crowded.get(seen["b_id"], 0)
    if hold:
        assert crowded <= 3  # only A's pages already added finish their prefill
    else:
        assert crowded >= FakeLLM.tokens - 5  # as measured: nearly every decode step shared


def test_a_newcomers_hold_on_the_others_is_bounded(
    fake_vllm: SimpleNamespace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A newcomer's page that decodes longer than the hold lets the other run's pages in
    again: a stream of newcomers slows a long run, never stops it."""
    monkeypatch.setattr(FakeLLM, "prefill_steps", 3)
    monkeypatch.setattr(FakeLLM, "prefill_per_step", 2)
    monkeypatch.setattr(FakeLLM, "tokens", 5)
    engine = VllmLocalEngine("m/ocr", {"max_num_seqs": 64})
    engine._loop.hold_s = 0.05
    llm = FakeLLM.last
    assert llm is not None
    llm.tokens = 400  # B's page decodes far longer than the hold
    b_thread = threading.Thread(target=lambda: list(engine.run([_page(999)])))
    b_thread.start()
    while not llm.llm_engine.queue:
        time.sleep(0.001)
    llm.tokens = 5
    t0 = time.monotonic()
    a = list(engine.run(_page(i) for i in range(20)))
    a_s = time.monotonic() - t0
    assert len(a) == 20 and all(o.ok for o in a)
    assert llm.llm_engine.queue  # A's 20 pages all came back while B's page still decoded
    b_thread.join(30)
    assert a_s > 0.05  # held at first


def test_pacing_holds_back_prefills_only_not_pages_decoding(
    fake_vllm: SimpleNamespace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """vLLM's offline path reports a request only when it finishes (FINAL_ONLY), so a page's
    first token is read from vLLM's output processor: paced, the pages already prefilled keep
    decoding side by side up to the slots. Read from the finished outputs alone, vLLM held 5
    to 7 pages on the H200 while the plan allowed 181 (results-2026-12-05b.md)."""
    monkeypatch.setattr(FakeLLM, "tokens", 40)  # long answers: many pages decode at once
    monkeypatch.setattr(FakeLLM, "prefill_steps", 3)
    monkeypatch.setattr(FakeLLM, "prefill_per_step", 2)
    engine = VllmLocalEngine("m/ocr", {"max_num_seqs": 64})
    llm = FakeLLM.last
    assert llm is not None and engine._loop.pace_tokens is not None
    outputs = list(engine.run(_page(i) for i in range(80)))
    assert len(outputs) == 80 and all(o.ok for o in outputs)
    assert llm.llm_engine.most_unprefilled <= 2  # still paced
    assert llm.llm_engine.most_running >= 20  # and many pages decode together
    assert not llm.llm_engine.output_processor.request_states  # every state gone at its end


def test_cancel_aborts_one_callers_pages_in_vllm_at_once(fake_vllm: SimpleNamespace) -> None:
    # B takes a newcomer's slot at once (the reserve: 64 > 2 x RESERVE) and holds A's next
    # pages back; A's pages already in vLLM are still decoding at the Cancel
    engine = VllmLocalEngine("m/ocr", {"max_num_seqs": 64})
    llm = FakeLLM.last
    assert llm is not None
    llm.tokens = 500
    a_out: list[Any] = []
    a = threading.Thread(target=lambda: a_out.extend(engine.run(_page(i) for i in range(100))))
    a.start()
    deadline = time.monotonic() + 10
    while engine.unfinished() < 8 and time.monotonic() < deadline:
        time.sleep(0.005)
    llm.tokens = 50
    b_out: list[Any] = []
    b_page = PageRequest(key="b0", image=Image.new("RGB", (77, 40)), prompt="OCR")
    b = threading.Thread(target=lambda: b_out.extend(engine.run([b_page])))
    b.start()
    while not any(p.key == "b0" for p in engine.in_flight()) and time.monotonic() < deadline:
        time.sleep(0.005)
    engine.cancel([f"p{i}" for i in range(100)])
    t0 = time.monotonic()
    while engine.unfinished() > 1 and time.monotonic() - t0 < 1.0:
        time.sleep(0.005)
    assert engine.unfinished() <= 1  # within a second vLLM holds only B's page
    a.join(10)
    b.join(10)
    assert len(a_out) == 100 and all(o.ok or o.error == CANCELLED for o in a_out)
    assert sum(o.error == CANCELLED for o in a_out) >= 80
    assert [o.raw for o in b_out] == ["width 77"]
    assert len(llm.llm_engine.aborted) >= 1


def test_a_caller_that_stops_reading_takes_its_pages_out(fake_vllm: SimpleNamespace) -> None:
    FakeLLM.tokens = 30
    engine = VllmLocalEngine("m/ocr", {"max_num_seqs": 6})
    outputs = engine.run(_page(i) for i in range(50))
    next(outputs)
    outputs.close()
    deadline = time.monotonic() + 2
    while engine.unfinished() and time.monotonic() < deadline:
        time.sleep(0.005)
    assert engine.unfinished() == 0 and engine.in_flight() == []
    [again] = list(engine.run([_page(9)]))  # and its slots are free again
    assert again.ok


def test_a_dead_engine_fails_every_page_at_once_and_takes_no_more(
    fake_vllm: SimpleNamespace,
) -> None:
    FakeLLM.tokens = 20
    engine = VllmLocalEngine("m/ocr", {"max_num_seqs": 4})
    llm = FakeLLM.last
    assert llm is not None
    outputs = []
    for out in engine.run(_page(i) for i in range(30)):
        outputs.append(out)
        if len(outputs) == 2:
            llm.die()
    assert len(outputs) == 30
    assert sum(o.ok for o in outputs) >= 2
    failed = [o for o in outputs if not o.ok]
    assert failed and len({o.error for o in failed}) == 1  # one message for all
    assert engine.dead is not None and "EngineCore encountered an issue" in str(engine.dead)
    rendered = len(llm.rendered)
    [late] = list(engine.run([_page(99)]))
    assert late.error == str(engine.dead) and len(llm.rendered) == rendered  # nothing sent


def test_concurrency_is_the_plans_when_given(fake_vllm: SimpleNamespace) -> None:
    engine = VllmLocalEngine("m/ocr", {"max_num_seqs": 256}, concurrency=5)
    FakeLLM.tokens = 3
    assert len(list(engine.run(_page(i) for i in range(30)))) == 30
    llm = FakeLLM.last
    assert engine.concurrency == 5 and llm is not None and llm.llm_engine.most_running <= 5


def test_many_callers_at_once_each_get_every_page_once(fake_vllm: SimpleNamespace) -> None:
    engine = VllmLocalEngine("m/ocr", {"max_num_seqs": 7})
    results: dict[int, list[str]] = {}

    def caller(n: int) -> None:
        results[n] = sorted(o.key for o in engine.run(_page(i) for i in range(n, n + 25)))

    threads = [threading.Thread(target=caller, args=(n * 100,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    for n, keys in results.items():
        assert keys == sorted(f"p{i}" for i in range(n, n + 25))
    assert len(results) == 6 and engine.unfinished() == 0
    assert engine._gate.held == 0  # every slot given back


def _has_vllm_and_gpu() -> bool:
    if importlib.util.find_spec("vllm") is None or importlib.util.find_spec("torch") is None:
        return False
    import torch

    return bool(torch.cuda.is_available())


@pytest.mark.vllm
@pytest.mark.skipif(not _has_vllm_and_gpu(), reason="needs the vllm package and a CUDA GPU")
def test_real_vllm_reads_a_page_and_frees_memory() -> None:
    import torch

    model = os.environ.get("WORKBENCH_VLLM_TEST_MODEL", "lightonai/LightOnOCR-2-1B")
    image = Image.new("RGB", (800, 300), "white")
    ImageDraw.Draw(image).text((40, 120), "INVOICE 2024-117", fill="black", font_size=48)
    free_before = torch.cuda.mem_get_info()[0]
    engine = VllmLocalEngine(
        model,
        {"gpu_memory_utilization": 0.5, "max_num_seqs": 4, "enforce_eager": True},
        max_model_len=8192,
    )
    try:
        assert engine.actual["max_model_len"] == 8192
        assert (engine.actual["num_gpu_blocks"] or 0) > 0
        [out] = list(engine.run([PageRequest(key="p", image=image, sampling=Sampling(0.1))]))
        assert out.ok and "2024" in out.raw
    finally:
        engine.close()
    assert torch.cuda.mem_get_info()[0] > free_before - 2 * 2**30  # at most 2 GiB kept


def test_a_verdict_on_the_death_that_fails_still_answers_every_page(
    fake_vllm: SimpleNamespace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reading the cause (a log, an exception chain) is code too: if it raises, the pages in
    flight still get the death, never a caller waiting for good."""
    import workbench.engines.vllm_local as local

    def broken_verdict(exc: BaseException, pages: int, log: str = "") -> Any:
        raise UnicodeDecodeError("utf-8", b"", 0, 1, "a log that cannot be read")

    monkeypatch.setattr(local, "dead_in_process", broken_verdict)
    engine = VllmLocalEngine("m/ocr")
    llm = FakeLLM.last
    assert llm is not None

    def dead_step() -> list[Any]:
        raise fv.EngineDeadError("EngineCore encountered an issue. See stack trace (above).")

    llm.llm_engine.step = dead_step  # type: ignore[method-assign]
    done: list[Any] = []
    caller = threading.Thread(target=lambda: done.extend(engine.run(_page(i) for i in range(3))))
    caller.start()
    caller.join(10)
    assert not caller.is_alive()
    assert len(done) == 3 and all("EngineDeadError" in (o.error or "") for o in done)
    engine.close()


def test_pages_sent_while_the_engine_dies_are_answered_not_lost(
    fake_vllm: SimpleNamespace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page handed to the loop while it was failing the pages in flight was queued where
    nobody read it, and its caller waited for good (seen once under CI's load). The verdict
    on the death is made slow here, so callers keep sending pages while it is made."""
    import workbench.engines.vllm_local as local

    verdict = local.dead_in_process

    def slow_verdict(exc: BaseException, pages: int, log: str = "", path: str = "") -> Any:
        time.sleep(0.2)
        return verdict(exc, pages, log, path)

    monkeypatch.setattr(local, "dead_in_process", slow_verdict)
    engine = VllmLocalEngine("m/ocr", {"max_num_seqs": 256})
    llm = FakeLLM.last
    assert llm is not None

    def dead_step() -> list[Any]:  # the EngineCore is gone: the next step raises
        raise fv.EngineDeadError("EngineCore encountered an issue. See stack trace (above).")

    llm.llm_engine.step = dead_step  # type: ignore[method-assign]
    done: list[Any] = []

    def prepared(n: int) -> Iterator[PageRequest]:
        for i in range(30):
            time.sleep(0.01)  # pages are prepared while others are in the engine
            yield _page(n * 100 + i)

    def caller(n: int) -> None:
        done.extend(engine.run(prepared(n)))

    callers = [threading.Thread(target=caller, args=(n,), daemon=True) for n in range(4)]
    for thread in callers:
        thread.start()
    for thread in callers:
        thread.join(10)
        assert not thread.is_alive()  # every caller got an answer for every page
    assert len(done) == 120 and {o.error for o in done} == {str(engine.dead)}
    engine.close()


def test_vllm_017s_llm_without_enqueue_chat_takes_the_same_pages(
    fake_vllm: SimpleNamespace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Chandra's launcher pins vLLM 0.17, whose LLM has no enqueue_chat: the loop renders and
    adds each chat with the two steps 0.17's own LLM.chat takes."""
    monkeypatch.setattr(sys.modules["vllm"], "LLM", fv.FakeLLM017)
    engine = VllmLocalEngine("m/ocr")
    thinking = {"enable_thinking": False}
    pages = [_page(0), _page(1, chat_template_kwargs=thinking), _page(2, "BAD")]
    outputs = {o.key: o for o in engine.run(pages)}
    assert outputs["p0"].raw == "width 50" and outputs["p1"].raw == "width 51"
    assert "prompt is longer than max_model_len" in (outputs["p2"].error or "")
    llm = FakeLLM.last
    assert isinstance(llm, fv.FakeLLM017) and llm.rendered == [None, thinking]


def test_resize_changes_the_pages_in_flight_from_now_on(fake_vllm: SimpleNamespace) -> None:
    engine = VllmLocalEngine("m/ocr", {"max_num_seqs": 64})
    engine.resize(3)
    outs = list(engine.run(_page(i) for i in range(10)))
    llm = FakeLLM.last
    assert llm is not None and len(outs) == 10
    assert engine.concurrency == 3 and llm.llm_engine.most_running <= 3


def test_a_model_vllm_could_not_inspect_names_the_import_that_failed(
    fake_vllm: SimpleNamespace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Chandra OCR 2 on the H100, 2026-12-06: vLLM said only "failed to be inspected. Please
    check the logs"; importing the class through its registry gave the missing module."""
    said = (
        "1 validation error for ModelConfig\n  Value error, Model architectures "
        "['Qwen3_5ForConditionalGeneration'] failed to be inspected. Please check the logs "
        "for more details."
    )

    class Lazy:
        def load_model_cls(self) -> None:
            raise ModuleNotFoundError("No module named 'compressed_tensors'")

    import workbench.engines.llm as llm

    registry = SimpleNamespace(models={"Qwen3_5ForConditionalGeneration": Lazy()})
    monkeypatch.setattr(llm, "inspection_cause", partial(inspection_cause, registry=registry))

    import pydantic

    class ModelConfig(pydantic.BaseModel):  # vLLM's config classes are pydantic's
        model: str

        @pydantic.field_validator("model")
        @classmethod
        def inspect(cls, value: str) -> str:
            raise ValueError(said.split("Value error, ")[1])

    def refuse(*args: Any, **kwargs: Any) -> None:
        ModelConfig(model=kwargs.get("model", ""))

    monkeypatch.setattr(sys.modules["vllm"], "LLM", refuse)
    with pytest.raises(EngineUnavailable) as caught:
        VllmLocalEngine("datalab-to/chandra-ocr-2")
    message = str(caught.value)
    assert message.startswith(
        "vLLM could not load datalab-to/chandra-ocr-2: ModelConfig: Model architectures "
        "['Qwen3_5ForConditionalGeneration'] failed to be inspected."
    )
    assert "(importing the model's code: ModuleNotFoundError: No module named " in message
    assert "pip install compressed-tensors" in message
    assert "errors.pydantic.dev" not in message and "input_value" not in message
    # a message that is not an inspection failure asks nothing of the registry
    assert inspection_cause("gpu_memory_utilization must be <= 1", registry=registry) is None
    fine = SimpleNamespace(models={"Qwen3_5ForConditionalGeneration": SimpleNamespace(
        load_model_cls=lambda: object)})  # fmt: skip
    assert inspection_cause(said, registry=fine) is None
    assert known_fix("ValueError: bad value", "in-process") is None
