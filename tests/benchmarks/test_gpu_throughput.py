"""The H200 benchmarks' plumbing, the numbers not judged: benchmarks/gpu_throughput.py against
the fake OpenAI server in place of ``vllm serve`` (both page sets, the workbench's own request
bodies from its raw client: every page once, the bounded max_tokens, the streaming fields
fitted to the server's version; the real CLI on the same pages, at its default settings,
alternated with the raw client), and benchmarks/gpu_inprocess.py on the real in-process engine
class over :mod:`tests.fakes.fake_vllm` (raw ``LLM.chat`` and the CLI's path on one engine,
two callers and Cancel, the EngineCore killed mid-run and the run resumed)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from benchmarks import gpu_inprocess, gpu_throughput
from tests.fakes import fake_vllm as fv
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
                "--rounds", "1", "--work", str(tmp_path),
                "--json", str(tmp_path / "out.json")]  # fmt: skip
        report = gpu_throughput.main(argv)
    results = report["results"]
    [raw_a], [raw_b] = results["a"]["server-raw"], results["b"]["server-raw"]
    [cli_a], [cli_b] = results["a"]["server-cli"], results["b"]["server-cli"]
    assert raw_a["pages"] == 5 and raw_b["pages"] == 4 and raw_a["failed"] == 0
    assert cli_a["pages"] == 5 and cli_b["pages"] == 4
    assert cli_a["exit"] == 0, cli_a
    assert 0 < cli_b["after_ready_s"] < cli_b["seconds"]
    # raw: 4 warm-up + 5 + 4 warm-up + 4; the CLI: 5 + 4; all with the same bound
    assert len(server.requests) == 26
    assert {b["max_tokens"] for b in server.requests} == {64}
    assert all("stream_interval" not in b for b in server.requests)  # vLLM 0.26 ignores it
    assert json.loads((tmp_path / "out.json").read_text())["results"] == results
    table = capsys.readouterr().out
    assert "| a (one long PDF) | server | 5 |" in table
    assert "| b (folder of short PDFs) | server | 4 |" in table


@pytest.mark.slow  # the CLI's path three times over
def test_inprocess_stages_on_one_engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "vllm", fv.module())
    monkeypatch.setattr(fv.FakeLLM, "tokens", 3)
    built: list[Any] = []

    def build(args: Any) -> Any:  # the planner needs a GPU; the engine class is the real one
        from workbench.engines.vllm_local import VllmLocalEngine

        built.append(VllmLocalEngine(MODEL, {"max_num_seqs": 6}))
        return built[-1]

    def kill_engine_core() -> list[int]:  # as a SIGKILL of vLLM's EngineCore process does
        assert fv.FakeLLM.last is not None
        fv.FakeLLM.last.die()
        return []

    monkeypatch.setattr(gpu_inprocess, "build", build)
    monkeypatch.setattr(gpu_inprocess, "engine_core_pids", kill_engine_core)
    argv = ["--model", MODEL, "--long-pages", "30", "--docs", "3", "--sizes", "1", "2",
            "--max-tokens", "16", "--rounds", "2", "--work", str(tmp_path),
            "--json", str(tmp_path / "in.json")]  # fmt: skip
    stages = ["--stages", "rates-b", "rates-a", "kill", "--wb-in-flight", "3", "--wb-unpaced"]
    report = gpu_inprocess.main([*argv, *stages])
    rates = report["rates"]
    for name, pages in (("a", 30), ("b", 4)):
        rounds = rates[name]["rounds"]
        assert [r["pages"] for r in rounds["raw"]] == [pages, pages]
        assert [r["pages"] for r in rounds["workbench"]] == [pages, pages]
        assert all(r["exit"] == 0 for r in rounds["workbench"])
        assert [r["pages"] for r in rounds["workbench@3"]] == [pages, pages]
        assert [r["pages"] for r in rounds["workbench-unpaced"]] == [pages, pages]
        assert rates[name]["ratio"] > 0 and rates[name]["ratio_workbench@3"] > 0
    kill = report["kill"]
    assert kill["first"]["exit"] == 1 and "EngineCore" in kill["first"]["dead"]
    assert kill["resumed"]["exit"] == 0
    assert kill["manifest_entries"] == kill["distinct_pages"] == kill["page_files"] == 30
    assert len(built) == 2 and built[0].closed and built[1].closed  # rebuilt, then closed

    monkeypatch.setattr(fv.FakeLLM, "tokens", 200)  # 0.4 s a page: the caller of 30 is slow
    variants = ["plan+pace", "32"]
    argv += ["--caller-variants", *variants]
    callers = gpu_inprocess.main([*argv, "--stages", "callers"])["callers"]
    assert callers["alone_s"] > 0 and list(callers["variants"]) == variants
    plan, wide = (callers["variants"][name] for name in variants)
    assert plan["held_when_sent"] == 6 == plan["in_flight"]  # the engine's slots were full
    assert 0 < plan["in_vllm_when_sent"] <= 6 and plan["pace"] > 0
    assert wide["in_flight"] == 32 and wide["held_when_sent"] == 30  # every page of A
    assert wide["pace"] is None and wide["in_vllm_when_sent"] == 30  # unpaced: all in vLLM
    for row in (plan, wide):
        assert row["a_done_at_steady"] >= 10 and len(row["steady_s"]) == 2
        assert row["a_cancelled"] + row["a_finished"] == 30 and row["cancel_to_none_in_vllm_s"] < 5
    assert plan["a_cancelled"] > 0 and plan["in_vllm_before_cancel"] > 0  # 6 at a time: slow
    assert built[-1].concurrency == 6  # the plan's pages in flight again afterwards
    from workbench.pipeline.request import RunRequest

    assert RunRequest.open is gpu_inprocess._CLI_OPEN  # the CLI is left as it was
