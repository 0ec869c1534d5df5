"""An engine run in worker processes: pages of a document in parallel, models loaded once per
worker (the embedded CPU engine on a machine with several cores).

Contract
--------
* :class:`ProcessPoolEngine` starts ``workers`` processes (``forkserver``: never a fork of a
  threaded process); each calls ``build()`` once (a picklable callable returning an
  :class:`~workbench.engines.base.Engine`) and keeps that engine for its life, so its models
  load once per worker, never per page. All workers are started and loaded by the
  constructor (its cost is the slowest worker's load).
* It streams (``streams = True``): :meth:`run` takes any iterable and keeps one page per
  worker in flight plus ``queued`` (default 1; the app uses 0, so a page the user turns to
  waits for the page in progress only), pulling the next request only when a page finishes;
  outputs are yielded as they finish, in any order.
* Requests travel as their PNG (see :class:`~workbench.engines.base.PageRequest`), text layer
  included; outputs come back whole (regions, attempts).
* A worker that dies (killed, out of memory) fails only the pages it held, with a message
  saying so; the pool is started again for the pages after. :meth:`close` stops the workers.
* ``name``, ``model`` and :meth:`describe` are the workers' engine's, plus ``workers``.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from workbench.engines.base import Engine, EngineOutput, PageRequest
from workbench.logs import quiet_libraries

_WORKER_ENGINE: Engine | None = None

OWNER_CHECK_S = 1.0  # how often a worker looks for its owner: a check costs microseconds


def _born(pid: int) -> int | None:
    """When ``pid`` started (clock ticks since boot: a reused pid has another), None once it
    has gone or is a zombie; where /proc cannot tell, 0 while it exists."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return None if fields[0] in ("Z", "X") else int(fields[19])
    except FileNotFoundError:
        if Path("/proc/self/stat").exists():
            return None
    except (OSError, IndexError, ValueError):
        pass  # no /proc, or one that reads otherwise: ask the kernel whether it exists
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        pass
    return 0


def owner() -> tuple[int, int | None]:
    """This process as a pool's owner, for :func:`exit_with`: its pid and when it started."""
    pid = os.getpid()
    return pid, _born(pid)


def exit_with(pid: int, born: int | None) -> None:
    """A worker's initializer, given its pool's :func:`owner`: the worker exits within
    :data:`OWNER_CHECK_S` of the owner's death, however it died, and at once when the owner
    died while the worker was starting (a pool starts workers on demand).

    A pool's workers wait on a queue whose write end they hold themselves, so an owner killed
    by SIGKILL, where no clean-up runs, left them waiting for good (seen after ``kill -9`` of
    the CLI), and a ``forkserver`` pool's fork server with them: it waits for its children.
    The owner is watched, not the parent: a ``forkserver`` worker's parent is the fork server.
    Not ``PR_SET_PDEATHSIG`` either: it fires when the *thread* that forked exits, and the
    app's pools are started from Streamlit's short-lived script threads."""

    def watch() -> None:
        while _born(pid) == born:
            time.sleep(OWNER_CHECK_S)
        os._exit(1)  # the owner is gone: nobody will read what this worker writes

    if _born(pid) != born:
        os._exit(1)
    threading.Thread(target=watch, name="exit-with-owner", daemon=True).start()


def _start(build: Callable[[], Engine], pid: int, born: int | None) -> None:
    global _WORKER_ENGINE
    exit_with(pid, born)
    # A new process does not inherit the parent's logging.disable: without this, the CPU
    # engine's libraries (rapid_layout's model path and label list) print INFO lines into the
    # app's log from every worker. WORKBENCH_VERBOSE=1 keeps them, as in the app.
    quiet_libraries()
    _WORKER_ENGINE = build()


def _about() -> tuple[str, str, dict[str, str]]:
    assert _WORKER_ENGINE is not None
    engine = _WORKER_ENGINE
    return engine.name, engine.model, engine.describe()


def _one(request: PageRequest) -> EngineOutput:
    assert _WORKER_ENGINE is not None
    for output in _WORKER_ENGINE.run([request]):
        return output
    return EngineOutput(key=request.key, error="the engine returned nothing for the page")


def _context() -> Any:
    methods = multiprocessing.get_all_start_methods()
    if "forkserver" not in methods:
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([__name__])  # never the caller's __main__
    return context


class ProcessPoolEngine:
    streams = True

    def __init__(self, build: Callable[[], Engine], workers: int, *, queued: int = 1) -> None:
        self.workers = max(1, int(workers))
        self.queued = max(0, int(queued))
        self.concurrency = self.workers
        self.batch_size = 2 * self.workers
        self._build = build
        self._pool = self._start_pool()
        about = [self._pool.submit(_about) for _ in range(self.workers)]  # one per worker
        self.name, self.model, self._described = about[0].result()
        for future in about[1:]:
            future.result()

    def _start_pool(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            self.workers,
            mp_context=_context(),
            initializer=_start,
            initargs=(self._build, *owner()),
        )

    def describe(self) -> dict[str, str]:
        return {**self._described, "workers": str(self.workers)}

    def run(self, requests: Iterable[PageRequest]) -> Iterator[EngineOutput]:
        source = iter(requests)
        window = self.workers + self.queued  # queued: a worker never waits for the next page
        pending: dict[Future[EngineOutput], PageRequest] = {}
        try:
            for request in itertools.islice(source, window):
                pending[self._pool.submit(_one, request)] = request
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                broken = False
                outputs = []
                for future in done:
                    request = pending.pop(future)
                    try:
                        outputs.append(future.result())
                    except BrokenProcessPool:
                        broken = True
                        outputs.append(EngineOutput(key=request.key, error=_DIED))
                if broken:  # every page still held died with it
                    outputs += [EngineOutput(key=r.key, error=_DIED) for r in pending.values()]
                    pending.clear()
                    self._pool.shutdown(wait=False, cancel_futures=True)
                    self._pool = self._start_pool()
                for request in itertools.islice(source, window - len(pending)):
                    pending[self._pool.submit(_one, request)] = request
                yield from outputs
        finally:
            for future in pending:
                future.cancel()

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


_DIED = "the worker process reading this page died (out of memory or killed); retry the page"
