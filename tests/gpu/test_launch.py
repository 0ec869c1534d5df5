"""gpu.launch: the in-process engine's arguments are decided, or refused, before loading."""

from __future__ import annotations

import pytest

from workbench.errors import EngineUnavailable, PlanError
from workbench.gpu.launch import plan_local_launch
from workbench.gpu.telemetry import GpuReading, GpuSnapshot
from workbench.models.registry import get_spec

GiB = 1024**3


def snapshot(name: str, total_gib: float, used_gib: float = 0.0) -> GpuSnapshot:
    total, used = int(total_gib * GiB), int(used_gib * GiB)
    gpu = GpuReading(
        index=0,
        name=name,
        uuid="GPU-test",
        total_bytes=total,
        used_bytes=used,
        free_bytes=total - used,
    )
    return GpuSnapshot(time=0.0, gpus=(gpu,), driver_version="580")


def test_h200_gets_the_detected_profile_and_a_planned_max_model_len() -> None:
    launch = plan_local_launch(
        get_spec("lightonai/LightOnOCR-2-1B"), snapshot=snapshot("NVIDIA H200", 139.8)
    )
    assert launch.profile.name == "h100-h200" and launch.gpu == "NVIDIA H200"
    kw = launch.kwargs
    assert kw["model"] == "lightonai/LightOnOCR-2-1B"
    assert kw["max_model_len"] == launch.plan.max_model_len > 0
    assert 0 < kw["gpu_memory_utilization"] <= 0.92
    assert kw["enable_prefix_caching"] is False  # the spec's recommendation survives the merge
    assert launch.predicted()["planned max_model_len"] == str(launch.plan.max_model_len)


def test_a_named_profile_wins_over_detection() -> None:
    launch = plan_local_launch(
        get_spec("lightonai/LightOnOCR-2-1B"), "a100-40g", snapshot=snapshot("NVIDIA H200", 139.8)
    )
    assert launch.profile.name == "a100-40g"


def test_a_model_that_cannot_fit_is_refused_with_advice_before_loading() -> None:
    with pytest.raises(PlanError) as err:
        plan_local_launch(
            get_spec("allenai/olmOCR-2-7B-1025"),
            snapshot=snapshot("NVIDIA GeForce RTX 4090", 24, used_gib=14),
        )
    assert "cannot fit one page" in str(err.value)


def test_no_gpu_says_so() -> None:
    empty = GpuSnapshot(time=0.0, error="NVML Shared Library Not Found")
    with pytest.raises(EngineUnavailable, match="needs an NVIDIA GPU"):
        plan_local_launch(get_spec("lightonai/LightOnOCR-2-1B"), snapshot=empty)


def test_one_launch_value_is_what_the_plan_and_models_commands_print(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 32.2: the launch is assembled once (gpu.launch.Launch); the commands read it."""
    import json

    from workbench.cli import main
    from workbench.gpu.launch import plan_launch
    from workbench.gpu.profiles import get_profile
    from workbench.gpu.target import resolve_target
    from workbench.gpu.telemetry import read_snapshot

    model = "lightonai/LightOnOCR-2-1B"
    argv = ["--gpu-memory", "80", "--profile", "a100-80g", "--json"]
    assert main(["plan", "--model", model, "--vllm-version", "0.26.0", *argv]) == 0
    printed = json.loads(capsys.readouterr().out)
    target = resolve_target(read_snapshot(with_processes=False), "a100-80g", None, 80.0, 0.0)
    launch = plan_launch(model, get_profile("a100-80g"), target.total_bytes, target.free_bytes,
                         vllm_version="0.26.0")  # fmt: skip
    assert printed["engine_args"] == launch.kwargs
    assert printed["serve_command"] == launch.serve_command
    assert printed["example_python"] == launch.example_python
    assert launch.serve_command.startswith(f"vllm serve {model} ")
    assert main(["models", "--model", model, *argv]) == 0
    [record] = json.loads(capsys.readouterr().out)
    assert record["engine"]["serve_command"].startswith(f"vllm serve {model} ")


def test_the_serve_command_has_the_profiles_serve_only_flags_and_the_engine_never_does() -> None:
    """``api_server_count`` is a ``vllm serve`` flag (front-end processes), not an
    ``EngineArgs`` field: in the serve line of a Hopper plan, never in ``vllm.LLM``'s kwargs."""
    import shlex

    spec = get_spec("datalab-to/chandra-ocr-2")
    hopper = plan_local_launch(spec, snapshot=snapshot("NVIDIA H100 80GB HBM3", 79.1))
    argv = shlex.split(hopper.serve_command)
    assert argv[argv.index("--api-server-count") + 1] == "4"
    assert "api_server_count" not in hopper.kwargs
    knob = hopper.profile.knob("api_server_count")
    assert knob is not None and knob.why  # the reason the GPU page shows
    ampere = plan_local_launch(spec, "a100-80g", snapshot=snapshot("NVIDIA A100-SXM4-80GB", 79.1))
    assert ampere.profile.serve_args() == {}
    assert "--api-server-count" not in ampere.serve_command  # not measured there: vLLM's 1
