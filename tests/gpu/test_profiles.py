"""Profile detection from GPU name + memory, and that profiles use real knobs only."""

from __future__ import annotations

import pytest

from workbench.gpu.profiles import PROFILES, detect_profile, get_profile, profile_names

GiB = 1024**3


# Names as NVML reports them.
@pytest.mark.parametrize(
    ("name", "gib", "expected"),
    [
        ("NVIDIA H200", 140.4, "h100-h200"),
        ("NVIDIA H100 80GB HBM3", 79.6, "h100-h200"),
        ("NVIDIA GH200 480GB", 95.0, "h100-h200"),
        ("NVIDIA A100-SXM4-80GB", 79.2, "a100-80g"),
        ("NVIDIA A100-SXM4-40GB", 39.4, "a100-40g"),
        ("NVIDIA A100-PCIE-40GB", 39.4, "a100-40g"),
        ("NVIDIA L40S", 44.4, "l40s"),
        ("NVIDIA A10G", 22.0, "a10g"),
        ("NVIDIA A10", 22.0, "a10g"),
        ("NVIDIA L4", 22.0, "l4"),  # not L40S
        ("NVIDIA GeForce RTX 4090", 23.6, "rtx-4090"),
        ("Tesla T4", 14.7, "t4"),
        ("Tesla V100-SXM2-32GB", 31.7, "v100"),
        ("NVIDIA GeForce RTX 3090", 23.6, "generic-24gb"),  # unknown 24 GB card
        ("NVIDIA RTX 6000 Ada Generation", 47.5, "l40s"),  # unknown 48 GB: by memory
        ("Some Future GPU", 180.0, "a100-80g"),  # unknown big card: conservative
    ],
)
def test_detect_profile(name: str, gib: float, expected: str) -> None:
    assert detect_profile(name, int(gib * GiB)).name == expected


def test_no_gpu_is_cpu_and_memory_alone_picks_by_size() -> None:
    assert detect_profile(None, None).name == "cpu"
    assert detect_profile(None, 24 * GiB).name == "generic-24gb"
    assert detect_profile(None, 40 * GiB).name == "a100-40g"


def test_required_profiles_exist_and_unsupported_ones_say_why() -> None:
    names = set(profile_names())
    assert {"h100-h200", "a100-80g", "a100-40g", "l40s", "a10g", "l4", "rtx-4090",
            "generic-24gb", "cpu", "t4", "v100"} <= names  # fmt: skip
    for name in ("t4", "v100"):
        profile = get_profile(name)
        assert not profile.supported
        assert "sm_7" in profile.reason and "bf16" in profile.reason
    with pytest.raises(KeyError, match="unknown profile"):
        get_profile("h300")


REAL_ENGINE_ARGS = {
    "gpu_memory_utilization", "max_num_seqs", "max_num_batched_tokens", "kv_cache_dtype",
    "enforce_eager", "enable_prefix_caching", "mm_processor_cache_gb", "block_size",
    "limit_mm_per_prompt",
}  # fmt: skip
KV_DTYPES = {"auto", "bfloat16", "float16", "fp8", "fp8_e4m3", "fp8_e5m2"}


@pytest.mark.parametrize("profile", [p for p in PROFILES if p.supported], ids=lambda p: p.name)
def test_every_knob_is_real_and_explained(profile) -> None:
    for knob in profile.knobs:
        assert len(knob.why) > 20, knob.name
        if knob.kind == "engine":
            assert knob.name in REAL_ENGINE_ARGS, knob.name
    args = profile.engine_args()
    if profile.name != "cpu":
        assert 0 < args["gpu_memory_utilization"] <= 0.92
        assert args["kv_cache_dtype"] in KV_DTYPES
        assert args["max_num_seqs"] >= profile.engine_args(small=False)["max_num_seqs"]
        assert args["enable_prefix_caching"] is False and args["mm_processor_cache_gb"] == 0
    assert "swap_space" not in args and "tensor_parallel_size" not in args


def test_24gb_cards_use_fp8_kv_and_hopper_keeps_bf16() -> None:
    for name in ("a10g", "l4", "rtx-4090", "generic-24gb"):
        assert get_profile(name).engine_args()["kv_cache_dtype"] == "fp8"
    hopper = get_profile("h100-h200").engine_args(small=False)
    assert hopper["kv_cache_dtype"] == "auto" and hopper["max_num_seqs"] == 128
    assert get_profile("generic-24gb").engine_args()["enforce_eager"] is True
    assert get_profile("generic-24gb").page_longest_edge == 1280
