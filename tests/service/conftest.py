"""The real service as a subprocess (``python -m workbench serve``) on a free port, with the
real embedded CPU engine and its own run store."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
START_S = 180  # the CPU engine's models load at start (seconds on a loaded 2-core box)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Service:
    url: str
    store: Path
    process: subprocess.Popen[bytes]
    log: Path

    def client(self, key: str | None = None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=120)


def start_service(store: Path, *flags: str, env: dict[str, str] | None = None) -> Service:
    """``python -m workbench serve`` on a free port, once its health endpoint answers."""
    port = free_port()
    log = store.parent / f"serve-{port}.log"
    # the project first, what the caller had after it (the GPU lab's site: vLLM, pydantic)
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    environ = {**os.environ, "WORKBENCH_STORE_DIR": str(store), "PYTHONPATH": path}
    environ.pop("WORKBENCH_SERVICE_KEY", None)
    environ.update(env or {})
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "workbench", "serve", "--port", str(port), *flags],
            cwd=ROOT,
            env=environ,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + START_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the service exited: {log.read_text(errors='replace')}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{url}/v1/health", timeout=2).status_code == 200:
                return Service(url, store, process, log)
        time.sleep(0.3)
    process.kill()
    raise RuntimeError(f"the service did not answer in {START_S} s: {log.read_text()}")


def stop_service(service: Service) -> None:
    service.process.terminate()
    try:
        service.process.wait(30)
    except subprocess.TimeoutExpired:
        service.process.kill()
        service.process.wait(10)


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    """One service for a test module: the default flags, folders allowed under one root."""
    base = tmp_path_factory.mktemp("service")
    root = base / "folders"
    root.mkdir()
    running = start_service(base / "store", "--folder-root", str(root))
    try:
        yield running
    finally:
        stop_service(running)


def wait_finished(client: httpx.Client, run_id: str, timeout: float = 300) -> dict:
    """Poll ``GET /v1/runs/{id}`` until the run has finished; its last progress."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        progress = client.get(f"/v1/runs/{run_id}").json()
        if progress["status"] not in ("queued", "running"):
            return progress
        time.sleep(0.2)
    raise AssertionError(f"run {run_id} still {progress['status']} after {timeout} s")


def submit(client: httpx.Client, *names: str, **form: str) -> httpx.Response:
    files = [("files", (n, (DATA / n).read_bytes(), "application/pdf")) for n in names]
    return client.post("/v1/runs", files=files, data=form)
