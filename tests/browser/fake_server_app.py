"""The app driven by the real server engine against the fake OpenAI server run as a script.

:func:`serve_with_fake_server` starts ``python -m tests.fakes.openai_server`` with the given
arguments (faults, replayed answers) and the app (``tests.browser.conftest._serve``) with the
engine hook ``tests.fakes.openai_server:engine_from_env`` pointed at it, and yields the app's
URL; both stop afterwards. :func:`pdf_file` writes a blank PDF.
"""

from __future__ import annotations

import io
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser.conftest import ROOT, _free_port, _serve

MODEL = "lightonai/LightOnOCR-2-1B"  # a served name the registry knows: its parser runs


def serve_with_fake_server(
    tmp_path_factory: pytest.TempPathFactory, args: list[str], env: dict[str, str] | None = None
) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("fake-server-app")
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "tests.fakes.openai_server", "--port", str(port),
         "--delay", "0", "--model", MODEL, *args],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        app_env = {
            "WORKBENCH_ENGINE_FACTORY": "tests.fakes.openai_server:engine_from_env",
            "WORKBENCH_BASE_URL": f"http://127.0.0.1:{port}/v1",
            "WORKBENCH_STORE_DIR": str(folder / "runs"),
            **(env or {}),
        }
        yield from _serve(tmp_path_factory, app_env)
    finally:
        server.terminate()
        server.wait(timeout=10)


def pdf_file(path: Path, pages: int, landscape: tuple[int, ...] = ()) -> Path:
    """A blank PDF; the pages numbered in ``landscape`` are wider than tall (the fake server's
    ``--landscape-fault`` picks them)."""
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument.new()
    for number in range(1, pages + 1):
        pdf.new_page(*((792, 612) if number in landscape else (612, 792)))
    buf = io.BytesIO()
    pdf.save(buf)
    path.write_bytes(buf.getvalue())
    return path
