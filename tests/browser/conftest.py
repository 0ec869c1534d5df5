"""A real app server (``streamlit run workbench/Home.py``) and Debian's Chromium, per session.

The server runs with the real embedded CPU engine unless ``WORKBENCH_FAKE_ENGINE`` is set in
the environment of the test run (then the deterministic FakeEngine, through the app's engine
hook ``WORKBENCH_ENGINE_FACTORY=tests.fakes.fake_engine:from_env``; the value of
``WORKBENCH_FAKE_ENGINE`` is the delay per page in seconds, ``1`` meaning none). Never
downloads browsers: Playwright drives ``/usr/bin/chromium`` (or ``$CHROMIUM``). Screenshots go to
``$WORKBENCH_SCREENSHOTS`` or a pytest tmp dir.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
CHROME_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def app_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app as users run it (real CPU engine unless WORKBENCH_FAKE_ENGINE is set)."""
    value = os.environ.get("WORKBENCH_FAKE_ENGINE", "").strip()
    if value in ("", "0", "false", "no"):
        yield from _serve(tmp_path_factory, {})
    else:
        yield from _serve(tmp_path_factory, fake_env(0.0 if value == "1" else float(value)))


@pytest.fixture(scope="session")
def fake_app_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app with the instant FakeEngine, for UI mechanics over many pages."""
    yield from _serve(tmp_path_factory, fake_env(0.0))


@pytest.fixture(scope="session")
def slow_fake_app_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app with a FakeEngine that works SLOW_FAKE_DELAY seconds per page, for tests of
    what the UI does while pages are being processed."""
    yield from _serve(tmp_path_factory, fake_env(SLOW_FAKE_DELAY))


SLOW_FAKE_DELAY = 4.0  # long enough that a click waiting for a page would show


def fake_env(delay: float) -> dict[str, str]:
    """Server environment for the FakeEngine with ``delay`` seconds per page."""
    return {
        "WORKBENCH_ENGINE_FACTORY": "tests.fakes.fake_engine:from_env",
        "WORKBENCH_FAKE_DELAY": str(delay),
    }


def _serve(tmp_path_factory: pytest.TempPathFactory, extra: dict[str, str]) -> Iterator[str]:
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}")
    port = _free_port()
    log_path = tmp_path_factory.mktemp("st") / "server.log"
    log = open(log_path, "w+")  # noqa: SIM115 (a PIPE can fill up and block the server)
    env = {k: v for k, v in os.environ.items() if not k.startswith("STREAMLIT_")}
    env.update(extra)
    # The console script, as users start it: `python -m streamlit` would put the working
    # directory on sys.path and hide a broken import path in Home.py.
    exe = shutil.which("streamlit")
    launcher = [exe] if exe else [sys.executable, "-m", "streamlit"]
    proc = subprocess.Popen(
        [*launcher, "run", "workbench/Home.py",
         "--server.port", str(port), "--server.address", "127.0.0.1",
         "--server.headless", "true", "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    url, deadline = f"http://127.0.0.1:{port}", time.monotonic() + 60
    while True:
        try:
            if urllib.request.urlopen(url + "/_stcore/health", timeout=1).read() == b"ok":
                break
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            log.seek(0)
            pytest.fail("streamlit did not start:\n" + log.read())
        time.sleep(0.2)
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROME_ARGS)
        yield b
        b.close()


#: Upper bound for waits on the app's state (a wait returns as soon as the state is reached;
#: the bound only decides when a test gives up). Playwright's own default for ``expect`` is
#: 5 s, which a loaded 2-core machine exceeded just loading the viewer.
STATE_TIMEOUT_MS = 60_000


@pytest.fixture
def page(browser: object) -> Iterator[object]:
    from playwright.sync_api import expect

    expect.set_options(timeout=STATE_TIMEOUT_MS)
    ctx = browser.new_context(viewport={"width": 1500, "height": 1100})  # type: ignore[attr-defined]
    pg = ctx.new_page()
    pg.set_default_timeout(STATE_TIMEOUT_MS)
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.js_errors = errors
    yield pg
    ctx.close()


@pytest.fixture(scope="session")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = os.environ.get("WORKBENCH_SCREENSHOTS")
    path = Path(where) if where else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path
