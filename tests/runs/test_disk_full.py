"""A full disk under a run folder is a DiskFull (a StoreError: the app shows its message, the
CLI one line), never a bare OSError; the manifest stays readable and lists only pages on disk
(issue 31.2). On a real 1 MB tmpfs (root only; skipped elsewhere, saying so)."""

from __future__ import annotations

import contextlib
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
