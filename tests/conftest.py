"""Fixtures shared across the test tree (keep this small; area fixtures live beside their tests)."""

from __future__ import annotations

import logging
import os
import tempfile
from collections.abc import Iterator
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


@pytest.fixture(autouse=True)
def _core_log_left_behind(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A test that builds a vLLM engine leaves no trace of ``workbench.engines.core_log``: its
    environment variables and its handler on the ``vllm`` logger go with the test."""
    from workbench.engines.core_log import HANDLER

    monkeypatch.delenv("VLLM_LOGGING_CONFIG_PATH", raising=False)
    monkeypatch.delenv("VLLM_CONFIGURE_LOGGING", raising=False)
    yield
    vllm_logger = logging.getLogger("vllm")
    for handler in [h for h in vllm_logger.handlers if h.name == HANDLER]:
        vllm_logger.removeHandler(handler)
        handler.close()
