"""`python -m workbench gpu` and `plan` as a user runs them (this machine has no GPU)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "workbench", *args], cwd=ROOT, capture_output=True, text=True
    )


def test_gpu_command_without_gpu_exits_zero() -> None:
    out = _run("gpu")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0].startswith(("No NVIDIA GPU (NVML: ", "1 NVIDIA GPU"))
    assert "profile: " in out.stdout


def test_plan_command_json() -> None:
    out = _run("plan", "--model", "lightonai/LightOnOCR-2-1B", "--gpu-memory", "80",
               "--profile", "a100-80g")  # fmt: skip
    assert out.returncode == 0, out.stderr
    plan = json.loads(out.stdout)
    assert plan["fits"] is True and plan["gpu"] == "--gpu-memory 80 GiB"
    for key in ("max_model_len", "kv_cache_bytes", "tokens_per_page", "pages_in_flight"):
        assert isinstance(plan[key], int) and plan[key] > 0
    assert plan["engine_args"]["model"] == "lightonai/LightOnOCR-2-1B"
    assert plan["engine_args"]["max_model_len"] == plan["max_model_len"]
    assert plan["serve_command"].startswith("vllm serve lightonai/LightOnOCR-2-1B ")


def test_plan_that_does_not_fit_exits_one_with_advice() -> None:
    out = _run("plan", "--model", "allenai/olmOCR-2-7B-1025", "--gpu-memory", "16")
    assert out.returncode == 1
    plan = json.loads(out.stdout)
    assert plan["fits"] is False and plan["advice"]


def test_plan_bad_input_is_one_clean_line() -> None:
    out = _run("plan", "--model", "acme/nothing", "--gpu-memory", "24")
    assert out.returncode == 2
    assert out.stderr.startswith("error: no memory numbers for model 'acme/nothing'")
    assert "Traceback" not in out.stderr
    out = _run("plan", "--model", "lightonai/LightOnOCR-2-1B", "--gpu-memory", "-3")
    assert out.returncode == 2 and "Traceback" not in out.stderr
