"""A pool's workers exit when the process that started them is killed (SIGKILL: no clean-up
runs); ``kill -9`` of the CLI used to leave its workers waiting for good."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from benchmarks.soak import children, survivors

ROOT = Path(__file__).resolve().parents[2]

PARENT = textwrap.dedent(
    """
    import os, sys, time
    from workbench.engines.pool import ProcessPoolEngine
    from workbench.pipeline import prepare
    from tests.engines.test_pool_logging import build_probe

    engine = ProcessPoolEngine(build_probe, 2)  # forkserver workers: the app's engine pool
    prepare.worker_pool(2).submit(os.getpid).result()  # fork workers: the CLI's page pool
    print("ready", flush=True)
    time.sleep(600)
    """
)


def descendants(pid: int) -> list[int]:
    """Every process under ``pid``: its children, theirs, and so on."""
    found, todo = [], [pid]
    while todo:
        kids = children(todo.pop())
        found += kids
        todo += kids
    return found


def test_workers_exit_when_their_parent_is_killed() -> None:
    proc = subprocess.Popen([sys.executable, "-c", PARENT], cwd=ROOT, stdout=subprocess.PIPE,
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, text=True)  # fmt: skip
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        workers = descendants(proc.pid)
        assert len(workers) >= 4  # two of each pool (and the fork server)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert survivors(workers) == []
