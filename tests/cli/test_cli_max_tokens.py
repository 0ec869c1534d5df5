"""``ocr --max-tokens N`` and ``--engine-arg KEY=VALUE`` (issue 21: the H200 benchmark bounds
every answer and starts vLLM with dummy weights through the CLI itself). The real CLI in this
process against the fake OpenAI server, a real one-page PDF from tests/data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fakes.openai_server import FakeOpenAIServer
from workbench.cli import main
from workbench.cli.ocr.job import extra_engine_args
from workbench.errors import UsageError

DATA = Path(__file__).resolve().parents[1] / "data"
MODEL = "lightonai/LightOnOCR-2-1B"


def test_max_tokens_bounds_every_request_and_is_part_of_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    pdf = str(DATA / "census_12s0324.pdf")
    with FakeOpenAIServer(models=[MODEL]) as server:
        base = ["ocr", pdf, "--out", str(out), "--engine", "vllm-server", "--quiet"]
        code = main([*base, "--base-url", server.base_url, "--max-tokens", "77"])
        assert code == 0, capsys.readouterr().err
        assert [b["max_tokens"] for b in server.requests] == [77]
        manifest = json.loads((out / "manifest.json").read_text())
        assert manifest["settings"]["max_tokens"] == 77
        (out / "census_12s0324" / "page-0001.json").unlink()  # a page to do again...
        code = main([*base, "--base-url", server.base_url, "--max-tokens", "99"])
    assert code == 2  # ...but not with another bound: two runs in one folder
    assert "max_tokens 77 → 99" in capsys.readouterr().err


def test_engine_args_are_json_when_they_parse_and_refused_elsewhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pairs = ["load_format=dummy", "max_num_batched_tokens=4096", "enforce_eager=true"]
    assert extra_engine_args(pairs) == {
        "load_format": "dummy",
        "max_num_batched_tokens": 4096,
        "enforce_eager": True,
    }
    with pytest.raises(UsageError, match="KEY=VALUE"):
        extra_engine_args(["load_format"])
    pdf = str(DATA / "census_12s0324.pdf")
    code = main(["ocr", pdf, "--out", str(tmp_path / "r"), "--engine-arg", "enforce_eager=true"])
    assert code == 2
    assert "--engine-arg applies to --engine vllm only" in capsys.readouterr().err
