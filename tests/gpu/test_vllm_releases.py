"""Each release users run planned as it allocates (workbench/gpu/vllm_versions.py, kv_budget.py,
compat.py): the numbers follow the release's own sizing rule, not 0.26's."""

from __future__ import annotations

import pytest

from workbench.gpu import compat, kv_budget
from workbench.gpu.planner import NON_TORCH_BYTES, GiB, plan_memory
from workbench.gpu.profiles import get_profile
from workbench.gpu.release_plans import compare, differences
from workbench.gpu.vllm_versions import PLANNED_RELEASES, behaviour
from workbench.models import get_spec
from workbench.models.registry import ModelSpec

LIGHTON = get_spec("lightonai/LightOnOCR-2-1B")
CHANDRA2 = get_spec("datalab-to/chandra-ocr-2")
H200 = int(139.80 * GiB)
L4 = int(22.03 * GiB)


def test_034_sizes_the_kv_cache_from_measured_free_memory() -> None:
    plan = plan_memory(LIGHTON, get_profile("h100-h200"), H200, vllm_version="0.34.0")
    assert "gpu_memory_utilization" not in plan.engine_args  # its default, 1.0
    assert plan.util_eff == 1.0
    # measure_kv_cache_bytes: free after warm-up, less max(1 GiB, 0.75 x peak), less the peak
    resident = plan.weights_bytes + plan.cuda_graph_bytes + NON_TORCH_BYTES
    free_after = H200 - kv_budget.CONTEXT_BYTES - resident
    margin = max(GiB, int(0.75 * plan.activation_bytes))
    kv = free_after - margin - plan.activation_bytes
    assert plan.kv_cache_bytes == kv // plan.bytes_per_block * plan.bytes_per_block
    old = plan_memory(LIGHTON, get_profile("h100-h200"), H200, vllm_version="0.33.0")
    assert old.engine_args["gpu_memory_utilization"] == 0.92
    assert plan.kv_cache_bytes > old.kv_cache_bytes + 8 * GiB  # the 8 % 0.33 withholds


def test_034_passes_utilization_only_for_co_tenants() -> None:
    held = 30 * GiB
    plan = plan_memory(LIGHTON, get_profile("h100-h200"), H200, H200 - held, vllm_version="0.34")
    util = plan.engine_args["gpu_memory_utilization"]
    assert util == pytest.approx((H200 - held - GiB) / H200, abs=1e-4)
    assert plan.kv_cache_bytes < H200 - held


def test_packed_pixtral_attention_lifts_the_one_page_encoder_step() -> None:
    # 0.26: the encoder is not profiled and its mask is quadratic: a 24 GB card gets one page
    # a step; 0.34 profiles a packed encoder: the profile's 8192 tokens, three pages.
    card = int(23.65 * GiB)
    old = plan_memory(LIGHTON, get_profile("rtx-4090"), card, vllm_version="0.26.0")
    new = plan_memory(LIGHTON, get_profile("rtx-4090"), card, vllm_version="0.34.0")
    assert old.encoder is not None and new.encoder is not None
    assert not old.encoder.profiled and new.encoder.profiled
    assert old.encoder.pages_per_step == 1 and old.engine_args["max_num_batched_tokens"] < 8192
    assert new.engine_args["max_num_batched_tokens"] == 8192
    assert new.encoder.pages_per_step == 3


def test_017_profiles_a_quadratic_encoder_and_bounds_it() -> None:
    plan = plan_memory(LIGHTON, get_profile("h100-h200"), H200, vllm_version="0.17.0")
    assert plan.encoder is not None and plan.encoder.profiled
    assert plan.encoder.peak_bytes <= 0.1 * H200  # PROFILED_QUADRATIC_SHARE
    assert "grows with the square" in plan.encoder.reason
    assert plan.cuda_graph_bytes == 0  # graphs captured after the KV cache (V1 worker)


def test_every_planned_release_fits_lighton_on_an_l4_and_says_what_differs() -> None:
    rows = compare(LIGHTON, get_profile("l4"), L4, L4)
    assert [r.version for r in rows] == list(PLANNED_RELEASES)
    assert all(r.fits for r in rows)
    plan = plan_memory(LIGHTON, get_profile("l4"), L4, vllm_version="0.34.0")
    lines = differences(plan, rows)
    assert lines and all(not line.startswith("vLLM 0.34.0") for line in lines)
    assert any("gpu_memory_utilization unset (1.0) → 0.88" in line for line in lines)


