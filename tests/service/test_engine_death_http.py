"""A vLLM engine that dies under the service, and a service that is killed: the real service
process on a vLLM server's API (:mod:`tests.fakes.openai_server`, which answers as ``vllm
serve`` does once its EngineCore is gone). The run in flight ends ``partial`` with vLLM's
reason, the next submission gets a new engine, and ``POST /v1/runs/{id}/retry`` processes
the failed (or never done) pages into the same run; a killed service's run is
``interrupted`` after a restart and resumes with the same endpoint, every page once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.service.conftest import (
    DATA,
    ROOT,
    Service,
    start_service,
    stop_service,
    submit,
    wait_finished,
)

DIED = "EngineCore encountered an issue. See stack trace (above) for the root cause."
SPEC = "lightonai/LightOnOCR-2-1B"


def _serve(store: Path, server: FakeOpenAIServer) -> Service:
    return start_service(
        store, "--engine", "vllm-server", "--base-url", server.base_url, "--spec", SPEC,
        "--concurrency", "1",
    )  # fmt: skip


def _pages(client: httpx.Client, run_id: str, doc: str) -> dict[int, dict]:
    """The run's stored pages of ``doc``, by number (its regions endpoint per page)."""
    found = {}
    for n in range(1, 5):
        answer = client.get(f"/v1/runs/{run_id}/documents/{doc}/pages/{n}/regions")
        if answer.status_code == 200:
            found[n] = answer.json()
    return found


def test_a_dead_engine_is_rebuilt_and_the_failed_run_retried(tmp_path: Path) -> None:
    with FakeOpenAIServer([Reply(DIED, status=500)]) as server:
        service = _serve(tmp_path / "store", server)
        try:
            with service.client() as client:
                first = submit(client, "dd0293_p1-2.pdf").json()["id"]
                died = wait_finished(client, first)
                second = submit(client, "dd0293_p1-2.pdf").json()["id"]
                fresh = wait_finished(client, second)
                retried = client.post(f"/v1/runs/{first}/retry")
                again = wait_finished(client, first)
                twice = client.post(f"/v1/runs/{first}/retry")  # nothing left to do
                twice_done = wait_finished(client, first)
                listed = {r["id"]: r["status"] for r in client.get("/v1/runs").json()}
                md = client.get(f"/v1/runs/{first}/documents/dd0293_p1-2.pdf/markdown").text
        finally:
            stop_service(service)
    assert died["status"] == "partial" and died["pages_failed"] == 2
    assert "the vLLM engine died" in died["error"] and DIED.rstrip(".") in died["error"]
    assert fresh["status"] == "done" and fresh["pages_failed"] == 0  # a new engine
    assert retried.status_code == 202 and retried.json()["pages_total"] == 2
    assert again["status"] == "done" and (again["pages_done"], again["pages_failed"]) == (2, 0)
    assert twice.status_code == 202 and twice_done["status"] == "done"
    assert listed == {first: "done", second: "done"}
    assert "Text read by the fake OCR server." in md


def test_a_run_cannot_be_retried_while_it_runs_or_when_unknown(tmp_path: Path) -> None:
    with FakeOpenAIServer(delay=1.0) as server:
        service = _serve(tmp_path / "store", server)
        try:
            with service.client() as client:
                run_id = submit(client, "dd0293_p1-2.pdf").json()["id"]
                busy = client.post(f"/v1/runs/{run_id}/retry")
                unknown = client.post("/v1/runs/no-such-run/retry")
                wait_finished(client, run_id)
        finally:
            stop_service(service)
    assert busy.status_code == 409 and busy.json()["error"]["code"] == "run_in_use"
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "unknown_run"


def test_a_killed_services_run_is_interrupted_and_resumes_every_page_once(
    tmp_path: Path,
) -> None:
    store = tmp_path / "store"
    with FakeOpenAIServer(delay=1.0) as server:
        service = _serve(store, server)
        with service.client() as client:
            run_id = submit(client, "pdflatex_outline.pdf", pages="1-3").json()["id"]
            deadline = time.monotonic() + 120
            while client.get(f"/v1/runs/{run_id}").json()["pages_done"] < 1:
                assert time.monotonic() < deadline, "no page finished"
                time.sleep(0.1)
        os.kill(service.process.pid, signal.SIGKILL)
        service.process.wait(30)
        manifest = json.loads((store / run_id / "manifest.json").read_text())
        done_before = {e["page"] for e in manifest["pages"]}
        assert manifest["status"] == "running" and 1 <= len(done_before) < 3

        service = _serve(store, server)
        sent_before = server.completions
        try:
            with service.client() as client:
                stopped = client.get(f"/v1/runs/{run_id}").json()
                listed = {r["id"]: r["status"] for r in client.get("/v1/runs").json()}
                resumed = client.post(f"/v1/runs/{run_id}/retry")
                final = wait_finished(client, run_id)
                pages = _pages(client, run_id, "pdflatex_outline.pdf")
        finally:
            stop_service(service)
        sent_after = server.completions - sent_before
    assert stopped["status"] == "interrupted" and listed[run_id] == "interrupted"
    assert (stopped["pages_total"], stopped["pages_done"]) == (3, len(done_before))
    assert f"/v1/runs/{run_id}/retry" in stopped["error"]  # what to do, said
    assert resumed.status_code == 202
    assert final["status"] == "done" and (final["pages_total"], final["pages_done"]) == (3, 3)
    assert sorted(pages) == [1, 2, 3]  # page 4 was never asked for
    assert sent_after == 3 - len(done_before)  # the pages done before were not done again
    manifest = json.loads((store / run_id / "manifest.json").read_text())
    assert sorted(e["page"] for e in manifest["pages"]) == [1, 2, 3]  # each page once
    assert not (store / run_id / ".writer.lock").exists()


def test_a_cli_runs_progress_counts_the_pages_it_asked_for(tmp_path: Path) -> None:
    store = tmp_path / "store"
    with FakeOpenAIServer() as server:
        server.fail_next(1, status=400)  # one page fails (a refusal is not retried)
        cli = subprocess.run(
            [sys.executable, "-m", "workbench", "ocr", str(DATA / "pdflatex_outline.pdf"),
             "--out", str(store / "cli-run"), "--engine", "vllm-server",
             "--base-url", server.base_url, "--spec", SPEC, "--pages", "1-3",
             "--concurrency", "1"],
            env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
            timeout=300,
        )  # fmt: skip
        assert (store / "cli-run" / "manifest.json").is_file(), cli.stderr
        service = _serve(store, server)
        try:
            with service.client() as client:
                progress = client.get("/v1/runs/cli-run").json()
                retry = client.post("/v1/runs/cli-run/retry")
        finally:
            stop_service(service)
    assert progress["status"] == "partial"
    assert (progress["pages_total"], progress["pages_done"], progress["pages_failed"]) == (3, 3, 1)
    # the CLI kept no original in the store: said, nothing started
    assert retry.status_code == 409 and retry.json()["error"]["code"] == "no_original"
