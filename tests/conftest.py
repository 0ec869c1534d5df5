"""Fixtures shared across the test tree (keep this small; area fixtures live beside their tests)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

# Runs made by the app under test (AppTest and the browser tests' server, which inherits this
# environment) go to a throw-away store, never the user's data directory.
os.environ.setdefault("WORKBENCH_STORE_DIR", tempfile.mkdtemp(prefix="wb-test-store-"))

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """tests/data: small real public-domain/permissive documents (see its SOURCES file)."""
    return DATA
