"""A run records the engine settings that shape its output, so runs that differ say how."""

from __future__ import annotations

import pytest

from tests.fakes.openai_server import FakeOpenAIServer
from workbench.engines.factory import CpuOptions, build_engine
from workbench.engines.server.engine import VllmServerEngine
from workbench.models.registry import CPU_SPEC, get_spec
from workbench.pipeline.request import run_info
from workbench.ui.compare.parts import differing_settings


@pytest.mark.slow
def test_two_cpu_runs_with_other_settings_differ_in_their_manifests() -> None:
    a = build_engine(CpuOptions())
    b = build_engine(CpuOptions(text_layer="never", detect_tables=False))
    infos = [run_info(e, CPU_SPEC, name="r", documents=[], dpi=200, source="cli") for e in (a, b)]
    assert infos[0].settings["text_layer"] == "auto"
    assert infos[1].settings["text_layer"] == "never"
    assert infos[1].settings["detect_tables"] == "false"
    assert differing_settings(infos) == ["detect_tables", "text_layer"]


def test_server_runs_record_no_api_key_and_no_transport_knobs() -> None:
    with FakeOpenAIServer() as server:
        engine = VllmServerEngine(server.base_url, api_key="sk-secret", concurrency=4)
        info = run_info(
            engine, get_spec("lightonai/LightOnOCR-2-1B"), name="r", documents=[], dpi=0,
            source="cli",
        )  # fmt: skip
    assert "sk-secret" not in info.model_dump_json()
    assert "concurrency" not in info.settings and "timeout_s" not in info.settings
    assert info.settings["spec"] == "lightonai/LightOnOCR-2-1B"
