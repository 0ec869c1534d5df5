"""gpu/engine_watch.py: readings over time, a run's summary, the plan beside vLLM's numbers."""

from __future__ import annotations

import itertools
from typing import Any

from workbench.engines.stats import EngineStats
from workbench.gpu.engine_watch import (
    Expected,
    StatsHistory,
    Watcher,
    compare,
    engine_stats,
    watching,
)
from workbench.gpu.planner import plan_memory
from workbench.gpu.profiles import get_profile
from workbench.models.registry import get_spec


def reading(at: float, **kw: Any) -> EngineStats:
    values: dict[str, Any] = {
        "kv_cache_usage": 0.1, "running": 1, "waiting": 0, "preemptions": 0,
        "prompt_tokens": 0, "generation_tokens": 0,
    }  # fmt: skip
    values.update(kw)
    return EngineStats(at, "server", **values)


def test_the_history_rates_each_reading_and_sums_up_the_run() -> None:
    history = StatsHistory(maxlen=2)
    history.add(reading(0.0, finished={"stop": 5}, preemptions=1, ttft_count=5, ttft_sum=1.0))
    mid = history.add(
        reading(2.0, kv_cache_usage=0.9, running=40, waiting=7, generation_tokens=400)
    )
    assert mid.generation_tokens_per_s == 200.0
    assert history.add(reading(2.0)) is mid  # the same moment twice: kept once
    history.add(
        reading(4.0, generation_tokens=1000, prompt_tokens=4000, preemptions=3,
                finished={"stop": 9, "length": 2}, ttft_count=11, ttft_sum=4.0)
    )  # fmt: skip
    assert len(history.readings()) == 2  # maxlen; the summary still starts at the first
    summary = history.summary()
    assert summary is not None
    assert (summary.kv_peak_pct, summary.max_running, summary.max_waiting) == (90.0, 40, 7)
    assert (summary.preemptions, summary.finished, summary.cut_off) == (2, 6, 2)
    assert (summary.generation_tokens_per_s, summary.prompt_tokens_per_s) == (250.0, 1000.0)
    assert summary.ttft_mean == 0.5
    line = summary.line()
    assert "KV cache peak 90%" in line and "2 of 6 answers cut off" in line
    assert [row["running"] for row in history.rows()] == [40, 1]


def test_one_reading_is_no_summary() -> None:
    history = StatsHistory()
    history.add(reading(1.0))
    assert history.summary() is None


def test_the_plan_is_set_beside_what_vllm_reports() -> None:
    plan = plan_memory(get_spec("lightonai/LightOnOCR-2-1B"), get_profile("h100-h200"), 80 << 30)
    expected = Expected.from_plan(plan)
    assert expected.kv_tokens == plan.num_blocks * plan.block_size
    assert expected.pages_in_flight == plan.pages_in_flight
    history = StatsHistory()
    history.add(reading(0.0, kv_tokens=expected.kv_tokens))
    history.add(reading(1.0, running=plan.pages_in_flight, kv_tokens=expected.kv_tokens))
    rows = compare(expected, history)
    assert [(r.planned, r.reported, r.note) for r in rows] == [
        (plan.pages_in_flight, plan.pages_in_flight, ""),
        (expected.kv_tokens, expected.kv_tokens, ""),
    ]
    # A wrong plan: half the KV cache, pages preempted, fewer running while others wait.
    half = (expected.kv_tokens or 0) // 2
    history.add(reading(2.0, running=3, waiting=9, preemptions=4, kv_tokens=half))
    pages, kv = compare(expected, history)
    assert "4 preemptions" in pages.note
    assert kv.reported == half and "0.50× the plan's" in kv.note
    waited = StatsHistory()
    waited.add(reading(0.0))
    waited.add(reading(1.0, running=3, waiting=9))
    assert "fewer than planned" in compare(Expected(pages_in_flight=8), waited)[0].note


class Scripted:
    """An engine whose stats() walks through readings (then keeps the last)."""

    def __init__(self) -> None:
        self.clock = itertools.count()

    def stats(self) -> EngineStats:
        t = float(next(self.clock))
        return reading(t, generation_tokens=int(100 * t), finished={"length": int(t)})


class Broken:
    def stats(self) -> EngineStats:
        raise RuntimeError("the server went away mid-read")


def test_readings_never_raise_and_a_watcher_sums_up() -> None:
    assert engine_stats(Broken()) is None and engine_stats(object()) is None
    with watching(object()) as none:
        assert none is None  # not vLLM: nothing polls
    watcher = Watcher(Scripted(), interval=0.01).start()
    summary = watcher.stop()
    assert summary is not None and summary.cut_off >= 1
    assert summary.generation_tokens_per_s == 100.0
