"""The out-of-memory help (workbench.gpu.oom_help): pasted errors find their entry, every
entry names real knobs and profiles, and the quoted texts are vLLM's own."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

from workbench.gpu import oom_help
from workbench.gpu.profiles import profile_names

ROOT = Path(__file__).resolve().parents[2]

# Errors as they appear in logs: the H200 run of shared/gpu-lab (encoder), and the others as
# vLLM 0.33's f-strings print them with numbers filled in.
ENCODER_LOG = """INFO gpu_model_runner.py:5089] Model loading took 1.88 GiB memory and 3.1 s
ERROR [core.py] File "vllm/model_executor/models/pixtral.py", line 640, in forward
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 5.34 GiB. GPU 0 has a total \
capacity of 139.80 GiB of which 3.79 GiB is free.
vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace \
(above) for the root cause."""
WEIGHTS_LOG = """  File "vllm/v1/worker/gpu_model_runner.py", line 4990, in load_model
    self.model = model_loader.load_model(vllm_config=self.vllm_config)
  File "vllm/model_executor/models/qwen2_5_vl.py", line 1200, in load_weights
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 260.00 MiB. GPU 0 has a total \
capacity of 21.96 GiB of which 120.00 MiB is free."""
CASES = {
    "free-memory-at-start": "ValueError: Free memory on device cuda:0 (18.2/23.6 GiB) on "
    "startup is less than desired GPU memory utilization (0.9, 21.24 GiB). Decrease GPU "
    "memory utilization or reduce GPU memory used by other processes.",
    "sampler-warmup": "RuntimeError: CUDA out of memory occurred when warming up sampler "
    "with 256 dummy requests. Please try lowering `max_num_seqs`",
    "no-cache-blocks": "INFO Available KV cache memory: -0.3 GiB\nValueError: No available "
    "memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing",
    "max-model-len-too-long": "ValueError: To serve at least one request with the model's "
    "max seq len (131072), (18.0 GiB KV cache is needed, which is larger than the available "
    "KV cache memory (6.2 GiB). Based on the available memory, the estimated maximum model "
    "length is 45000.",
    "tensor-parallel-one-card": "ValueError: World size (2) is larger than the number of "
    "available GPUs (1) in this node.",
    "no-bf16": "ValueError: Bfloat16 is only supported on GPUs with compute capability of at "
    "least 8.0. Your Tesla T4 GPU has compute capability 7.5.",
}


def test_the_h200_encoder_failure_is_explained_root_cause_first() -> None:
    found = [e.key for e in oom_help.explain(ENCODER_LOG)]
    assert found == ["encoder-oom-run-time", "engine-dead", "cuda-oom"]
    assert "max_num_batched_tokens" in oom_help.explain(ENCODER_LOG)[0].knobs


def test_weights_failure_is_not_taken_for_the_encoder() -> None:
    assert oom_help.explain(WEIGHTS_LOG)[0].key == "weights-do-not-fit"


@pytest.mark.parametrize(("key", "text"), CASES.items(), ids=list(CASES))
def test_each_startup_error_finds_its_entry(key: str, text: str) -> None:
    assert oom_help.explain(text)[0].key == key


def test_the_old_v0_kv_text_still_matches() -> None:
    old = ("ValueError: The model's max seq len (32768) is larger than the maximum number of "
           "tokens that can be stored in KV cache (20000). Try increasing")  # fmt: skip
    assert oom_help.explain(old)[0].key == "max-model-len-too-long"


def test_unknown_text_matches_nothing() -> None:
    assert oom_help.explain("ConnectionRefusedError: [Errno 111]") == []


def test_entries_and_myths_name_real_profiles_and_say_what_is_true() -> None:
    names = set(profile_names())
    for table in (oom_help.ERRORS, oom_help.MYTHS):
        keys = [item.key for item in table]
        assert len(keys) == len(set(keys))
    for item in (*oom_help.ERRORS, *oom_help.MYTHS):
        assert set(item.profiles) <= names, item.key
    myths = {m.key: m for m in oom_help.MYTHS}
    assert "no CUDA_MALLOC_ASYNC variable" in myths["cuda-malloc-async"].truth
    assert "expandable_segments:True" in myths["cuda-malloc-async"].truth
    assert "World size (2)" in myths["tensor-parallel-one-card"].truth
    for profile in ("l4", "a10g", "rtx-4090"):  # each 24 GB myth sits next to its profile
        _errors, mine = oom_help.for_profile(profile)
        assert {"block-size", "fp8-kv-speed", "cuda-malloc-async"} <= {m.key for m in mine}
    assert "chunked-prefill-off" in {m.key for m in oom_help.for_profile("l4")[1]}


def test_plan_explain_error_cli() -> None:
    def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "workbench", "plan", *args], cwd=ROOT,
                              capture_output=True, text=True, input=stdin)  # fmt: skip

    out = run("--explain-error", "-", stdin=ENCODER_LOG)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("Most likely: Out of memory in the vision encoder")
    assert (
        "max_num_batched_tokens" in out.stdout and "Also matches: The engine process" in out.stdout
    )
    none = run("--explain-error", "all good")
    assert none.returncode == 1 and none.stdout.startswith("No known out-of-memory error")


# The literal fragments each entry quotes, as they stand in vLLM's source (one string literal
# each, so a grep finds them): checked wherever vLLM is installed (the vllm_contract venv).
SOURCE_FRAGMENTS = {
    "v1/worker/utils.py": "is less than desired GPU memory utilization ",
    "v1/worker/gpu_model_runner.py": "CUDA out of memory occurred when warming up sampler with ",
    "config/parallel.py": "is larger than the number of ",
    "v1/engine/exceptions.py": "EngineCore encountered an issue. See stack trace (above)",
    "platforms/cuda.py": "Bfloat16 is only supported on GPUs ",
}


@pytest.mark.vllm
@pytest.mark.skipif(importlib.util.find_spec("vllm") is None, reason="vLLM is not installed")
def test_quoted_texts_are_in_vllm_source() -> None:
    spec = importlib.util.find_spec("vllm")
    assert spec is not None and spec.origin
    package = Path(spec.origin).parent
    for rel, fragment in SOURCE_FRAGMENTS.items():
        assert fragment in (package / rel).read_text(), (rel, fragment)
    # 0.33 moved the KV checks from kv_cache_utils.py (0.26) to kv_cache_planning.py
    kv_files = [package / "v1/core" / f for f in ("kv_cache_planning.py", "kv_cache_utils.py")]
    kv = "".join(f.read_text() for f in kv_files if f.exists())
    assert "No available memory for the cache blocks. " in kv
    assert "Cannot auto-fit max_model_len: not enough GPU memory available " in kv
    assert re.search(r"cache is needed, which is larger than the available KV cache", kv)
    everything = "".join(p.read_text(errors="replace") for p in package.rglob("*.py"))
    assert "CUDA_MALLOC_ASYNC" not in everything


BARE = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 5.34 GiB"


def test_a_bare_oom_line_lists_the_likely_causes_in_order_with_the_plans_numbers() -> None:
    """Issue 30.6: the last line alone (as people paste it) got the generic entry only."""
    from workbench.gpu.planner import plan_for_model
    from workbench.gpu.profiles import get_profile

    assert oom_help.bare_oom(BARE)
    profile = get_profile("h100-h200")
    plan = plan_for_model("lightonai/LightOnOCR-2-1B", profile, profile.cards[1].total_bytes)[0]
    causes = oom_help.likely_causes(BARE, plan)
    assert [c.key for c in causes] == ["encoder", "fragmentation", "weights", "sampler"]
    mnbt, seqs = plan.engine_args["max_num_batched_tokens"], plan.engine_args["max_num_seqs"]
    assert f"max_num_batched_tokens={mnbt}" in causes[0].fix  # a number, not a knob name
    assert f"max_num_seqs={seqs}" in causes[3].fix
    assert f"{plan.weights_bytes / 1024**3:.2f} GiB of weights" in causes[2].fix
    # How to tell them apart: each names what to look for, and no two say the same.
    assert "pixtral.py" in causes[0].tell and "Model loading took" in causes[2].tell
    assert "reserved by PyTorch but unallocated" in causes[1].tell
    assert len({c.tell for c in causes}) == 4
    # A small allocation is a weight tensor first; much memory held unused, fragmentation.
    small = oom_help.likely_causes(BARE.replace("5.34 GiB", "20.00 MiB"), plan)
    assert [c.key for c in small][:2] == ["weights", "sampler"]
    held = BARE + ". Of the allocated memory 120 GiB is allocated by PyTorch, and 9.50 GiB is "
    held += "reserved by PyTorch but unallocated."
    assert oom_help.likely_causes(held, plan)[0].key == "fragmentation"
    # With the stack, the specific entry answers as before, not the list.
    assert not oom_help.bare_oom(BARE + "\n  File pixtral.py, in forward")
