"""vllm serve command lines and vllm.LLM kwargs from (spec, profile, plan)."""

from __future__ import annotations

import json
import shlex

from workbench.gpu.commands import engine_kwargs, llm_snippet, serve_argv, serve_command
from workbench.gpu.planner import GiB, plan_memory
from workbench.gpu.profiles import get_profile
from workbench.models import ModelSpec, PageSizing, get_spec


def _plan(profile: str = "a100-80g"):
    arch = get_spec("lightonai/LightOnOCR-2-1B")
    assert arch is not None
    return plan_memory(arch, get_profile(profile), 80 * GiB, sizing=PageSizing(longest_edge=1540))


def test_precedence_spec_then_profile_then_plan() -> None:
    spec = ModelSpec(
        id="lightonai/LightOnOCR-2-1B",
        display="x",
        family="lighton",
        parser="lighton",
        vllm_args={
            "max_model_len": 16384,  # the plan wins (it already capped itself with it)
            "max_num_seqs": 999,  # the profile wins
            "trust_remote_code": True,  # only the spec says: kept
            "limit_mm_per_prompt": {"image": 1, "audio": 0},  # other modalities kept
        },
    )
    plan = _plan()
    kw = engine_kwargs(spec.id, spec, plan)
    assert kw["model"] == "lightonai/LightOnOCR-2-1B"
    assert kw["max_num_seqs"] == 128  # a100-80g, small model
    assert kw["trust_remote_code"] is True
    assert kw["max_model_len"] == plan.max_model_len == 16_384  # the checkpoint context
    assert kw["gpu_memory_utilization"] == 0.9
    assert kw["limit_mm_per_prompt"] == {
        "image": {"count": 1, "width": 1190, "height": 1540},
        "audio": 0,
        "video": 0,
    }
    assert list(kw)[:3] == ["model", "gpu_memory_utilization", "max_model_len"]


def test_serve_command_spelling_and_round_trip() -> None:
    plan = _plan()
    kw = engine_kwargs("lightonai/LightOnOCR-2-1B", None, plan)
    cmd = serve_command(kw)
    assert cmd.startswith("vllm serve lightonai/LightOnOCR-2-1B --gpu-memory-utilization 0.9 ")
    argv = shlex.split(cmd)
    assert argv == serve_argv(kw)
    assert argv[argv.index("--max-model-len") + 1] == "16384"
    # the plan's value (the planner may bound the profile's 8192 by the encoder's batch)
    mnbt = plan.engine_args["max_num_batched_tokens"]
    assert argv[argv.index("--max-num-batched-tokens") + 1] == str(mnbt) and 0 < mnbt <= 8192
    assert "--no-enable-prefix-caching" in argv and "--no-enforce-eager" in argv
    limit = json.loads(argv[argv.index("--limit-mm-per-prompt") + 1])
    assert limit == {"image": {"count": 1, "width": 1190, "height": 1540}, "video": 0}
    assert not any("_" in a for a in argv if a.startswith("--"))


def test_auto_max_model_len_and_true_booleans() -> None:
    argv = serve_argv({"model": "m", "max_model_len": -1, "enforce_eager": True, "x": None})
    assert argv == ["vllm", "serve", "m", "--max-model-len", "auto", "--enforce-eager"]


def test_llm_snippet_is_python_that_rebuilds_the_kwargs() -> None:
    kw = engine_kwargs("lightonai/LightOnOCR-2-1B", None, _plan())
    src = llm_snippet(kw)
    assert src.startswith("import vllm\n")
    captured: dict = {}
    fake = type("vllm", (), {"LLM": staticmethod(lambda **k: captured.update(k))})
    exec(compile(src.replace("import vllm\n", ""), "<snippet>", "exec"), {"vllm": fake})
    assert captured == kw


def test_server_only_flags_stay_out_of_engine_args() -> None:
    # LightOnOCR-3-0.8B: default_chat_template_kwargs is a `vllm serve` (frontend) flag; the
    # in-process EngineArgs has no such field (TypeError in vLLM 0.33), so only serve gets it.
    spec = get_spec("lightonai/LightOnOCR-3-0.8B")
    profile = get_profile("a100-80g")
    plan = plan_memory(spec, profile, 80 * GiB)
    kw = engine_kwargs(spec.id, spec, plan)
    assert "default_chat_template_kwargs" not in kw
    argv = serve_argv(kw)
    flag = argv.index("--default-chat-template-kwargs")
    assert json.loads(argv[flag + 1]) == {"enable_thinking": False}
