"""The H200 benchmark's plumbing (benchmarks/gpu_throughput.py), against the fake OpenAI server
in place of ``vllm serve``: it builds both page sets, sends the workbench's own request bodies
from its raw client (every page once, the bounded max_tokens, the streaming fields fitted to
the server's version) and runs the real CLI on the same pages; the numbers are not judged."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any, ClassVar

import pytest

from benchmarks import gpu_throughput
from tests.fakes.openai_server import FakeOpenAIServer

MODEL = "lightonai/LightOnOCR-2-1B"


@pytest.mark.slow  # two CLI subprocesses
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


class _Output:
    def __init__(self, n: int) -> None:
        self.outputs = [SimpleNamespace(token_ids=list(range(n)), text="x")]


class _FakeLLM:
    """Stands in for vllm.LLM (no GPU here): records what the child gives it."""

    made: ClassVar[list[dict[str, Any]]] = []
    chats: ClassVar[list[tuple[list[Any], Any, Any]]] = []

    def __init__(self, model: str, **kwargs: Any) -> None:
        self.made.append({"model": model, **kwargs})

    def chat(self, conversations: list[Any], params: Any, **kwargs: Any) -> list[_Output]:
        self.chats.append((conversations, params, kwargs))
        return [_Output(params.max_tokens) for _ in conversations]


def test_local_raw_child_loads_once_and_sends_the_engines_conversations(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = ModuleType("vllm")
    fake.LLM = _FakeLLM  # type: ignore[attr-defined]
    fake.SamplingParams = lambda **kw: SimpleNamespace(**kw)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "vllm", fake)
    planned = {"gpu_memory_utilization": 0.9, "max_num_batched_tokens": 16384}
    monkeypatch.setattr(
        "workbench.cli.ocr.job.local_engine_args", lambda spec, profile: dict(planned)
    )
    result = tmp_path / "rows.json"
    argv = ["--local-child", str(result), "--model", MODEL, "--max-tokens", "32",
            "--work", str(tmp_path), "--sets", "a", "b", "--long-pages", "3", "--docs", "2",
            "--sizes", "1", "2", "--engine-arg", "load_format=dummy",
            "--engine-arg", "max_num_batched_tokens=4096"]  # fmt: skip
    gpu_throughput.inputs(gpu_throughput.parse(argv), tmp_path, "a")  # built by the parent
    gpu_throughput.inputs(gpu_throughput.parse(argv), tmp_path, "b")
    gpu_throughput.main(argv)
    rows = json.loads(result.read_text())
    assert {k: (v["pages"], v["tokens"]) for k, v in rows.items()} == {"a": (3, 96), "b": (3, 96)}
    assert _FakeLLM.made == [
        {"model": MODEL, "max_model_len": -1, "gpu_memory_utilization": 0.9,
         "max_num_batched_tokens": 4096, "load_format": "dummy"}
    ]  # fmt: skip
    conversations, params, _ = _FakeLLM.chats[0]
    assert params.max_tokens == 32 and len(conversations) == 3
    assert conversations[0][-1]["content"][0]["type"] == "image_pil"  # as VllmLocalEngine sends