@pytest.mark.parametrize(
    ("vllm", "transformers", "bad"),
    [("0.26.0", "5.17.0", True), ("0.30.0", "5.17.1", True), ("0.30.0", "5.16.1", False),
     ("0.31.0", "5.17.0", False), ("0.34.0", "5.20.0", False)],
)  # fmt: skip
def test_transformers_517_breaks_pixtral_up_to_030(vllm: str, transformers: str, bad: bool) -> None:
    setup = compat.Setup(vllm, LIGHTON, H200, transformers=transformers)
    found = [w for w in compat.warnings(setup) if "PixtralRotaryEmbedding" in w]
    assert bool(found) is bad
    assert behaviour(vllm).pixtral_imports_rotary is bad or transformers < "5.17"


def test_026_plans_a_hybrid_model_for_the_v1_runner_it_gets() -> None:
    """vLLM 0.26 runs Chandra OCR 2 (hybrid) on its V1 runner, which profiles the encoder and
    estimates graphs into the KV budget: the plan counts both, so it promises fewer blocks
    than it would for the V2 runner, and says why; a dense model keeps the V2 row."""
    assert not behaviour("0.26.0").profiles_encoder
    hybrid = behaviour("0.26.0", hybrid=True)
    assert hybrid.profiles_encoder and hybrid.reserves_cudagraphs
    assert behaviour("0.17.0", hybrid=True) == behaviour("0.17.0")
    spec, profile = get_spec("datalab-to/chandra-ocr-2"), get_profile("a100-80g")
    plan = plan_memory(spec, profile, 80 * GiB, vllm_version="0.26.0")
    assert plan.encoder is not None and plan.encoder.profiled
    assert "profiles the encoder" in plan.encoder.reason
    assert plan.cuda_graph_bytes > 0


def test_hybrid_models_with_1024_sequences_are_refused() -> None:
    setup = compat.Setup("0.34.0", CHANDRA2, H200, kwargs={"max_num_seqs": 1024})
    assert "Mamba cache blocks" in compat.warnings(setup)[0]
    assert not compat.warnings(compat.Setup("0.34.0", CHANDRA2, H200, kwargs={"max_num_seqs": 128}))
    # no --max-num-seqs: vllm serve's default, 1024 on a 70 GB+ card, 256 below
    assert compat.warnings(compat.Setup("0.34.0", CHANDRA2, H200))
    assert not compat.warnings(compat.Setup("0.34.0", CHANDRA2, 48 * GiB))
    assert not compat.warnings(compat.Setup("0.34.0", LIGHTON, H200))


def test_a_hybrid_model_on_hopper_is_told_about_flashinfers_gdn_kernel() -> None:
    """Chandra OCR 2 on the H200 (vLLM 0.26, 2026-12-06) died at start: "No module named
    'flashinfer'" (FlashInfer's GDN prefill, picked on Hopper cards). Said once, with the way
    round it; not on other cards, releases without the choice, or dense models."""

    def said(vllm: str, gpu: str, spec: ModelSpec = CHANDRA2, **kwargs: object) -> list[str]:
        args = {"max_num_seqs": 128, **kwargs}
        setup = compat.Setup(vllm, spec, 80 * GiB, gpu_name=gpu, kwargs=args)
        return [w for w in compat.warnings(setup) if "flashinfer" in w]

    assert len(found := said("0.26.0", "NVIDIA H100 80GB HBM3")) == 1
    assert "--gdn-prefill-backend triton" in found[0]
    assert said("0.34.0", "NVIDIA H200")
    assert not said("0.26.0", "NVIDIA H200", gdn_prefill_backend="triton")
    assert not said("0.26.0", "NVIDIA A100-SXM4-80GB") and not said("0.17.0", "NVIDIA H200")
    assert not said("0.26.0", "NVIDIA H200", LIGHTON)


def test_serve_defaults_by_card_and_release() -> None:
    assert compat.serve_defaults("0.26.0", 48 * GiB) == (2048, 256)
    assert compat.serve_defaults("0.26.0", 79 * GiB, "NVIDIA A100-SXM4-80GB") == (2048, 256)
    assert compat.serve_defaults("0.26.0", H200, "NVIDIA H200") == (8192, 1024)
    assert compat.serve_defaults("0.34.0", 178 * GiB, "NVIDIA B200") == (16384, 1024)
    assert compat.serve_defaults("0.26.0", 178 * GiB, "NVIDIA B200") == (8192, 1024)
