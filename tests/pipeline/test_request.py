"""The typed run request (issue 32): every front end builds one, the engine's spec and the
``max_tokens`` bound come from it alone, and a run is compared with it by one rule."""

from __future__ import annotations

import argparse
from types import SimpleNamespace

import pytest

from workbench.cli.ocr.cmd import register, run_request
from workbench.engines.factory import CpuOptions, LocalOptions, ServerOptions
from workbench.errors import EngineUnavailable
from workbench.models.registry import CPU_SPEC, get_spec
from workbench.pipeline.request import RunRequest, RunShape, engine_spec, run_info
from workbench.settings import Settings

MODEL = "lightonai/LightOnOCR-2-1B"


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    return parser.parse_args(["ocr", "x.pdf", "--out", "o", *argv])


def test_the_cli_reads_its_arguments_into_one_typed_request() -> None:
    args = parse("--engine", "vllm-server", "--model", "m", "--spec", MODEL, "--max-tokens", "77",
                 "--pages", "1-2", "--dpi", "150")  # fmt: skip
    request = run_request(args, Settings())
    assert isinstance(request.options, ServerOptions) and request.options.model == "m"
    assert (request.spec_id, request.max_tokens, request.pages, request.dpi) == (
        MODEL, 77, "1-2", 150
    )  # fmt: skip
    local = run_request(
        parse("--engine", "vllm", "--model", MODEL, "--concurrency", "3"), Settings()
    )
    assert isinstance(local.options, LocalOptions) and local.options.concurrency == 3
    cpu = run_request(parse("--text-layer", "never", "--no-tables"), Settings())
    assert cpu.options == CpuOptions(text_layer="never", detect_tables=False)


def test_the_spec_is_decided_once_and_bounded_by_the_request() -> None:
    served = SimpleNamespace(name="vllm-server", model=MODEL.upper())
    assert RunRequest(ServerOptions("u"), max_tokens=99).spec_of(served).max_tokens == 99  # type: ignore[arg-type]
    assert engine_spec(SimpleNamespace(name="cpu", model="x")) is CPU_SPEC  # type: ignore[arg-type]
    unknown = SimpleNamespace(name="vllm-server", model="someone/else")
    assert engine_spec(unknown, MODEL) is get_spec(MODEL)  # type: ignore[arg-type]
    with pytest.raises(EngineUnavailable, match="no model spec matches"):
        engine_spec(unknown)  # type: ignore[arg-type]


def test_a_run_is_compared_with_a_request_and_a_resumed_run_by_one_rule() -> None:
    engine = SimpleNamespace(
        name="cpu", model="cpu", describe=lambda: {"text_layer": "only", "detect_tables": "true",
                                                   "handwriting_threshold": "60.0"},
    )  # fmt: skip
    request = RunRequest(CpuOptions(text_layer="only"), spec_id="cpu", max_tokens=50)
    info = request.run_info(engine, CPU_SPEC, name="r", documents=[], source="cli")  # type: ignore[arg-type]
    assert info.settings["max_tokens"] == 50 and info.settings["dpi"] == 200.0
    recorded = RunShape.of(info)
    assert recorded.differences(RunShape.stated(request)) == []
    other = RunRequest(CpuOptions(text_layer="never"), dpi=150)
    assert recorded.differences(RunShape.stated(other)) == [
        ("dpi", "200.0", "150.0"),
        ("text_layer", "only", "never"),
    ]
    unbounded = run_info(engine, CPU_SPEC, name="r", documents=[], dpi=200, source="cli")  # type: ignore[arg-type]
    assert "max_tokens" not in unbounded.settings
    assert RunShape.of(unbounded).differences(recorded) == []  # a key one lacks is no difference
