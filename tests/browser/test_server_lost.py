"""A server that goes away mid-run and comes back (issue 30.2), in the real app and Chromium.

The app runs the real server engine, picked in the sidebar ("vLLM server (OpenAI API)"),
against the fake OpenAI server run as a script on a fixed port. Page 1 of a 4-page PDF is read;
then the server is killed: the Viewer says once that the server is not answering and since
when, page 1 stays shown as read (on e859558 the sidebar lost the model, the Viewer said "The
engine picked in the sidebar is not configured yet" and every page showed "not processed"),
and the failed pages are counted. The server is started again on the same port; one click on
"Retry failed pages" reads every failed page (on e859558 each needed its own "Retry this page").
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright")
from playwright.sync_api import expect

from tests.browser import app_state
from tests.browser.conftest import ROOT, _free_port, _serve
from tests.browser.fake_server_app import MODEL, pdf_file

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ANSWER = "Text read by the fake OCR server."
LONG_MS = 180_000  # a killed server: the page in flight may wait on retries first


class FakeServer:
    """The fake OpenAI server as a process that can be killed and started again."""

    def __init__(self, port: int, delay: float) -> None:
        self.port, self.delay = port, delay
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.fakes.openai_server", "--port", str(self.port),
             "--delay", str(self.delay), "--model", MODEL],
            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        url = f"http://127.0.0.1:{self.port}/v1/models"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and self.proc.poll() is None:
            try:
                urllib.request.urlopen(url, timeout=1)
                return
            except OSError:
                time.sleep(0.1)  # polling a port until it answers, not a timed assertion
        raise RuntimeError("the fake server did not start")

    def kill(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(timeout=10)
            self.proc = None


@pytest.fixture(scope="module")
def server_and_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[FakeServer, str]]:
    server = FakeServer(_free_port(), delay=3.0)
    server.start()
    folder = tmp_path_factory.mktemp("server-lost")
    env = {
        "WORKBENCH_ENGINE_FACTORY": "tests.fakes.openai_server:engine_from_env",
        "WORKBENCH_BASE_URL": f"http://127.0.0.1:{server.port}/v1",
        "WORKBENCH_STORE_DIR": str(folder / "runs"),
        "WORKBENCH_CONCURRENCY": "1",  # one page at a time: pages 2-4 are left when it dies
    }
    try:
        for url in _serve(tmp_path_factory, env):
            yield server, url
    finally:
        server.kill()


def _go(page: Any, n: int) -> None:
    page.get_by_role("spinbutton", name="Page (of 4)").fill(str(n))
    page.keyboard.press("Enter")
    expect(page.get_by_text(re.compile(rf"page {n} of 4")).first).to_be_visible()


def test_a_lost_server_is_said_once_and_failed_pages_retry_in_one_click(
    server_and_app: tuple[FakeServer, str], page: Any, tmp_path: Path, shots: Path
) -> None:
    server, url = server_and_app
    app_state.open_viewer(page, url)
    page.get_by_test_id("stSidebar").get_by_text("vLLM server (OpenAI API)").click()
    expect(page.get_by_role("combobox", name="Model")).to_have_value(MODEL)
    app_state.idle(page)
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(
        [pdf_file(tmp_path / "lost.pdf", 4)]
    )
    expect(page.get_by_text(ANSWER).first).to_be_visible()  # page 1 read
    server.kill()
    said = page.get_by_text(re.compile(r"is not answering \(since \d\d:\d\d:\d\d"))
    expect(said).to_be_visible(timeout=LONG_MS)
    failed = page.get_by_text(re.compile(r"\d pages? failed"))
    # Said while the pages still wait on it, before any has failed (it was said only once they
    # had failed, after half a minute of a progress bar that read as "still working").
    expect(failed).to_have_count(0)
    expect(page.get_by_text(re.compile("Processing in the background"))).to_be_visible()
    page.screenshot(path=str(shots / "server-lost-waiting.png"))
    expect(failed).to_be_visible(timeout=LONG_MS)
    app_state.idle(page)
    page.screenshot(path=str(shots / "server-lost.png"))
    expect(said).to_have_count(1)  # once, not per page
    expect(page.get_by_text("not configured yet")).to_have_count(0)
    _go(page, 1)  # the page done before the server went away is still shown as done
    expect(page.get_by_text(ANSWER).first).to_be_visible()
    expect(page.get_by_text("not processed")).to_have_count(0)
    # The server is back: one click retries every failed page.
    server.start()
    page.get_by_role("button", name="Retry failed pages").click()
    expect(failed).to_have_count(0, timeout=LONG_MS)
    expect(said).to_have_count(0)
    for n in (2, 3, 4):
        _go(page, n)
        expect(page.get_by_text(ANSWER).first).to_be_visible()
    page.screenshot(path=str(shots / "server-back.png"))
    assert page.js_errors == []
