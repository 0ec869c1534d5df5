"""Golden output: the CPU engine's Markdown and regions on every page in tests/data are the ones
stored in tests/data/golden/cpu (regenerate with ``python3 tests/engines/cpu/golden.py --write``
only when a change of output is meant, and say why in the commit)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.engines.cpu.golden import dump, golden_path, snapshot, sources
from workbench.engines.cpu import get_cpu_engine

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("path", sources(), ids=lambda p: p.name)
def test_output_matches_snapshot(path: Path) -> None:
    want = golden_path(path).read_text(encoding="utf-8")
    got = dump(snapshot(path, get_cpu_engine()))
    assert got == want, f"{path.name}: run tests/engines/cpu/golden.py to see the difference"
