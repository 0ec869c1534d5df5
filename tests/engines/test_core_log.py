"""The EngineCore's log kept for a dead engine's cause: what vLLM's loggers write, in this
process and in a forked child, lands in the file; a user's own logging setup is left alone.
(Spawned children configured by vLLM itself from the config: ``tests/vllm_contract``.)"""

from __future__ import annotations

import json
import logging
import multiprocessing
import os
from pathlib import Path

import pytest

from workbench.engines import core_log
from workbench.engines.dead import log_cause

CAUSE = "CUDA error: an illegal memory access was encountered"


def _engine_core_dies() -> None:
    """What vLLM's EngineCore does when its busy loop raises (``vllm/v1/engine/core.py``)."""
    try:
        raise RuntimeError(CAUSE)
    except RuntimeError:
        logging.getLogger("vllm.v1.engine.core").exception("EngineCore encountered a fatal error.")


def test_the_config_keeps_vllms_console_and_adds_the_file(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VLLM_LOGGING_LEVEL", "debug")
    kept = core_log.keep()
    assert kept is not None
    config = json.loads(Path(os.environ["VLLM_LOGGING_CONFIG_PATH"]).read_text())
    assert config["loggers"]["vllm"]["handlers"] == ["vllm", core_log.HANDLER]
    console = config["handlers"]["vllm"]
    assert console["stream"] == "ext://sys.stdout" and console["level"] == "DEBUG"
    assert config["handlers"][core_log.HANDLER]["filename"] == str(kept.path)
    assert config["handlers"][core_log.HANDLER]["level"] == "WARNING"  # not every INFO line


def test_what_the_engine_core_logs_is_read_back_from_this_engines_mark() -> None:
    first = core_log.keep()
    assert first is not None
    logging.getLogger("vllm.config").error("ValueError: an earlier engine's error")
    second = core_log.keep()  # the next engine: only its own lines
    assert second is not None and second.path == first.path
    logging.getLogger("vllm.v1.engine.core").info("not kept: below WARNING")
    _engine_core_dies()
    text = second.read()
    assert "earlier engine" not in text and "not kept" not in text
    assert log_cause(text) == f"RuntimeError: {CAUSE}"
    assert len(logging.getLogger("vllm").handlers) == 1  # a second keep() adds no second one


def test_a_forked_engine_core_writes_to_the_same_file() -> None:
    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("no fork on this platform")
    kept = core_log.keep()
    assert kept is not None
    child = multiprocessing.get_context("fork").Process(target=_engine_core_dies)
    child.start()
    child.join(30)
    assert child.exitcode == 0
    assert log_cause(kept.read()) == f"RuntimeError: {CAUSE}"


def test_a_users_own_logging_setup_is_left_alone(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    mine = tmp_path / "my-logging.json"
    monkeypatch.setenv("VLLM_LOGGING_CONFIG_PATH", str(mine))
    assert core_log.keep() is None
    assert os.environ["VLLM_LOGGING_CONFIG_PATH"] == str(mine)
    assert not logging.getLogger("vllm").handlers
    monkeypatch.delenv("VLLM_LOGGING_CONFIG_PATH")
    monkeypatch.setenv("VLLM_CONFIGURE_LOGGING", "0")  # vLLM then refuses any config path
    assert core_log.keep() is None
    assert "VLLM_LOGGING_CONFIG_PATH" not in os.environ


def test_a_log_that_is_gone_reads_empty_and_is_made_again() -> None:
    kept = core_log.keep()
    assert kept is not None
    kept.path.unlink()
    assert kept.read() == ""
    again = core_log.keep()  # a temporary folder cleaned under a long-running app
    assert again is not None
    _engine_core_dies()
    assert log_cause(again.read()) == f"RuntimeError: {CAUSE}"
