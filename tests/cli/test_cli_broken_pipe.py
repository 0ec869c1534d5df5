"""``python -m workbench models | head`` ends quietly: a reader that stops early is no crash."""

from __future__ import annotations

import os
import subprocess
import sys


def test_closed_stdout_gives_no_traceback() -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before a byte is written, as `| head -1` after its line
    try:
        done = subprocess.run(
            [sys.executable, "-m", "workbench", "models"],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            check=False,
        )
    finally:
        os.close(write_end)
    assert "Traceback" not in done.stderr, done.stderr
    assert "BrokenPipeError" not in done.stderr, done.stderr
    assert done.returncode == 141
