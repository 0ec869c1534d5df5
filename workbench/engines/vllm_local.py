"""Engine ``vllm``: one ``vllm.LLM`` in this process, shared by every caller, page by page.

Contract
--------
* ``engine_args`` are passed to ``vllm.LLM`` as given (the GPU profiles and memory planner
  compute them); ``max_model_len`` defaults to ``-1`` (vLLM fits the largest that the KV
  cache allows). What vLLM actually chose is read back into :attr:`VllmLocalEngine.actual`
  (``max_model_len``, ``num_gpu_blocks``, ``block_size``, ``kv_tokens``) and ``describe()``.
  Before any page it warms vLLM's sampler for ``samplings`` (:mod:`workbench.engines.warm`).
* It streams and is watchable (:mod:`workbench.engines.base`): :meth:`run` takes any
  iterable, pulls a page only when it holds one of the engine's ``concurrency`` slots, adds it
  to vLLM at once (:class:`~workbench.engines.loop.EngineLoop`, one thread driving the
  engine) and yields each page the step vLLM finishes it, in any order. ``concurrency`` is
  the plan's pages in flight (what the KV cache holds at once), else vLLM's ``max_num_seqs``.
* **Shared**: any number of :meth:`run` calls, from any threads (Viewer sessions, Batch, the
  CLI), share the one engine and its slots (:class:`~workbench.engines.gate.Gate`): each run
  waits for one slot at a time in a first-come queue, so the free slots go to the runs in
  turn, and a run with nothing in flight takes one of :data:`RESERVE` slots kept for
  newcomers. Inside vLLM the engine runs with ``scheduling_policy="priority"`` (unless the
  caller chose another) and each page goes with the number of its run's pages already in
  vLLM as its priority, so a newcomer's page is prefilled before the backlog of another run
  (measured on the H200 with vLLM 0.26, FCFS: a one-page caller waited 47 s behind a
  200-page caller's prefills; ``benchmarks/gpu_inprocess_results.md``). Pages are added to
  vLLM no faster than it prefills them, the lowest priority first (the loop's pacing,
  :data:`~workbench.engines.loop.PACE_STEPS` steps of ``max_num_batched_tokens``): vLLM runs
  every page it was given before any newer one, whatever its priority, so a newcomer must
  not find 181 pages' prefills ahead of it (60.6 s on the H200). While a newcomer's page
  (its run had nothing else in vLLM) is in vLLM, other runs' pages wait in the loop, for at
  most the gate's :data:`~workbench.engines.gate.PAUSE`: its decode steps then carry no
  other run's prefill (16.8 s against 0.47 s alone on the H100 without this).
* :meth:`cancel` (by key, or everything) aborts those requests inside vLLM at once and their
  pages yield ``cancelled by the user``; other runs are untouched. A run whose consumer stops
  early aborts its own pages in flight.
* A looping answer is sent again with the next sampling of its schedule
  (:mod:`workbench.engines.repetition`) in the same slot. ``seconds`` of an attempt is its
  time from being added to vLLM to its last token.
* A dead engine (vLLM's ``EngineDeadError``, CUDA out of memory: :mod:`workbench.engines.dead`)
  sets :attr:`dead`; the pages in flight and every page after fail at once with its one
  message, and nothing more is sent. The owner builds a new engine (the app does on next use).
  The cause is the one the EngineCore logged (:mod:`workbench.engines.core_log`), as is a
  failed start's.
* :meth:`close` stops the loop and frees GPU memory: shut the EngineCore child process down,
  drop the ``LLM``, ``gc.collect()``, ``cleanup_dist_env_and_memory()``,
  ``torch.cuda.empty_cache()``. Idempotent.
* ``vllm`` and ``torch`` are imported lazily; without vLLM the constructor raises
  :class:`EngineUnavailable` saying how to install it.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from workbench.engines import core_log
from workbench.engines.base import DEFAULT_IN_FLIGHT, EngineOutput, PageProgress, PageRequest
from workbench.engines.dead import dead_in_process
from workbench.engines.gate import PAUSE, RESERVE, Gate, Ticket
from workbench.engines.llm import attr_path, free, import_vllm, load_error, read_actual
from workbench.engines.loop import PACE_STEPS, EngineLoop, Submitted
from workbench.engines.messages import build_messages, image_pil_part, sampling_params_kwargs
from workbench.engines.repetition import MAX_ATTEMPTS, PageAttempts
from workbench.engines.stats import EngineStats, stats_from_metrics
from workbench.engines.warm import warm_sampler
from workbench.errors import CANCELLED, EngineDeadError
from workbench.schema import Sampling

log = logging.getLogger(__name__)


@dataclass(eq=False)
class _Page:
    """One page of a run while it is in vLLM (across its attempts)."""

    attempts: PageAttempts
    sent: Submitted | None = None
    since: float = field(default_factory=time.time)  # wall clock, for in_flight()


@dataclass(eq=False)
class _Run:
    """One :meth:`VllmLocalEngine.run` call: its pages in flight and its finished outputs."""

    wake: threading.Event = field(default_factory=threading.Event)
    live: dict[str, _Page] = field(default_factory=dict)
    ready: deque[EngineOutput] = field(default_factory=deque)
    cancelled: set[str] = field(default_factory=set)
    all_cancelled: bool = False

    def is_cancelled(self, key: str) -> bool:
        return self.all_cancelled or key in self.cancelled


class VllmLocalEngine:
    name = "vllm"
    streams = True  # run() pulls pages as slots free; many runs share the slots
    batch_size = 256  # pages per run() for callers that still chunk

    def __init__(
        self,
        model: str,
        engine_args: dict[str, Any] | None = None,
        *,
        max_model_len: int | None = None,
        max_attempts: int = MAX_ATTEMPTS,
        concurrency: int | None = None,
        samplings: Iterable[Sampling] = (),
    ) -> None:
        self._core_log = core_log.keep()  # before vLLM is imported: its EngineCore's log too
        vllm = import_vllm()
        self.model = model
        self.max_attempts = max_attempts
        # Priority scheduling: a newcomer's page before another run's backlog (module doc).
        # Stats logging on: LLM.get_metrics() (stats()) needs it; vLLM's LLM turns it off.
        args: dict[str, Any] = {
            "max_model_len": -1,
            "scheduling_policy": "priority",
            "disable_log_stats": False,
        }
        args.update(engine_args or {})
        if max_model_len is not None:
            args["max_model_len"] = max_model_len
        args.pop("model", None)
        self.engine_args = args
        self.dead: EngineDeadError | None = None  # set once vLLM's engine died: send no more
        self._sampling_params = vllm.SamplingParams
        try:
            self._llm: Any = vllm.LLM(model=model, **args)
        except Exception as exc:  # OOM, unknown arch, bad arg: the user must see why
            raise load_error(exc, model, self._logged()) from exc
        self.actual: dict[str, int | None] = read_actual(self._llm)
        # before any page: the sampler kernels vLLM compiles on first use (engines/warm.py)
        self.warm_s = warm_sampler(self._llm, self._params, samplings)
        seqs = attr_path(self._llm, "llm_engine.vllm_config.scheduler_config.max_num_seqs")
        wanted = int(concurrency or seqs or DEFAULT_IN_FLIGHT)
        if seqs and wanted + RESERVE > seqs:  # the reserve must fit in what vLLM runs at once
            wanted = seqs - RESERVE if seqs > 2 * RESERVE else seqs
        self.concurrency = max(1, wanted)
        reserve = RESERVE if not seqs or seqs > 2 * RESERVE else 0
        # No pause in the gate (the server engine's has one): paced, the other runs' pages
        # already granted wait in the loop, so the loop holds them while a newcomer's page is
        # in vLLM (EngineLoop's hold_s); the gate's pause alone gained nothing on the H200.
        self._gate = Gate(self.concurrency, reserve)
        self._lock = threading.Lock()
        self._runs: set[_Run] = set()
        scheduler = attr_path(self._llm, "llm_engine.vllm_config.scheduler_config")
        budget = attr_path(scheduler, "max_num_batched_tokens")
        pace = PACE_STEPS * int(budget) if isinstance(budget, int) and budget > 0 else None
        self._loop = EngineLoop(self._llm, self._died, pace_tokens=pace, hold_s=PAUSE)

    # ------------------------------------------------------------------ introspection
    def resize(self, pages: int) -> None:
        """Keep at most ``pages`` in flight from now on; slots held above it drain as they end."""
        self.concurrency = max(1, int(pages))
        self._gate.resize(self.concurrency)

    def describe(self) -> dict[str, str]:
        info = {"engine": self.name, "model": self.model}
        for key in ("gpu_memory_utilization", "max_num_seqs", "kv_cache_dtype"):
            if key in self.engine_args:
                info[key] = str(self.engine_args[key])
        info["max_model_len (asked)"] = str(self.engine_args.get("max_model_len"))
        for key, value in self.actual.items():
            info[key] = "?" if value is None else str(value)
        info["pages in flight"] = str(self.concurrency)
        info["sampler warm-up (s)"] = f"{self.warm_s:.2f}"
        return info

    def stats(self) -> EngineStats | None:
        """What vLLM is doing now (``LLM.get_metrics()``, mapped by engines/stats.py; the KV
        cache's size from :attr:`actual` when vLLM's metrics omit it). None when this vLLM
        reports nothing (stats logging off, closed, no such API); never raises."""
        llm = self._llm
        try:
            found = stats_from_metrics(llm.get_metrics(), "in-process") if llm else None
        except Exception:  # a status reading must never fail a page or a sidebar
            return None
        if found is not None and found.kv_tokens is None and self.actual.get("kv_tokens"):
            found = replace(found, kv_tokens=self.actual["kv_tokens"])
        return found

    def unfinished(self) -> int:
        """Requests vLLM itself holds now (running or waiting in its scheduler)."""
        return self._loop.unfinished() if self._llm is not None else 0

    @property
    def closed(self) -> bool:
        return self._llm is None

    def close(self) -> None:
        """Free the GPU (vllm.md §1): loop stopped, EngineCore shutdown, del, gc, dist
        cleanup, empty_cache."""
        llm, self._llm = getattr(self, "_llm", None), None
        if llm is None:
            return
        self.cancel()
        self._loop.close()
        free(llm)

    # ------------------------------------------------------------------ in flight
    def in_flight(self) -> list[PageProgress]:
        """The pages in vLLM now, oldest first (tokens are not streamed in process: 0)."""
        now = time.time()
        with self._lock:
            pages = [p for run in self._runs for p in run.live.values()]
        rows = [
            PageProgress(p.attempts.key, p.since, now - p.since, 0, len(p.attempts.attempts) + 1)
            for p in pages
        ]
        return sorted(rows, key=lambda row: row.started_at)

    def cancel(self, keys: Iterable[str] | None = None) -> None:
        """Stop the given pages (by key), or every page of every run: aborted in vLLM at once,
        not sent when not sent yet; each yields ``cancelled by the user``."""
        wanted = None if keys is None else set(keys)
        stopped: list[tuple[_Run, _Page]] = []
        with self._lock:
            for run in self._runs:
                if wanted is None:
                    run.all_cancelled = True
                else:
                    run.cancelled |= wanted
                stopped += [(run, p) for k, p in run.live.items() if run.is_cancelled(k)]
        self._loop.abort([p.sent for _, p in stopped if p.sent is not None])
        for run, page in stopped:
            self._finish(run, page, error=CANCELLED)

    # ------------------------------------------------------------------ pages
    def _logged(self) -> str:
        """What vLLM logged (WARNING and up) since this engine began to be built."""
        return self._core_log.read() if self._core_log is not None else ""

    def _died(self, exc: BaseException, pages: int) -> str | None:
        """The loop's verdict on ``exc``: the dead engine's message, or None (one page)."""
        path = str(self._core_log.path) if self._core_log is not None else ""
        dead = dead_in_process(exc, pages, self._logged(), path)
        if dead is None:
            return None
        self.dead = self.dead or dead
        return str(self.dead)

    def _params(self, sampling: Sampling) -> Any:
        """vLLM's SamplingParams for ``sampling`` (the contract lane builds them too)."""
        return self._sampling_params(**sampling_params_kwargs(sampling))

    def _send(self, run: _Run, page: _Page, sampling: Sampling) -> None:
        request = page.attempts.request
        with self._lock:
            ahead = sum(p.sent is not None for p in run.live.values() if p is not page)
            # a newcomer beside another run's pages; a run alone holds back no one (measured:
            # a long run's first page, fresh, let its own pages past a newcomer's at the ramp)
            others = any(
                p.sent is not None for r in self._runs if r is not run for p in r.live.values()
            )
        sent = Submitted(
            conversation=build_messages(request, image_pil_part(request.image)),
            params=self._params(sampling),
            template_kwargs=request.chat_template_kwargs,
            on_done=functools.partial(self._answered, run, page, sampling),
            priority=ahead,  # this run's pages already in vLLM: a newcomer's goes first
            owner=run,
            fresh=ahead == 0 and others,  # it decodes without the others' prefills
        )
        page.sent = sent
        self._loop.submit(sent)

    def _answered(
        self, run: _Run, page: _Page, sampling: Sampling, output: Any, error: str | None
    ) -> None:
        """vLLM finished one attempt (on the loop's thread)."""
        seconds = time.monotonic() - page.sent.started if page.sent is not None else 0.0
        with self._lock:
            if run.live.get(page.attempts.key) is not page:
                return  # cancelled meanwhile: already yielded
        if error is not None:
            self._finish(run, page, error=error, seconds=seconds, sampling=sampling)
            return
        completion = output.outputs[0]
        tokens = len(completion.token_ids or ())
        page.attempts.record(
            sampling, str(completion.text), completion.finish_reason, tokens, seconds
        )
        following = page.attempts.next_sampling
        if following is None or self.dead is not None:
            self._finish(run, page)
        else:  # a loop: the next sampling, in the same slot
            self._send(run, page, following)

    def _finish(
        self,
        run: _Run,
        page: _Page,
        *,
        error: str | None = None,
        seconds: float = 0.0,
        sampling: Sampling | None = None,
    ) -> None:
        with self._lock:
            if run.live.get(page.attempts.key) is page:
                del run.live[page.attempts.key]
            elif page.sent is not None:
                return  # finished already (a cancel and an answer crossed)
            if error is not None:
                used = sampling or page.attempts.next_sampling or page.attempts.request.sampling
                page.attempts.record_error(used, error, seconds)
            run.ready.append(page.attempts.output())
        run.wake.set()

    def _stopped(self) -> str | None:
        """Why nothing can be sent any more (dead or closed), or None."""
        if self.dead is None and self._loop.dead is not None:  # a failure vLLM did not name
            self.dead = EngineDeadError(
                f"the vLLM engine loop stopped: {self._loop.dead}",
                "see the log above for vLLM's own error; restart the engine",
            )
        if self.dead is not None:
            return str(self.dead)
        return "the vLLM engine was closed" if self._llm is None else None

    def _start(self, run: _Run, request: PageRequest) -> None:
        page = _Page(PageAttempts(request, self.max_attempts))
        error = CANCELLED if run.is_cancelled(request.key) else self._stopped()
        sampling = page.attempts.next_sampling
        if error is not None or sampling is None:
            self._finish(run, page, error=error or "no attempt to make")
            return
        with self._lock:
            run.live[request.key] = page
        self._send(run, page, sampling)

    def run(self, requests: Iterable[PageRequest]) -> Iterator[EngineOutput]:
        """Yield one output per request as each finishes (see the module contract)."""
        source = iter(requests)
        run = _Run()
        with self._lock:
            self._runs.add(run)
        ticket: Ticket | None = None
        exhausted, holding, fresh = False, 0, 0  # fresh: slots taken as a newcomer
        try:
            while True:
                run.wake.clear()
                with self._lock:
                    ready, run.ready = list(run.ready), deque()
                if ready:
                    freed = min(fresh, len(ready))
                    self._gate.release(
                        len(ready), freed, run
                    )  # before yielding: slots work meanwhile
                    holding, fresh = holding - len(ready), fresh - freed
                    yield from ready
                    continue
                if exhausted and holding == 0:
                    return
                if not exhausted and ticket is None:
                    ticket = self._gate.enter(run.wake.set, fresh=holding == 0, owner=run)
                if ticket is not None and ticket.granted:
                    took_fresh, ticket = ticket.fresh, None
                    request = next(source, None)
                    if request is None:
                        exhausted = True
                        self._gate.release(1, int(took_fresh), run)
                        continue
                    fresh += took_fresh
                    holding += 1
                    self._start(run, request)
                    continue
                run.wake.wait(1.0)
        finally:
            if ticket is not None:
                self._gate.leave(ticket)
            with self._lock:
                live = list(run.live.values())
                run.live.clear()
                self._runs.discard(run)
            self._loop.abort([p.sent for p in live if p.sent is not None])
            self._gate.release(
                holding, fresh, run
            )  # finished or not, this run's slots are free now
