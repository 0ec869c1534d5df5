"""Helpers for the throughput benchmarks: a command timed with the peak memory of its whole
process tree (worker processes included, read from /proc), pinned to chosen cores, and a fake
OpenAI server in its own process."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                parent = int(fh.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        tree.setdefault(parent, []).append(int(entry))
    return tree


def _rss_kb(pid: int) -> int:
    """Proportional set size where the kernel gives it (pages shared with the parent after a
    fork count once in all), else the resident set size."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            for line in fh:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def tree_rss_mb(root: int) -> tuple[float, float]:
    """(memory of ``root`` alone, of ``root`` and all its descendants), in MB (PSS or RSS)."""
    tree = _children()
    todo, total = [root], 0
    while todo:
        pid = todo.pop()
        total += _rss_kb(pid)
        todo.extend(tree.get(pid, []))
    return _rss_kb(root) / 1024, total / 1024


@dataclass
class Timed:
    wall: float
    peak_main_mb: float
    peak_tree_mb: float
    returncode: int
    stderr: str
    cpu_main: float = 0.0  # CPU seconds of the command's own process
    cpu_others: float = 0.0  # ... and of its descendants (the rendering workers)


TICK = os.sysconf("SC_CLK_TCK")
SERVERS: dict[str, int] = {}  # base URL -> pid of the fake server serving it


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of ``pid`` so far (0 when it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK
    except (OSError, ValueError, IndexError):
        return 0.0


def _descendants(root: int) -> list[int]:
    tree, out, todo = _children(), [], [root]
    while todo:
        kids = tree.get(todo.pop(), [])
        out.extend(kids)
        todo.extend(kids)
    return out


def timed(command: list[str], cores: str | None = None, env: dict[str, str] | None = None) -> Timed:
    """Run ``command`` (pinned to ``cores`` such as "0" or "0,1"); wall time and peak RSS."""
    if cores:
        command = ["taskset", "-c", cores, *command]
    peaks = [0.0, 0.0]
    cpu: dict[int, float] = {}
    started = time.perf_counter()
    proc = subprocess.Popen(
        command,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            main, tree = tree_rss_mb(proc.pid)
            peaks[0], peaks[1] = max(peaks[0], main), max(peaks[1], tree)
            for pid in [proc.pid, *_descendants(proc.pid)]:
                cpu[pid] = max(cpu.get(pid, 0.0), cpu_seconds(pid))
            done.wait(0.05)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    _, err = proc.communicate()
    wall = time.perf_counter() - started
    done.set()
    watcher.join()
    main_cpu = cpu.pop(proc.pid, 0.0)
    return Timed(
        wall, peaks[0], peaks[1], proc.returncode, err[-2000:], main_cpu, sum(cpu.values())
    )


@contextmanager
def fake_server(delay: float, cores: str | None = None, *extra: str) -> Iterator[str]:
    """The fake OpenAI server (tests/fakes/openai_server.py) in its own process; its base URL.
    ``extra``: more of its command-line arguments."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    command = [sys.executable, "-m", "tests.fakes.openai_server", "--port", str(port)]
    command += ["--delay", str(delay), *extra]
    if cores:
        command = ["taskset", "-c", cores, *command]
    process = subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    base = f"http://127.0.0.1:{port}"
    SERVERS[f"{base}/v1"] = process.pid
    try:
        for _ in range(200):
            try:
                httpx.get(f"{base}/v1/models", timeout=1).raise_for_status()
                break
            except httpx.HTTPError:
                time.sleep(0.1)
        yield f"{base}/v1"
    finally:
        process.terminate()
        process.wait(timeout=10)


def cores_available() -> list[int]:
    return sorted(os.sched_getaffinity(0))
