"""vLLM's warnings and errors, from this process and its EngineCore child, kept in a file that a
dead engine's cause is read from.

Why: an in-process engine whose EngineCore dies raises only "EngineCore encountered an issue.
See stack trace (above) for the root cause"; the root cause (a CUDA error, a missing module, an
out-of-memory) is in the traceback the EngineCore logged on the process's shared stream, which
nothing here reads. Measured on the H200: Chandra OCR 2 died of ``ModuleNotFoundError: No
module named 'flashinfer'``, seen only in the child's log
(``benchmarks/h200/results-2026-12-06.md``).

Contract
--------
* :func:`keep` (call before vLLM is imported, and again before each engine is built) makes
  vLLM's loggers also write WARNING and above to one file per process, and returns a
  :class:`CoreLog` marking where the coming engine's lines begin. Both ways vLLM starts its
  EngineCore are covered: a forked child inherits this process's handler (added once to the
  ``vllm`` logger), a spawned one configures logging afresh from ``VLLM_LOGGING_CONFIG_PATH``,
  set here to a config that keeps vLLM's own stream handler (its format, level and stream, as
  ``vllm/logger.py`` builds it in 0.17–0.34) and adds the file.
* A user's own logging setup is left alone: with ``VLLM_LOGGING_CONFIG_PATH`` already set to
  another file, or ``VLLM_CONFIGURE_LOGGING=0``, nothing changes and :func:`keep` returns
  None (a dead engine then says where to read its cause).
* :meth:`CoreLog.read` returns what was written since the mark (its last :data:`TAIL` bytes).
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

#: The most of a log :meth:`CoreLog.read` returns: a traceback's last lines are at its end.
TAIL = 256 * 1024
#: The name of the handler that writes the file, in this process and in the config.
HANDLER = "workbench_core_log"
_LEVEL = "WARNING"
#: vLLM's format (``vllm/logger.py``: ``_FORMAT``, ``_DATE_FORMAT``), its prefix included.
_FORMAT = "{prefix}%(levelname)s %(asctime)s [%(fileinfo)s:%(lineno)d] %(message)s"
_DATE_FORMAT = "%m-%d %H:%M:%S"


@dataclass(frozen=True)
class CoreLog:
    """The file vLLM's warnings and errors go to, and where one engine's lines begin."""

    path: Path
    start: int

    def read(self) -> str:
        """The text written since :attr:`start` (its last :data:`TAIL` bytes); empty when the
        file is gone."""
        try:
            with self.path.open("rb") as f:
                size = f.seek(0, os.SEEK_END)
                f.seek(max(self.start, size - TAIL))
                return f.read().decode("utf-8", "replace")
        except OSError:
            return ""


def _path() -> Path:
    return Path(tempfile.gettempdir()) / f"ocr-workbench-vllm-{os.getpid()}.log"


def _config(log: Path) -> dict[str, object]:
    """vLLM's default logging config (``DEFAULT_LOGGING_CONFIG``) with the file added."""
    level = os.environ.get("VLLM_LOGGING_LEVEL", "INFO").upper()
    fmt = _FORMAT.format(prefix=os.environ.get("VLLM_LOGGING_PREFIX", ""))
    formatter = {"class": "vllm.logging_utils.NewLineFormatter", "datefmt": _DATE_FORMAT}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"vllm": {**formatter, "format": fmt}},
        "handlers": {
            "vllm": {
                "class": "logging.StreamHandler",
                "formatter": "vllm",
                "level": level,
                "stream": os.environ.get("VLLM_LOGGING_STREAM", "ext://sys.stdout"),
            },
            HANDLER: {
                "class": "logging.FileHandler",
                "formatter": "vllm",
                "level": _LEVEL,
                "filename": str(log),
                "encoding": "utf-8",
            },
        },
        "loggers": {"vllm": {"handlers": ["vllm", HANDLER], "level": level, "propagate": False}},
    }


def _handler(log: Path) -> logging.Handler:
    handler = logging.FileHandler(log, encoding="utf-8")
    handler.name = HANDLER
    handler.setLevel(_LEVEL)
    # vLLM's format but for ``fileinfo``, which only vLLM's own formatter sets
    fmt = _FORMAT.format(prefix="").replace("%(fileinfo)s", "%(filename)s")
    handler.setFormatter(logging.Formatter(fmt, _DATE_FORMAT))
    return handler


def keep() -> CoreLog | None:
    """Send vLLM's warnings and errors to this process's file too (module contract); None
    when the user set up vLLM's logging their own way."""
    log = _path()
    config = log.with_suffix(".json")
    own = os.environ.get("VLLM_LOGGING_CONFIG_PATH")
    if own not in (None, "", str(config)) or os.environ.get("VLLM_CONFIGURE_LOGGING") == "0":
        return None
    try:
        if not own or not config.exists():
            config.write_text(json.dumps(_config(log), indent=1), encoding="utf-8")
            os.environ["VLLM_LOGGING_CONFIG_PATH"] = str(config)
        vllm_logger = logging.getLogger("vllm")
        for gone in [h for h in vllm_logger.handlers if h.name == HANDLER and not log.exists()]:
            vllm_logger.removeHandler(gone)  # its file was cleaned away: it writes to nothing
            gone.close()
        if not any(h.name == HANDLER for h in vllm_logger.handlers):  # vLLM imported before
            vllm_logger.addHandler(_handler(log))
        log.touch()
        return CoreLog(log, log.stat().st_size)
    except OSError:  # no writable temporary folder: the cause is then read where LOOK says
        return None
