"""The EngineCore's log (:mod:`workbench.engines.core_log`) with each release's own logging:
the config it hands vLLM is one vLLM applies (its formatter class, its console kept), and what a
forked or spawned EngineCore logs as it dies lands in the file, where the cause is read."""

from __future__ import annotations

import logging
import multiprocessing
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from workbench.engines import core_log
from workbench.engines.dead import log_cause

vllm_logger_module = pytest.importorskip("vllm.logger")

CAUSE = "CUDA error: an illegal memory access was encountered"


def engine_core_dies() -> None:
    """A child as vLLM starts its EngineCore: vLLM's logging configured on import, then what
    ``vllm/v1/engine/core.py`` logs when its busy loop raises."""
    import vllm.logger
    from vllm.logger import init_logger

    if hasattr(vllm.logger, "configure_logging"):  # 0.34: not on import; the EngineCore applies
        from vllm.config.logging import LoggingConfig  # its VllmConfig's, made in the parent

        vllm.logger.configure_logging(LoggingConfig())  # whose file comes from the environment
    logger = init_logger("vllm.v1.engine.core")
    try:
        raise RuntimeError(CAUSE)
    except RuntimeError:
        logger.exception("EngineCore encountered a fatal error.")


@pytest.fixture
def kept(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[core_log.CoreLog]:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.delenv("VLLM_LOGGING_CONFIG_PATH", raising=False)
    monkeypatch.delenv("VLLM_CONFIGURE_LOGGING", raising=False)
    log = core_log.keep()
    assert log is not None
    yield log
    vllm_logger = logging.getLogger("vllm")
    for handler in [h for h in vllm_logger.handlers if h.name == core_log.HANDLER]:
        vllm_logger.removeHandler(handler)
        handler.close()


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_a_dying_engine_cores_traceback_reaches_the_file_and_the_console(
    kept: core_log.CoreLog, method: str, capfd: pytest.CaptureFixture[str]
) -> None:
    child = multiprocessing.get_context(method).Process(target=engine_core_dies)
    child.start()
    child.join(120)
    assert child.exitcode == 0
    assert log_cause(kept.read()) == f"RuntimeError: {CAUSE}"
    if method == "spawn":  # configured by vLLM from our file: its own console line as before
        console = capfd.readouterr().out
        assert "[test_core_log.py:" in console and "EngineCore encountered a fatal error" in console


def test_the_config_is_one_vllm_applies(kept: core_log.CoreLog) -> None:
    """vLLM's own configuring function, on our file: its formatter class exists in this
    release, and the ``vllm`` logger gets both its console and the file."""
    vllm_logger = logging.getLogger("vllm")
    saved = vllm_logger.handlers[:], vllm_logger.level, vllm_logger.propagate
    try:
        vllm_logger_module._configure_vllm_root_logger()
        names = sorted(h.name or "" for h in vllm_logger.handlers)
        assert names == sorted(["vllm", core_log.HANDLER])
        formatter = next(h.formatter for h in vllm_logger.handlers if h.name == "vllm")
        assert type(formatter).__name__ == "NewLineFormatter"
    finally:
        for handler in vllm_logger.handlers[:]:
            if handler not in saved[0]:
                vllm_logger.removeHandler(handler)
                handler.close()
        vllm_logger.handlers[:] = saved[0]
        vllm_logger.setLevel(saved[1])
        vllm_logger.propagate = saved[2]
