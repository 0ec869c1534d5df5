"""Every benchmark script still imports: a module moved in the package must not leave a
benchmark broken until someone runs it (pdf_text_layer's move did, once)."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

SCRIPTS = sorted(p.stem for p in (Path(__file__).resolve().parents[2] / "benchmarks").glob("*.py"))


@pytest.mark.parametrize("name", SCRIPTS)
def test_benchmark_imports(name: str) -> None:
    module = importlib.import_module(f"benchmarks.{name}")
    assert module.__doc__, f"benchmarks/{name}.py says what it measures in its docstring"
