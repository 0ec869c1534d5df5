"""Streaming: a long PDF goes through the CLI with flat memory. The CLI runs as a subprocess
against the real fake OpenAI server; the peak memory (PSS where the kernel gives it, else RSS)
of its main process and of its whole tree (the rendering workers included) is read from /proc
while it runs, for the first 30 pages and for all 300 pages of the same file (so what follows
the file's size, held by the main process and mapped by the workers, cancels out)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pypdfium2 as pdfium
import pytest

from tests.fakes.openai_server import FakeOpenAIServer

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc"),
]


def cycled_pdf(pages: int, path: Path) -> Path:
    """Real pages (tests/data, born-digital and scans) repeated to ``pages`` pages."""
    sources = [pdfium.PdfDocument(str(p)) for p in sorted(DATA.glob("*.pdf"))]
    out = pdfium.PdfDocument.new()
    while len(out) < pages:
        for src in sources:
            for i in range(len(src)):
                if len(out) < pages:
                    out.import_pages(src, [i])
    out.save(str(path))
    return path


def _memory_kb(pid: int) -> int:
    for name, key in (("smaps_rollup", "Pss:"), ("status", "VmRSS:")):
        try:
            for line in Path(f"/proc/{pid}/{name}").read_text().splitlines():
                if line.startswith(key):
                    return int(line.split()[1])
        except OSError:
            continue
    return 0


def memory_mb(root: int) -> tuple[float, float]:
    """(``root`` alone, ``root`` and all its descendants), in MB."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
                children.setdefault(int(stat.rsplit(")", 1)[1].split()[1]), []).append(int(entry))
            except (OSError, ValueError, IndexError):
                continue
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += _memory_kb(pid)
        todo.extend(children.get(pid, []))
    return _memory_kb(root) / 1024, total / 1024


def peak_cli_mb(pdf: Path, out: Path, base_url: str, *extra: str) -> tuple[float, float]:
    command = [sys.executable, "-m", "workbench", "ocr", str(pdf), "--out", str(out)]
    command += ["--engine", "vllm-server", "--base-url", base_url, "--quiet", *extra]
    proc = subprocess.Popen(command, cwd=ROOT, stderr=subprocess.PIPE, text=True)
    peak = [0.0, 0.0]
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            main, tree = memory_mb(proc.pid)
            peak[0], peak[1] = max(peak[0], main), max(peak[1], tree)
            done.wait(0.05)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    _, err = proc.communicate(timeout=600)
    done.set()
    watcher.join()
    assert proc.returncode == 0, err
    return peak[0], peak[1]


def test_300_pages_take_about_the_memory_of_30(tmp_path: Path) -> None:
    pdf = cycled_pdf(300, tmp_path / "long.pdf")
    with FakeOpenAIServer(models=["lightonai/LightOnOCR-2-1B"]) as server:
        main_30, tree_30 = peak_cli_mb(pdf, tmp_path / "s", server.base_url, "--pages", "1-30")
        main_300, tree_300 = peak_cli_mb(pdf, tmp_path / "l", server.base_url)
    written = [p for p in (tmp_path / "l").glob("*/page-*.png") if "-r" not in p.stem]
    assert len(written) == 300
    # 270 more pages held as PNG bytes would add ~80 MB to the main process, as decoded
    # images ~1.5 GB; what is left is allocator high-water marks of the request threads.
    assert main_300 < main_30 + 60, (main_30, main_300)
    assert tree_300 < tree_30 + 150, (tree_30, tree_300)
