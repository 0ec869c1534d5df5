"""The service on a vLLM server's OpenAI API (``--engine vllm-server --base-url``), opened
by the CLI's own engine path: a real HTTP server that answers like vLLM
(:mod:`tests.fakes.openai_server`) behind the real service process, its key passed on."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.openai_server import FakeOpenAIServer
from tests.service.conftest import start_service, stop_service, submit, wait_finished


def test_runs_on_a_vllm_server_with_its_key(tmp_path: Path) -> None:
    with FakeOpenAIServer(api_key="vllm-key") as server:
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
        finally:
            stop_service(service)
        assert len(server.requests) == 2  # one completion a page, authorised by its key
