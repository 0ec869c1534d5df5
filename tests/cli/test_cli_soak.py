"""The soak at CI size (issue 25.3): pages of many documents through the CLI's server engine
against the faulty fake server (resets mid-answer, a hang, a loop, 500s once and always, the
server killed and restarted mid-run); every page written exactly once with its true status.
And kill -9 the CLI halfway, rerun: the folder equals an uninterrupted run's. The full-size
run (1,000 pages, memory every 100 pages, pages/s beside the no-fault floor) is
``python -m benchmarks.soak``; the checks here are the same functions."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.soak import kill_and_resume, soak
from tests.fakes.soak_server import RATES

pytestmark = pytest.mark.slow

TIMEOUT = 3.0  # the CLI's --timeout: how long a hung page holds its slot


def test_soak_every_page_once_with_its_true_status(tmp_path: Path) -> None:
    report = soak(tmp_path, 120, seed=25, timeout=TIMEOUT, concurrency=16, floor=False)
    assert report["code"] == 1  # some pages failed (the hang, the 500s): "some page failed"
    assert set(report["plan"]) == set(RATES)  # every kind of fault was injected
    # check() in soak() raised unless each page has its true status; here the totals:
    assert report["statuses"] == {"ok": 117, "error": 2, "looped": 1}
    assert report["starts"] == 2  # the server was killed and started again mid-run ...
    assert report["restart_retries"] >= 1  # ... with pages in flight: they were retried
    faults = sum(report["plan"].values())
    assert report["requests"] > 120 + faults  # resets and 500s were retried, loops re-asked
    assert [m[0] for m in report["memory"]] == [100]


def test_kill_9_then_rerun_equals_an_uninterrupted_run(tmp_path: Path) -> None:
    resumed = kill_and_resume(tmp_path, 60, seed=25, timeout=TIMEOUT, concurrency=16)
    assert 0 < resumed.killed_at < 60
    assert resumed.diff == []
    # The killed CLI's page-preparing workers went with it (they used to wait for good).
    assert resumed.orphans == []
