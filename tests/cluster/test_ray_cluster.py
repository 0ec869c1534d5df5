"""Batch OCR on a real Ray cluster: a head and a second worker node started with ``ray start``
on loopback (127.0.0.2 and 127.0.0.3, one CPU each), the real CLI and the real CPU engine on
real PDFs.

* the cluster run writes the same page files as a local run of the same command;
* a worker node killed mid-run still ends with every page written once;
* running the command again resumes: nothing is redone.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("ray", reason="the ray extra is not installed (pip install -e '.[ray]')")

pytestmark = [pytest.mark.ray, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
HEAD, WORKER = "127.0.0.2", "127.0.0.3"
RAY = shutil.which("ray") or str(Path(sys.executable).with_name("ray"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


TOKEN = secrets.token_hex(32)  # this cluster's own token: Ray's token authentication, on


def _env() -> dict[str, str]:
    return {
        **os.environ,
        "RAY_USAGE_STATS_ENABLED": "0",
        "RAY_AUTH_MODE": "token",
        "RAY_AUTH_TOKEN": TOKEN,
        "PYTHONPATH": str(ROOT),
    }


def _ray(*args: str) -> None:
    subprocess.run([RAY, *args], check=True, env=_env(), capture_output=True, timeout=180)


def start_worker(address: str) -> None:
    _ray(
        "start",
        f"--address={address}",
        f"--node-ip-address={WORKER}",
        "--num-cpus=1",
        "--object-store-memory=100000000",
        "--disable-usage-stats",
    )


def kill_worker_node() -> int:
    """Kill the worker node's raylet (and so its workers), as a lost machine would."""
    out = subprocess.run(["pgrep", "-f", f"raylet.*node.ip.address={WORKER}"], capture_output=True)
    pids = [int(p) for p in out.stdout.split()]
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    return len(pids)


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    port = _free_port()
    address = f"{HEAD}:{port}"
    _ray(
        "start",
        "--head",
        f"--node-ip-address={HEAD}",
        f"--port={port}",
        "--num-cpus=1",
        "--object-store-memory=100000000",
        "--include-dashboard=false",
        "--disable-usage-stats",
    )
    try:
        start_worker(address)
        yield address
    finally:
        subprocess.run([RAY, "stop", "--force"], env=_env(), capture_output=True, timeout=120)


def cli(*args: str, timeout: float = 420) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "workbench", "ocr", *args],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _page_files(folder: Path) -> dict[str, object]:
    """Every file of a document folder; page JSON without its timings (a measurement)."""
    files: dict[str, object] = {}
    for path in sorted(folder.iterdir()):
        if path.name.startswith("page-") and path.suffix == ".json":
            page = json.loads(path.read_text())
            page.pop("seconds", None)
            for attempt in page.get("attempts", []):
                attempt.pop("seconds", None)
            files[path.name] = page
        else:
            files[path.name] = path.read_bytes()
    return files


def test_cluster_run_writes_the_same_pages_as_a_local_run(cluster: str, tmp_path: Path) -> None:
    pdf = DATA / "pdflatex_outline.pdf"
    local = cli(str(pdf), "--out", str(tmp_path / "local"), "--pages", "1-2")
    assert local.returncode == 0, local.stderr
    remote = cli(str(pdf), "--out", str(tmp_path / "ray"), "--pages", "1-2", "--ray", cluster)
    assert remote.returncode == 0, remote.stderr
    assert "processing on the Ray cluster" in remote.stderr
    a = _page_files(tmp_path / "local" / "pdflatex_outline")
    b = _page_files(tmp_path / "ray" / "pdflatex_outline")
    assert sorted(a) == sorted(b)
    assert {"page-0001.png", "page-0002.json", "document.md"} <= set(a)
    for name in a:
        assert a[name] == b[name], name
    manifest = json.loads((tmp_path / "ray" / "manifest.json").read_text())
    assert manifest["status"] == "done"
    assert manifest["settings"]["source"] == "cli-ray"


def test_worker_node_killed_mid_run_loses_no_page_and_resume_redoes_none(
    cluster: str, tmp_path: Path
) -> None:
    inputs = [DATA / "pdflatex_outline.pdf", DATA / "sf424_page2.pdf", DATA / "va210966_p1.pdf"]
    out = tmp_path / "out"
    args = [*map(str, inputs), "--out", str(out), "--ray", cluster]
    proc = subprocess.Popen(
        [sys.executable, "-m", "workbench", "ocr", *args],
        cwd=ROOT,
        env=_env(),
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 300
    while not list(out.glob("*/page-*.json")) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert list(out.glob("*/page-*.json")), "no page finished"
    killed = kill_worker_node()
    try:
        _, err = proc.communicate(timeout=420)
    finally:
        proc.kill()
        start_worker(cluster)  # the next test gets its two nodes back
    assert killed >= 1
    assert proc.returncode == 0, err
    manifest = json.loads((out / "manifest.json").read_text())
    keys = [(p["document"], p["page"]) for p in manifest["pages"]]
    assert len(keys) == len(set(keys)) == 6  # 4 + 1 + 1 pages, each once
    assert all(p["status"] != "error" for p in manifest["pages"])
    assert len(list(out.glob("*/page-????.json"))) == 6
    mtimes = {p: p.stat().st_mtime_ns for p in out.glob("*/page-*")}

    again = cli(*args)
    assert again.returncode == 0, again.stderr
    assert "nothing left to do" in again.stderr
    assert {p: p.stat().st_mtime_ns for p in out.glob("*/page-*")} == mtimes

    (out / "pdflatex_outline" / "page-0003.json").unlink()
    resumed = cli(*args)
    assert resumed.returncode == 0, resumed.stderr
    assert "3 page(s) already done" in resumed.stderr
    assert (out / "pdflatex_outline" / "page-0003.json").exists()
    untouched = {p: t for p, t in mtimes.items() if "page-0003" not in p.name}
    assert {p: p.stat().st_mtime_ns for p in untouched} == untouched
