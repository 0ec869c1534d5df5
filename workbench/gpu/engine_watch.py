"""vLLM's own numbers over time, beside what the plan predicted (issue 36).

Contract
--------
* :class:`StatsHistory` keeps the last ``maxlen`` :class:`~workbench.engines.stats.EngineStats`
  readings, each with its token rates over the time since the one before; :meth:`rows` is a
  table for a chart, :meth:`summary` what happened between the first reading and the last.
* :func:`engine_stats` reads an engine's ``stats()`` (server or in-process vLLM); an engine
  without one (the CPU engine, a fake) or a reading that fails is None, never an exception.
* :class:`Expected` is the plan's prediction (pages in flight, KV cache tokens);
  :func:`compare` sets it beside what vLLM reported, one :class:`PlanRow` per figure, with a
  note when the two disagree enough to act on (a wrong plan is visible, not silent).
* :class:`Watcher` polls an engine every ``interval`` seconds on a daemon thread while a run
  goes (the CLI's run); :meth:`Watcher.stop` takes a last reading and returns the summary.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from workbench.engines.stats import EngineStats
from workbench.gpu.planner import MemoryPlan


def engine_stats(engine: Any) -> EngineStats | None:
    """``engine.stats()`` when it has one and it answers; None otherwise (never raises)."""
    read = getattr(engine, "stats", None)
    if not callable(read):
        return None
    try:
        found = read()
    except Exception:  # a status reading never fails a run or a sidebar
        return None
    return found if isinstance(found, EngineStats) else None


@dataclass(frozen=True)
class RunSummary:
    """What vLLM did between two readings: peaks of its gauges, differences of its totals."""

    seconds: float
    readings: int
    kv_peak_pct: float | None
    max_running: int
    max_waiting: int
    preemptions: int
    prompt_tokens_per_s: float | None
    generation_tokens_per_s: float | None
    finished: int
    cut_off: int  # answers that ended at max_tokens (finish reason "length")
    ttft_mean: float | None

    def line(self) -> str:
        """One line for a terminal."""
        kv = "?" if self.kv_peak_pct is None else f"{self.kv_peak_pct:.0f}%"
        parts = [
            f"KV cache peak {kv}",
            f"running ≤ {self.max_running}",
            f"waiting ≤ {self.max_waiting}",
            f"{self.preemptions} preemptions",
        ]
        if self.prompt_tokens_per_s is not None and self.generation_tokens_per_s is not None:
            parts.append(
                f"{self.prompt_tokens_per_s:,.0f} prompt + "
                f"{self.generation_tokens_per_s:,.0f} generated tokens/s"
            )
        parts.append(f"{self.cut_off} of {self.finished} answers cut off at max_tokens")
        if self.ttft_mean is not None:
            parts.append(f"first token {self.ttft_mean:.2f} s mean")
        return "vLLM: " + ", ".join(parts)


class StatsHistory:
    """The last ``maxlen`` readings of one engine (module contract). Thread-safe."""

    def __init__(self, maxlen: int = 150) -> None:
        self._readings: deque[EngineStats] = deque(maxlen=maxlen)
        self._first: EngineStats | None = None  # kept past maxlen: the summary's start
        self._peaks = (0.0, 0, 0)  # KV use, running, waiting over every reading
        self._lock = threading.Lock()

    def add(self, reading: EngineStats) -> EngineStats:
        """Keep ``reading`` with its rates since the last one; returns it so rated."""
        with self._lock:
            last = self._readings[-1] if self._readings else None
            if last is not None and reading.at <= last.at:
                return last  # the same moment read twice (two sessions' fragments)
            rated = reading.since(last)
            self._readings.append(rated)
            self._first = self._first or rated
            kv, running, waiting = self._peaks
            self._peaks = (
                max(kv, rated.kv_cache_usage or 0.0),
                max(running, rated.running),
                max(waiting, rated.waiting),
            )
            return rated

    @property
    def latest(self) -> EngineStats | None:
        with self._lock:
            return self._readings[-1] if self._readings else None

    def readings(self) -> list[EngineStats]:
        with self._lock:
            return list(self._readings)

    def rows(self) -> list[dict[str, float | None]]:
        """One row per reading for a chart: time, KV %, running, waiting, tokens/s."""
        return [
            {
                "time": r.at,
                "KV cache %": r.kv_cache_pct,
                "running": r.running,
                "waiting": r.waiting,
                "generated tokens/s": r.generation_tokens_per_s,
            }
            for r in self.readings()
        ]

    def summary(self) -> RunSummary | None:
        """From the first reading to the last; None before two readings."""
        with self._lock:
            first, last = self._first, self._readings[-1] if self._readings else None
            kv, running, waiting = self._peaks
            count = len(self._readings)
        if first is None or last is None or last is first:
            return None
        seconds = last.at - first.at
        finished = {k: v - first.finished.get(k, 0) for k, v in last.finished.items()}
        ttft_n = last.ttft_count - first.ttft_count
        prompt = last.prompt_tokens - first.prompt_tokens
        generated = last.generation_tokens - first.generation_tokens
        return RunSummary(
            seconds=seconds,
            readings=count,
            kv_peak_pct=100.0 * kv if last.kv_cache_usage is not None else None,
            max_running=running,
            max_waiting=waiting,
            preemptions=last.preemptions - first.preemptions,
            prompt_tokens_per_s=prompt / seconds if seconds > 0 and prompt >= 0 else None,
            generation_tokens_per_s=generated / seconds if seconds > 0 and generated >= 0 else None,
            finished=sum(finished.values()),
            cut_off=finished.get("length", 0),
            ttft_mean=(last.ttft_sum - first.ttft_sum) / ttft_n if ttft_n > 0 else None,
        )


@dataclass(frozen=True)
class Expected:
    """What the plan predicted for the engine (None: the plan did not say)."""

    pages_in_flight: int | None = None
    kv_tokens: int | None = None

    @classmethod
    def from_plan(cls, plan: MemoryPlan) -> Expected:
        return cls(plan.pages_in_flight, plan.num_blocks * plan.block_size or None)


@dataclass(frozen=True)
class PlanRow:
    figure: str
    planned: int | None
    reported: int | None
    note: str = ""  # why the difference matters, when it does


def compare(expected: Expected, history: StatsHistory) -> list[PlanRow]:
    """The plan beside what vLLM reported (module contract)."""
    latest = history.latest
    summary = history.summary()
    rows: list[PlanRow] = []
    running = summary.max_running if summary else (latest.running if latest else None)
    preempted = summary.preemptions if summary else 0
    planned = expected.pages_in_flight
    note = ""
    if preempted:
        note = f"{preempted} preemptions: the KV cache does not hold the pages in flight"
    elif planned and running and summary and summary.max_waiting and running < planned:
        note = "pages waited while fewer than planned ran: vLLM's limits are below the plan"
    rows.append(PlanRow("pages in flight (peak running)", planned, running, note))
    reported = latest.kv_tokens if latest else None
    note = ""
    if expected.kv_tokens and reported and abs(reported - expected.kv_tokens) > 0.1 * reported:
        note = f"vLLM's KV cache is {reported / expected.kv_tokens:.2f}× the plan's"
    rows.append(PlanRow("KV cache tokens", expected.kv_tokens, reported, note))
    return rows


class Watcher:
    """Polls ``engine.stats()`` into a :class:`StatsHistory` on a daemon thread."""

    def __init__(self, engine: Any, interval: float = 2.0) -> None:
        self.engine = engine
        self.interval = interval
        self.history = StatsHistory(maxlen=10_000)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, name="engine-watch", daemon=True)

    def _read(self) -> None:
        reading = engine_stats(self.engine)
        if reading is not None:
            self.history.add(reading)

    def _poll(self) -> None:
        while not self._stop.wait(self.interval):
            self._read()

    def start(self) -> Watcher:
        self._read()
        self._thread.start()
        return self

    def stop(self) -> RunSummary | None:
        """Stop polling, take a last reading, and return the summary (None: no vLLM numbers)."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=self.interval + 5)
        self._read()
        return self.history.summary()


@contextmanager
def watching(engine: Any, interval: float = 2.0) -> Iterator[Watcher | None]:
    """A :class:`Watcher` over ``engine`` for the ``with`` block, or None when the engine
    reports no vLLM numbers (then nothing polls)."""
    if engine_stats(engine) is None:
        yield None
        return
    watcher = Watcher(engine, interval).start()
    try:
        yield watcher
    finally:
        watcher._stop.set()
