"""Which log lines a person sees: the workbench's own, not its libraries' chatter.

The workbench's own messages are printed (the CLI's progress, ``warning:`` and ``error:``
lines) or shown in the app; it logs only warnings. Its libraries log INFO lines of their own
on stderr: rapid_layout announces its model path and label list every time the CPU engine
starts, vLLM its whole configuration. rapid_layout builds each logger with its own handler,
``propagate`` off and level INFO *when the object is created*, so a level set on its loggers
beforehand does not hold; :func:`logging.disable` is the one switch every logger obeys.

:func:`quiet_libraries` turns every record below WARNING off (warnings and errors still show)
unless ``verbose``; the CLI's ``--verbose`` and the app's ``WORKBENCH_VERBOSE=1`` bring the
INFO lines back.
"""

from __future__ import annotations

import logging
import os

VERBOSE_ENV = "WORKBENCH_VERBOSE"


def quiet_libraries(verbose: bool | None = None) -> None:
    """Library INFO/DEBUG lines off (``verbose`` False), or on again (True). ``None`` reads
    :data:`VERBOSE_ENV` (``1``/``true``/``yes`` mean verbose)."""
    if verbose is None:
        verbose = os.environ.get(VERBOSE_ENV, "").strip().lower() in {"1", "true", "yes"}
    logging.disable(logging.NOTSET if verbose else logging.INFO)
