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
               "--profile", "a100-80g", "--json")  # fmt: skip
    assert out.returncode == 0, out.stderr
    plan = json.loads(out.stdout)
    assert plan["fits"] is True and plan["gpu"] == "--gpu-memory 80 GiB"
    for key in ("max_model_len", "kv_cache_bytes", "tokens_per_page", "pages_in_flight"):
        assert isinstance(plan[key], int) and plan[key] > 0
    assert plan["engine_args"]["model"] == "lightonai/LightOnOCR-2-1B"
    assert plan["engine_args"]["max_model_len"] == plan["max_model_len"]
    assert plan["serve_command"].startswith("vllm serve lightonai/LightOnOCR-2-1B ")


def test_plan_that_does_not_fit_exits_one_with_advice() -> None:
    out = _run("plan", "--model", "allenai/olmOCR-2-7B-1025", "--gpu-memory", "16", "--json")
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
    out = _run("plan", "--model", "lightonai/LightOnOCR-2-1B", "--vllm-version", "latest")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.startswith("error: --vllm-version 'latest' is not a vLLM version")


def test_plan_command_startable_for_every_model_on_every_profile_that_holds_it() -> None:
    # issue 9: DeepSeek-OCR included (8,192 output tokens in an 8,192 context)
    from workbench.gpu.planner import GiB, plan_for_model
    from workbench.gpu.profiles import PROFILES
    from workbench.models import all_specs

    for spec in [s for s in all_specs() if s.arch is not None]:
        for profile in [p for p in PROFILES if p.supported and p.name != "cpu"]:
            plan, _arch, _spec = plan_for_model(spec.id, profile, 80 * GiB)
            assert plan.fits, (spec.id, profile.name, plan.advice)
            assert plan.max_model_len <= spec.arch.context
    out = _run("plan", "--model", "deepseek-ai/DeepSeek-OCR", "--gpu-memory", "141",
               "--profile", "h100-h200", "--json")  # fmt: skip
    assert out.returncode == 0, out.stdout
    assert json.loads(out.stdout)["max_model_len"] == 8192


def test_models_command_lists_every_model_with_what_is_sent() -> None:
    from workbench.models import all_specs

    out = _run("models", "--json", "--gpu-memory", "80", "--profile", "a100-80g")
    assert out.returncode == 0, out.stderr
    records = {r["id"]: r for r in json.loads(out.stdout)}
    assert set(records) == {s.id for s in all_specs()}
    olm = records["allenai/olmOCR-2-7B-1025"]
    assert olm["prompt_order"] == "text, image" and olm["max_tokens"] == 8000
    assert [s["temperature"] for s in olm["retry_sampling"]] == [0.1, 0.2, 0.3, 0.5, 0.8, 0.9, 1.0]
    assert olm["sampling"]["repetition_penalty"] == 1.05 and olm["context_length"] == 128_000
    ds = records["deepseek-ai/DeepSeek-OCR"]
    assert ds["coord_scale"] == "0-999" and ds["engine"]["fits"] is True
    assert ds["engine"]["llm_kwargs"]["max_model_len"] == 8192
    lo3 = records["lightonai/LightOnOCR-3-4B"]["engine"]
    assert "default_chat_template_kwargs" not in lo3["llm_kwargs"]
    assert "--default-chat-template-kwargs" in lo3["serve_command"]
    text = _run("models", "--model", "dots.ocr")
    assert text.returncode == 0 and "rednote-hilab/dots.ocr" in text.stdout
    bad = _run("models", "--model", "acme/none")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


def test_plan_prints_a_summary_for_the_release_it_was_made_for() -> None:
    out = _run("plan", "--model", "lightonai/LightOnOCR-2-1B", "--card", "l4",
               "--vllm-version", "0.34.0")  # fmt: skip
    assert out.returncode == 0, out.stderr
    first, second = out.stdout.splitlines()[:2]
    assert first.endswith("for vLLM 0.34.0 (given)") and second.startswith("Fits: max_model_len ")
    serve = next(line for line in out.stdout.splitlines() if line.startswith("vllm serve "))
    assert "--gpu-memory-utilization" not in serve  # 0.34 sizes from measured memory
    assert "--kv-cache-memory-bytes " in out.stdout  # the reproducible alternative
    assert (
        "vLLM 0.26.0: " in out.stdout and "gpu_memory_utilization unset (1.0) → 0.88" in out.stdout
    )
    assert out.stdout.rstrip().endswith("add --json")


def test_plan_warns_on_known_bad_combinations() -> None:
    out = _run("plan", "--model", "datalab-to/chandra-ocr-2", "--card", "h200",
               "--vllm-version", "0.34.0", "--json")  # fmt: skip
    facts = json.loads(out.stdout)["vllm"]
    assert facts["serve_defaults"]["max_num_batched_tokens"] == 8192
    assert "exceeds available Mamba cache blocks" in facts["serve_defaults"]["warnings"][0]
    out = _run("plan", "--model", "lightonai/LightOnOCR-2-1B", "--card", "h200",
               "--vllm-version", "0.27.1")  # fmt: skip
    assert "WARNING: vLLM 0.27.1 with LightOnOCR-2-1B compiled" in out.stdout
    out = _run("plan", "--model", "lightonai/LightOnOCR-2-1B", "--card", "a100-80g",
               "--vllm-version", "0.16.0", "--json")  # fmt: skip
    facts = json.loads(out.stdout)["vllm"]
    assert facts["warnings"][0].startswith("vLLM 0.16.0 is outside the supported range")
    assert facts["serve_defaults"]["max_num_batched_tokens"] == 2048  # A100: 2048 on purpose
