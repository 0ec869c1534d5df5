"""Streaming: a long PDF goes through the CLI with flat memory. The CLI runs as a subprocess
against the real fake OpenAI server; the peak RSS of its whole process tree (the rendering
workers included) is read from /proc while it runs, for 30 pages and for 300 pages."""

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


def tree_rss_mb(root: int) -> float:
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
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            pass
        todo.extend(children.get(pid, []))
    return total / 1024


def peak_cli_mb(pdf: Path, out: Path, base_url: str) -> float:
    command = [sys.executable, "-m", "workbench", "ocr", str(pdf), "--out", str(out)]
    command += ["--engine", "vllm-server", "--base-url", base_url, "--quiet"]
    proc = subprocess.Popen(command, cwd=ROOT, stderr=subprocess.PIPE, text=True)
    peak = [0.0]
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], tree_rss_mb(proc.pid))
            done.wait(0.05)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    _, err = proc.communicate(timeout=600)
    done.set()
    watcher.join()
    assert proc.returncode == 0, err
    return peak[0]


def test_300_pages_take_no_more_memory_than_30(tmp_path: Path) -> None:
    short = cycled_pdf(30, tmp_path / "short.pdf")
    long = cycled_pdf(300, tmp_path / "long.pdf")
    with FakeOpenAIServer(models=["lightonai/LightOnOCR-2-1B"]) as server:
        peak_short = peak_cli_mb(short, tmp_path / "s", server.base_url)
        peak_long = peak_cli_mb(long, tmp_path / "l", server.base_url)
    written = list((tmp_path / "l").glob("*/page-*.png"))
    assert len([p for p in written if "-r" not in p.stem]) == 300
    # 300 pages held as PNG bytes would add ~90 MB, as decoded images ~1.5 GB.
    assert peak_long < peak_short + 40, (peak_short, peak_long)
