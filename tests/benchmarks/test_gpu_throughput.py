"""The H200 benchmark's plumbing (benchmarks/gpu_throughput.py), against the fake OpenAI server
in place of ``vllm serve``: it builds both page sets, sends the workbench's own request bodies
from its raw client (every page once, the bounded max_tokens, the streaming fields fitted to
the server's version) and runs the real CLI on the same pages; the numbers are not judged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import gpu_throughput
from tests.fakes.openai_server import FakeOpenAIServer

MODEL = "lightonai/LightOnOCR-2-1B"
pytestmark = pytest.mark.slow  # two CLI subprocesses


def test_server_modes_side_by_side_on_both_sets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeOpenAIServer(models=[MODEL], delay=0.05) as server:
        server.vllm_streaming, server.version, server.ignore_interval = True, "0.26.0", True
        argv = ["--base-url", server.base_url, "--model", MODEL, "--long-pages", "5",
                "--docs", "3", "--sizes", "1", "2", "--max-tokens", "64", "--concurrency", "4",
                "--work", str(tmp_path), "--json", str(tmp_path / "out.json")]  # fmt: skip
        report = gpu_throughput.main(argv)
    results = report["results"]
    assert results["a"]["server-raw"]["pages"] == 5 and results["b"]["server-raw"]["pages"] == 4
    assert results["a"]["server-raw"]["failed"] == 0
    assert results["a"]["server-cli"]["pages"] == 5 and results["b"]["server-cli"]["pages"] == 4
    assert results["a"]["server-cli"]["exit"] == 0, results["a"]["server-cli"]
    assert 0 < results["b"]["server-cli"]["after_ready_s"] < results["b"]["server-cli"]["seconds"]
    # raw: 4 warm-up + 5 + 4 warm-up + 4; the CLI: 5 + 4; all with the same bound
    assert len(server.requests) == 26
    assert {b["max_tokens"] for b in server.requests} == {64}
    assert all("stream_interval" not in b for b in server.requests)  # vLLM 0.26 ignores it
    assert json.loads((tmp_path / "out.json").read_text())["results"] == results
    table = capsys.readouterr().out
    assert "| a (one long PDF) | server | 5 |" in table
    assert "| b (folder of short PDFs) | server | 4 |" in table
