"""``python -m workbench ocr`` on a vLLM engine ends with one line of vLLM's own numbers over
the run (issue 36); on an engine without them (CPU, a server without /metrics) there is none."""

from __future__ import annotations

import re
from pathlib import Path

import pypdfium2 as pdfium
import pytest

from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.fakes.vllm_metrics import VllmMetrics
from workbench.cli import main

LIGHTON = "lightonai/LightOnOCR-2-1B"


def _pdfs(folder: Path, n: int) -> Path:
    folder.mkdir()
    for i in range(n):
        pdf = pdfium.PdfDocument.new()
        pdf.new_page(300, 400)
        pdf.save(str(folder / f"doc{i}.pdf"))
    return folder


def _ocr(server: FakeOpenAIServer, folder: Path, out: Path) -> int:
    return main(["ocr", str(folder), "--out", str(out), "--engine", "vllm-server",
                 "--base-url", server.base_url, "--concurrency", "3"])  # fmt: skip


def test_a_vllm_run_ends_with_the_telemetry_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _pdfs(tmp_path / "in", 4)
    replies = [Reply("Page text. " * 20, delay=0.3)] * 3 + [Reply("| a |\n" * 50, "length")]
    with FakeOpenAIServer(replies, models=[LIGHTON]) as server:
        server.vllm_metrics = VllmMetrics(LIGHTON)
        server.vllm_metrics.finish("stop", 5, 5, 0.1)  # before the run: not counted in it
        server.vllm_metrics.preempt(2)  # likewise
        assert _ocr(server, folder, tmp_path / "out") == 0
    lines = [ln for ln in capsys.readouterr().err.splitlines() if ln.startswith("vLLM: ")]
    assert len(lines) == 1, lines
    line = lines[0]
    cut = re.search(r"(\d+) of (\d+) answers cut off at max_tokens", line)
    assert cut is not None  # a looping answer and its retries (the run's alone)
    assert int(cut[1]) >= 1 and int(cut[2]) >= 4
    assert "0 preemptions" in line and "KV cache peak" in line
    assert "generated tokens/s" in line


def test_no_line_without_vllm_metrics(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _pdfs(tmp_path / "in", 1)
    with FakeOpenAIServer(models=[LIGHTON]) as server:  # an OpenAI server, not vLLM
        assert _ocr(server, folder, tmp_path / "out") == 0
    assert "vLLM: " not in capsys.readouterr().err
