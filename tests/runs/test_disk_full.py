"""A full disk under a run folder is a DiskFull (a StoreError: the app shows its message, the
CLI one line), never a bare OSError; the manifest stays readable and lists only pages on disk
(issue 31.2). On a real 1 MB tmpfs (root only; skipped elsewhere, saying so)."""

from __future__ import annotations

import contextlib
import functools
import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from test_store import info, make_page

from tests.cli.test_cli_disk_full import small_disk  # noqa: F401 (fixture)
from workbench.errors import DiskFull, StoreError
from workbench.runs.folder import RunWriter
from workbench.schema import RunStatus


def test_the_writer_says_disk_full_and_keeps_a_consistent_manifest(
    small_disk: Path,  # noqa: F811
) -> None:
    run_dir = small_disk / "run"
    rng = np.random.default_rng(7)
    writer = RunWriter.create(run_dir, info())
    written = 0
    with pytest.raises(DiskFull) as err:
        for n in range(1, 50):
            noise = Image.fromarray(rng.integers(0, 255, (200, 300, 3), dtype=np.uint8))
            writer.write_page(make_page("scan.pdf", n), noise)
            written = n
    assert isinstance(err.value, StoreError) and not isinstance(err.value, OSError)
    assert str(run_dir) in str(err.value) and "needed" in str(err.value)
    assert 0 < written < 49
    with contextlib.suppress(DiskFull):  # document.md may not fit; the manifest is tried anyway
        writer.finish(RunStatus.CANCELLED)
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["status"] == "cancelled"
    assert [e["page"] for e in manifest["pages"]] == list(range(1, written + 1))
    assert not (run_dir / "scan" / f"page-{written + 1:04d}.png").exists()  # its part removed


def test_a_batch_in_the_app_ends_with_the_sentence_not_a_stack(
    small_disk: Path,  # noqa: F811
) -> None:
    """Runs → Batch on a store whose disk fills: the job's error (what the page shows) is the
    DiskFull sentence, not ``OSError: [Errno 28]``; the run is marked cancelled."""
    from tests.cli.test_cli_disk_full import noisy_tiff
    from tests.fakes.fake_engine import FakeEngine
    from workbench.models.registry import CPU_SPEC
    from workbench.pipeline.batch import BatchOutcome, run_batch, start_batch
    from workbench.pipeline.request import RunRequest
    from workbench.runs.store import RunStore

    doc = noisy_tiff(small_disk.parent / "noise.tif", 12).read_bytes()
    store = RunStore(small_disk / "store")
    outcome = BatchOutcome()
    run = functools.partial(run_batch, [("noise.tif", doc)], FakeEngine(), CPU_SPEC, store,
                            "full", RunRequest())  # fmt: skip
    job = start_batch(run, outcome, "full disk")
    assert job.thread is not None
    job.thread.join(timeout=300)
    assert job.error is not None and job.error.startswith("no space left on the disk of")
    assert "Errno" not in job.error and "needed" in job.error
    [summary] = store.list()
    assert summary.status == "cancelled"
