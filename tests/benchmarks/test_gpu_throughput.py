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
import time
from pathlib import Path
from typing import Any

import pytest

from benchmarks import chandra_client, gpu_inprocess, gpu_throughput
from tests.fakes import fake_vllm as fv
from tests.fakes.openai_server import DEFAULT_TEXT, FakeOpenAIServer

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


@pytest.mark.slow  # one CLI subprocess
def test_a_vendor_recipe_served_beside_the_plan_gets_the_baseline_client(tmp_path: Path) -> None:
    """``--baseline-url``: the raw client's runs go to the recipe's server, the CLI's to the
    plan's, alternated in one run (two servers on one GPU), each row's breakdown read from the
    server it ran on."""
    with (
        FakeOpenAIServer(models=[MODEL]) as recipe,
        FakeOpenAIServer(models=[MODEL]) as plan,
    ):
        for server in (recipe, plan):
            server.vllm_streaming, server.version = True, "0.26.0"
        argv = ["--base-url", plan.base_url, "--baseline-url", recipe.base_url, "--model",
                MODEL, "--long-pages", "3", "--sets", "a", "--max-tokens", "16",
                "--concurrency", "2", "--rounds", "1", "--work", str(tmp_path)]  # fmt: skip
        report = gpu_throughput.main(argv)
        assert len(recipe.requests) == 3 + 3  # the raw client's warm-up and its pages
        assert len(plan.requests) == 3  # the CLI's pages only
    [raw] = report["results"]["a"]["server-raw"]
    [cli] = report["results"]["a"]["server-cli"]
    assert (raw["pages"], raw["failed"], cli["pages"]) == (3, 0, 3)


@pytest.mark.slow  # two CLI subprocesses
def test_a_candidate_plan_server_gets_the_cli_beside_the_plan_and_the_baseline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--candidate-url`` with ``server-cli-b``: three servers in one run (recipe, plan, the
    plan with one setting changed); the same CLI goes to the plan's and the candidate's, each
    row in the table against the one baseline."""
    with (
        FakeOpenAIServer(models=[MODEL]) as recipe,
        FakeOpenAIServer(models=[MODEL]) as plan,
        FakeOpenAIServer(models=[MODEL]) as candidate,
    ):
        for server in (recipe, plan, candidate):
            server.vllm_streaming, server.version = True, "0.26.0"
        argv = ["--base-url", plan.base_url, "--baseline-url", recipe.base_url,
                "--candidate-url", candidate.base_url, "--model", MODEL, "--long-pages", "3",
                "--sets", "a", "--max-tokens", "16", "--concurrency", "2", "--rounds", "1",
                "--modes", "server-raw", "server-cli", "server-cli-b",
                "--work", str(tmp_path)]  # fmt: skip
        report = gpu_throughput.main(argv)
        assert (len(recipe.requests), len(plan.requests), len(candidate.requests)) == (6, 3, 3)
    rows = report["results"]["a"]
    assert [r["pages"] for r in rows["server-cli"] + rows["server-cli-b"]] == [3, 3]
    table = capsys.readouterr().out
    assert "| a (one long PDF) | server | 3 |" in table
    assert "| a (one long PDF) | server (candidate server) | 3 |" in table
    with pytest.raises(SystemExit):
        gpu_throughput.parse(["--base-url", "http://x/v1", "--modes", "server-cli-b"])


CHANDRA = "datalab-to/chandra-ocr-2"


@pytest.mark.slow  # one CLI subprocess
def test_chandras_client_waits_for_each_batch_of_a_file_then_the_next(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Chandra's CLI's way on one server, alternated with the workbench's CLI: set (a)'s 7
    pages in batches of 3 (3, 3, 1), never more than a batch in flight, and no page of a batch
    sent before every page of the batches before it was answered (the barrier); Chandra's
    body (non-streamed, its prompt after the image, temperature 0, top_p 0.1)."""
    seen: list[tuple[int, int]] = []  # (answered before it arrived, in flight with it)
    # counted here, before the reply is written: the server's own in_flight drops only after
    # the client has its reply, so a client that sends at once could be counted as early
    count = {"done": 0, "active": 0}

    def respond(body: dict[str, Any]) -> str:
        with server._lock:
            count["active"] += 1
            seen.append((count["done"], count["active"]))
            slow = len(seen) % 3 == 2  # one page of each batch: the others finish first
        time.sleep(0.3 if slow else 0.01)
        with server._lock:
            count["active"] -= 1
            count["done"] += 1
        return DEFAULT_TEXT

    with FakeOpenAIServer(models=[CHANDRA], respond=respond) as server:
        server.version = "0.26.0"
        argv = ["--base-url", server.base_url, "--model", CHANDRA, "--long-pages", "7",
                "--sets", "a", "--max-tokens", "32", "--rounds", "1", "--chandra-batch", "3",
                "--modes", "server-chandra", "server-cli", "--work", str(tmp_path)]  # fmt: skip
        report = gpu_throughput.main(argv)
        [row] = report["results"]["a"]["server-chandra"]
        assert (row["pages"], row["failed"], row["batches"]) == (7, 0, 3)
        chandra = server.requests[: 4 + 7]  # 4 warm-up pages, then the 7 timed
        assert report["results"]["a"]["server-cli"][0]["pages"] == 7
    timed = seen[4 : 4 + 7]
    for arrived, (answered, in_flight) in enumerate(timed):
        batch_start = arrived // 3 * 3
        assert answered >= 4 + batch_start, (arrived, timed)  # the earlier batches all done
        assert in_flight <= 3
    body = chandra[-1]
    assert "stream" not in body and body["max_tokens"] == 32
    assert (body["temperature"], body["top_p"]) == (0.0, 0.1)
    image, text = body["messages"][0]["content"]
    assert image["image_url"]["url"].startswith("data:image/png;base64,")
    assert text == {"type": "text", "text": gpu_throughput.spec_for(
        gpu_throughput.parse(argv)).prompt}  # fmt: skip
    assert "| a (one long PDF) | server, Chandra's client | 7 |" in capsys.readouterr().out


