"""The Viewer's kept working sets (workbench.ui.workset) do not pile up: a set unchanged for
KEEP_DAYS is deleted when another is made; a set in use, or being made, is kept."""

from __future__ import annotations

import os
import time
from pathlib import Path

from workbench.ui import workset


def test_old_sets_are_pruned_and_recent_ones_kept(tmp_path: Path) -> None:
    old, recent, making = tmp_path / "old", tmp_path / "recent", tmp_path / "making"
    for folder in (old, recent):
        folder.mkdir()
        (folder / "manifest.json").write_text("{}")
    making.mkdir()  # no manifest yet: another session is writing it
    past = time.time() - (workset.KEEP_DAYS + 1) * 86400
    for path in (old / "manifest.json", old):
        os.utime(path, (past, past))
    workset._prune(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["making", "recent"]
