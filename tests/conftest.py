"""Fixtures shared across the test tree (keep this small; area fixtures live beside their tests)."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """tests/data: small real public-domain/permissive documents (see its SOURCES file)."""
    return DATA