def test_chandras_batches_never_mix_files() -> None:
    docs = [[b"1"] * 5, [b"2"] * 2, [b"3"] * 28, [b"4"] * 29]
    sizes = [len(group) for group in chandra_client.batches(docs)]
    assert sizes == [5, 2, 28, 28, 1]
    assert chandra_client.batches(docs, 2)[:3] == [[b"1"] * 2, [b"1"] * 2, [b"1"]]


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

    # 2 s a page: the caller of 30 is slow, and its pages are all in flight at once even when
    # a loaded machine submits them slowly (at 0.4 s a page they finished first, once)
    monkeypatch.setattr(fv.FakeLLM, "tokens", 1000)
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


def test_no_page_repeats_within_a_set_or_across_rounds(tmp_path: Path) -> None:
    """tests/data holds 36 pages; a 40-page set repeats four of them. Each page is labelled
    with its set, round and number so a server's prefix and multimodal caches never answer a
    page it saw before (Chandra's recipe has them on)."""
    import argparse
    import hashlib

    import pypdfium2 as pdfium

    args = argparse.Namespace(long_pages=40, docs=3, sizes=[1, 2])

    def images(files: list[Path]) -> list[str]:
        digests = []
        for path in files:
            pdf = pdfium.PdfDocument(str(path))
            for page in pdf:
                bitmap = page.render(scale=0.5).to_pil().tobytes()
                digests.append(hashlib.sha1(bitmap).hexdigest())
            pdf.close()
        return digests

    first = images(gpu_throughput.inputs(args, tmp_path, "a", 0))
    second = images(gpu_throughput.inputs(args, tmp_path, "a", 1))
    folder = images(gpu_throughput.inputs(args, tmp_path, "b", 0))
    assert len(first) == 40 and len(set(first)) == 40
    assert not set(first) & set(second)
    assert len(folder) == 4 and not set(folder) & set(first)
    pdf = pdfium.PdfDocument(str(gpu_throughput.inputs(args, tmp_path, "a", 1)[0]))
    assert pdf[36].get_textpage().get_text_range().rstrip().endswith("a2 37")
    pdf.close()


@pytest.mark.slow  # one CLI subprocess
def test_a_recipe_server_that_died_leaves_its_run_out_and_the_bench_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """LightOnOCR's recipe died of an out-of-memory in round 2 on the H100 (2026-12-06) and
    the benchmark stopped on the dead connection, losing the CLI's round: a baseline run
    that fails is recorded with its error, left out of the medians, and the rounds go on."""
    with FakeOpenAIServer(models=[MODEL]) as gone:
        dead_url = gone.base_url
    with FakeOpenAIServer(models=[MODEL]) as plan:
        plan.vllm_streaming, plan.version = True, "0.26.0"
        argv = ["--base-url", plan.base_url, "--baseline-url", dead_url, "--model", MODEL,
                "--long-pages", "2", "--sets", "a", "--max-tokens", "16", "--rounds", "1",
                "--work", str(tmp_path)]  # fmt: skip
        report = gpu_throughput.main(argv)
    [raw] = report["results"]["a"]["server-raw"]
    [cli] = report["results"]["a"]["server-cli"]
    assert "ConnectError" in raw["error"] and cli["pages"] == 2 and cli["exit"] == 0
    out = capsys.readouterr().out
    assert "| a (one long PDF) | server | 2 | 0.00 |" in out and "| — | — |" in out
    assert "not in the medians: a server-raw round 1: ConnectError" in out
