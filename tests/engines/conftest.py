"""Engine tests leave no trace of :mod:`workbench.engines.core_log` behind: its file goes to the
test's own folder, its environment variable and its handler on the ``vllm`` logger go away."""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from workbench.engines.core_log import HANDLER


@pytest.fixture(autouse=True)
def _core_log_kept_apart(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.delenv("VLLM_LOGGING_CONFIG_PATH", raising=False)
    monkeypatch.delenv("VLLM_CONFIGURE_LOGGING", raising=False)
    yield
    vllm_logger = logging.getLogger("vllm")
    for handler in [h for h in vllm_logger.handlers if h.name == HANDLER]:
        vllm_logger.removeHandler(handler)
        handler.close()
