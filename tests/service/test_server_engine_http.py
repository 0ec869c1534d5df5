"""The service on a vLLM server's OpenAI API (``--engine vllm-server --base-url``), opened
as the CLI opens it: a real HTTP server that answers like vLLM and serves vLLM's moving
``/metrics`` (:mod:`tests.fakes.openai_server`, :mod:`tests.fakes.vllm_metrics`) behind the
real service process, its key passed on; the service's telemetry is vLLM's numbers."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.vllm_metrics import VllmMetrics
from tests.service.conftest import start_service, stop_service, submit, wait_finished


def test_runs_on_a_vllm_server_and_reads_its_telemetry(tmp_path: Path) -> None:
    with FakeOpenAIServer(api_key="vllm-key") as server:
        server.vllm_metrics = metrics = VllmMetrics(kv_blocks=2000)
        service = start_service(
            tmp_path / "store",
            "--engine", "vllm-server", "--base-url", server.base_url,
            "--spec", "lightonai/LightOnOCR-2-1B", "--server-api-key", "vllm-key",
        )  # fmt: skip
        try:
            with service.client() as client:
                health = client.get("/v1/health").json()
                assert (health["engine_kind"], health["model"]) == ("vllm-server", "fake/ocr-model")
                run_id = submit(client, "dd0293_p1-2.pdf").json()["id"]
                assert wait_finished(client, run_id)["status"] == "done"
                md = client.get(f"/v1/runs/{run_id}/documents/dd0293_p1-2.pdf/pages/2/markdown")
                assert "Text read by the fake OCR server." in md.text
                listed = {r["id"]: r for r in client.get("/v1/runs").json()}
                assert listed[run_id]["engine"] == "vllm-server"

                first = client.get("/v1/engine/telemetry").json()["vllm"]
                assert first["finished"]["stop"] == 2  # the run's two pages, as vLLM counts
                server.metrics_page = metrics.text  # type: ignore[method-assign]  # the test's load
                metrics.set_load(running=3, waiting=5, kv_usage=0.42)
                metrics.finish("length", prompt_tokens=1000, tokens=4000, ttft=0.3)
                metrics.preempt(2)
                now = client.get("/v1/engine/telemetry").json()["vllm"]
        finally:
            stop_service(service)
        assert len(server.requests) == 2  # one completion a page, authorised by its key
    assert (now["running"], now["waiting"], now["kv_cache_usage"]) == (3, 5, 0.42)
    assert (now["preemptions"], now["cut_off"]) == (2, 1)
    assert now["kv_tokens"] == 2000 * 16
    assert now["generation_tokens"] == first["generation_tokens"] + 4000
    assert now["generation_tokens_per_s"] > 0  # a rate since the reading before


def test_the_cpu_engine_has_no_vllm_numbers(tmp_path: Path) -> None:
    service = start_service(tmp_path / "store")
    try:
        with service.client() as client:
            telemetry = client.get("/v1/engine/telemetry").json()
    finally:
        stop_service(service)
    assert telemetry["engine"] == "cpu" and telemetry["vllm"] is None
    assert isinstance(telemetry["gpus"], list)
