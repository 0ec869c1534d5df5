"""The CLI against a real HTTP server that answers badly (issue 31.3, 31.4): an empty answer is
an error page, never ``ok``; a dead engine is said once, with the cause vLLM reported and the
fix for that cause."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from tests.engines.test_vllm_dead import ILLEGAL
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from workbench.cli import main


def tiff(path: Path, pages: int) -> Path:
    frames = [Image.new("RGB", (200, 260), (i * 30, 90, 160)) for i in range(pages)]
    frames[0].save(path, save_all=True, append_images=frames[1:])
    return path


def ocr(doc: Path, out: Path, server: FakeOpenAIServer, *extra: str) -> int:
    return main(["ocr", str(doc), "--out", str(out), "--engine", "vllm-server", "--base-url",
                 server.base_url, "--spec", "lightonai/LightOnOCR-2-1B", "--concurrency", "1",
                 *extra])  # fmt: skip


def test_an_empty_answer_is_an_error_page_not_ok(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    with FakeOpenAIServer([Reply("", fault="done_only")] * 3) as server:
        code = ocr(tiff(tmp_path / "one.tif", 1), out, server, "--quiet")
    err = capsys.readouterr().err
    assert code == 1, err
    page = json.loads((out / "one" / "page-0001.json").read_text())
    assert page["status"] == "error" and page["error"].startswith("empty answer:")
    assert "error: one.tif page 1: empty answer:" in err


def test_a_dead_engine_is_said_once_with_its_own_cause_and_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    replies = ["# page one", Reply(ILLEGAL, status=500)]
    with FakeOpenAIServer(replies) as server:
        code = ocr(tiff(tmp_path / "many.tif", 12), out, server)
        sent = server.completions
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert code == 1
    assert sent == 2  # nothing after the death was sent
    assert len(errors) == 1, err  # not one per page left (11 before)
    assert "RuntimeError: CUDA error: an illegal memory access was encountered" in errors[0]
    assert "max-num-batched-tokens" not in err and "out of memory" not in err
    assert "restart `vllm serve`" in errors[0]
    assert "1 page(s) written" not in err and "12 page(s) written, 11 failed" in err
