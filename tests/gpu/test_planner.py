"""Planner against numbers worked out by hand (the arithmetic is in the comments).

Common rules (workbench/gpu/planner.py docstring):
  util     = min(cap, (free - 1 GiB) / total); free = total here, so util = cap
  budget   = floor(util x total) - weights - act - graphs
  act      = mnbt x (6h + 3i) x 2 + 4 x vision x (6vh + 3vi) x 2 + seqs x vocab x 8 + 512 MiB
  graphs   = 0 (enforce_eager) | 0.5 GiB (<= 3 B params) | 1 GiB
  B        = 16 x 2 x layers x kv_heads x head_dim x dtype_bytes      (block_size 16)
  blocks   = floor((budget - state) / B);  fit = (blocks - 1) x 16
  in_flight= min(seqs, ((blocks-1) x B + state) // (ceil(tokens_per_page/16) x B + state))
Cards: 24 GiB = 25,769,803,776 B (generic-24gb: util .85, mnbt 4096, seqs 16/4, fp8, eager,
page cap 1280); 40 GiB = 42,949,672,960 (a100-40g: .90, 8192, 64/32, bf16, graphs);
80 GiB = 85,899,345,920 (a100-80g: .90, 8192, 128/64); H200 as CUDA sees it 143,156 MiB =
150,109,945,856 (h100-h200: .92, 16384, 256/128).
floor(util x total): 24 GiB 21,904,333,209; 40 GiB 38,654,705,664; 80 GiB 77,309,411,328;
H200 138,101,150,187.
Prompt 200 tokens in every case. 512 MiB = 536,870,912.
"""

from __future__ import annotations

import pytest

from workbench.gpu.planner import (
    GiB,
    MiB,
    bytes_per_block,
    plan_for_model,
    plan_memory,
)
from workbench.gpu.profiles import get_profile
from workbench.models import PageSizing, get_spec, planned_page

CARDS = {
    "24": ("generic-24gb", 24 * GiB),
    "40": ("a100-40g", 40 * GiB),
    "80": ("a100-80g", 80 * GiB),
    "141": ("h100-h200", 143_156 * MiB),
}
LIGHTON = ("lightonai/LightOnOCR-2-1B", PageSizing(longest_edge=1540), 4096)
OLMOCR = ("allenai/olmOCR-2-7B-1025", PageSizing(longest_edge=1288), 8000)
CHANDRA2 = ("datalab-to/chandra-ocr-2", PageSizing(dpi=192), 12_384)

MODELS = {"lighton": LIGHTON, "olmocr": OLMOCR, "chandra2": CHANDRA2}


def reference_plan(model: str, card: str, version: str) -> dict[str, int]:
    """The module doc's arithmetic written out again, independently of the planner's code:
    util = cap; act = max(mnbt x (4h + 3i) x 2, seqs x vocab x 4, profiled encoder step)
    + 64 MiB; graphs only where the version reserves them; 230 MiB non-torch;
    blocks = (budget - state) // B; fit = (blocks - 1) x 16."""
    from workbench.gpu.encoder import choose_budget
    from workbench.gpu.vllm_versions import behaviour

    model_id, sizing, max_tokens = MODELS[model]
    profile_name, total = CARDS[card]
    spec = get_spec(model_id)
    profile = get_profile(profile_name)
    arch = spec.arch
    assert arch is not None
    small = arch.params_b <= 3.0
    eng = profile.engine_args(small=small)
    util = profile.util_cap
    w, h = planned_page(sizing, profile.page_longest_edge)
    vision = arch.vision_tokens(w, h)
    enc = choose_budget(
        arch, behaviour(version, hybrid=arch.hybrid), profile_mnbt=eng["max_num_batched_tokens"],
        page_tokens=vision, total_bytes=total, util=util,
    )  # fmt: skip
    mnbt = enc.max_num_batched_tokens
    act = (
        max(
            mnbt * (4 * arch.hidden_size + 3 * arch.intermediate_size) * 2,
            eng["max_num_seqs"] * arch.vocab_size * 4,
            enc.peak_bytes if enc.profiled else 0,
        )
        + 64 * MiB
    )
    graphs = 0
    if not eng["enforce_eager"] and behaviour(version, hybrid=arch.hybrid).reserves_cudagraphs:
        graphs = GiB // 2 if small else GiB
    budget = int(util * total) - arch.weight_bytes - act - graphs - 230 * MiB
    dtype = 2 if eng["kv_cache_dtype"] == "auto" else 1
    per_block = 16 * 2 * arch.kv_layers * arch.kv_heads * arch.head_dim * dtype
    blocks = (budget - arch.state_bytes_per_seq) // per_block
    out = min(max_tokens, arch.context - 200 - vision)
    return {
        "vision": vision, "mnbt": mnbt, "act": act, "blocks": blocks,
        "fit": (blocks - 1) * 16, "tokens_per_page": vision + 200 + out,
    }  # fmt: skip


@pytest.mark.parametrize("version", ["0.26.0", "0.33.0"])
@pytest.mark.parametrize("model", ["lighton", "olmocr", "chandra2"])
@pytest.mark.parametrize("card", ["24", "40", "80", "141"])
def test_plan_matches_the_written_out_arithmetic(model: str, card: str, version: str) -> None:
    model_id, sizing, max_tokens = MODELS[model]
    profile_name, total = CARDS[card]
    plan = plan_memory(
        get_spec(model_id), get_profile(profile_name), total, sizing=sizing,
        max_tokens=max_tokens, prompt_tokens=200, vllm_version=version,
    )  # fmt: skip
    want = reference_plan(model, card, version)
    assert plan.vision_tokens == want["vision"]
    assert plan.engine_args["max_num_batched_tokens"] == want["mnbt"]
    assert plan.activation_bytes == want["act"]
    assert plan.num_blocks == want["blocks"]
    assert plan.max_model_len_fit == want["fit"]
    assert plan.tokens_per_page == want["tokens_per_page"]
    assert plan.fits
    assert sum(plan.split.as_dict().values()) == total  # the chart's parts add up to the card


def test_plans_agree_with_real_vllm_on_the_h200() -> None:
    """Planned KV tokens against what vLLM 0.26 allocated on the H200 for the same plan
    (benchmarks/gpu_probe: `python -m workbench probe`, dummy weights, simulated cards),
    and the arguments the planner generates now are exactly those that ran."""
    import json
    from pathlib import Path

    from workbench.gpu.probe.cases import CARDS as PROBE_CARDS
    from workbench.gpu.probe.cases import plan_case

    folder = Path(__file__).resolve().parents[2] / "benchmarks" / "gpu_probe"
    checked = 0
    for job_path in sorted(folder.glob("*.job.json")):
        stem = job_path.name.removesuffix(".job.json")
        lines = (folder / f"{stem}.vllm-lines.txt").read_text()
        job = json.loads(job_path.read_text())
        card = next(c for c in PROBE_CARDS if stem.endswith("_" + c.name.replace(" ", "_")))
        plan, kwargs = plan_case(job["model"], card, "0.26.0")
        kwargs.pop("model")
        ran = dict(job["engine_args"])
        ran.pop("load_format")
        assert ran.pop("gpu_memory_utilization") == pytest.approx(
            plan.util_eff * card.gib / 139.80, abs=1e-3
        )
        kwargs.pop("gpu_memory_utilization")
        # A smaller encoder batch than the one that survived can only need less memory (the
        # step's peak grows with it): today's plan for the RTX 4090 asks 2,365 (vLLM's page
        # tokens) where 2,421 ran (the old count with Pixtral's break tokens).
        assert kwargs.pop("max_num_batched_tokens") <= ran.pop("max_num_batched_tokens"), stem
        assert json.loads(json.dumps(kwargs)) == ran, stem
        measured = int(lines.split("GPU KV cache size: ")[1].split(" tokens")[0].replace(",", ""))
        planned = plan.num_blocks * plan.block_size
        assert abs(planned - measured) / measured < 0.05, (stem, planned, measured)
        checked += 1
    assert checked >= 7


def test_bytes_per_block_matches_vllm_notes() -> None:
    # vllm.md §4: LightOnOCR-2-1B 112 KiB a token -> 1.75 MiB a 16-token block
    lighton = get_spec("lightonai/LightOnOCR-2-1B")
    olmocr = get_spec("allenai/olmOCR-2-7B-1025")
    assert lighton is not None and olmocr is not None
    assert lighton.arch is not None and olmocr.arch is not None
    assert bytes_per_block(lighton.arch, 16, "auto") == 1_835_008 == 16 * 112 * 1024
    assert bytes_per_block(olmocr.arch, 16, "auto") == 16 * 56 * 1024  # 56 KiB a token
    assert bytes_per_block(olmocr.arch, 16, "fp8") == 16 * 28 * 1024


def test_page_dimensions() -> None:
    assert planned_page(PageSizing(dpi=192)) == (1632, 2112)  # 8.5x192, 11x192
    assert planned_page(PageSizing(dpi=192), cap=1280) == (989, 1280)
    assert planned_page(PageSizing(longest_edge=1288)) == (995, 1288)
    # dots.ocr: 200 DPI 1700x2200, snapped down to a 28-px grid: 1680x2184
    assert planned_page(PageSizing(dpi=200, grid=28)) == (1680, 2184)
    # min_short_edge upscales: 72 DPI letter 612x792 -> short side 1024: 1024x1325
    assert planned_page(PageSizing(dpi=72, min_short_edge=1024)) == (1024, 1325)


def test_free_memory_lowers_utilization() -> None:
    # 80 GiB card, 40 GiB free: util = (40 - 1) / 80 = 0.4875 < cap 0.90
    arch = get_spec("lightonai/LightOnOCR-2-1B")
    assert arch is not None
    plan = plan_memory(arch, get_profile("a100-80g"), 80 * GiB, 40 * GiB)
    assert plan.util_eff == pytest.approx(0.4875)
    assert plan.engine_args["gpu_memory_utilization"] == 0.4875


def test_weights_do_not_fit_advises_smaller_model() -> None:
    # olmOCR bf16 weights 16.6e9 > 0.85 x 16 GiB = 14.6e9: nothing left for KV
    arch = get_spec("allenai/olmOCR-2-7B-1025")
    assert arch is not None
    plan = plan_memory(arch, get_profile("generic-24gb"), 16 * GiB)
    assert not plan.fits
    assert plan.num_blocks == 0 and plan.kv_cache_bytes == 0
    assert plan.engine_args["max_model_len"] == -1
    assert "quantised checkpoint or a smaller model" in plan.advice[0]
    assert "olmOCR 2 (7B, FP8)" in plan.advice[-1]


def test_page_that_does_not_fit_gets_concrete_advice() -> None:
    # LightOnOCR-2-1B, a100-40g profile, 32 GiB card of which others hold 28.5 GiB (free 3.5):
    # util = (3.5 - 1) / 32 = 0.078125 (exact in binary); x 34,359,738,368 = 2,684,354,560
    # - weights 2,023,960,576 - act (4608 x 26,624 = 122,683,392 + 64 MiB = 189,792,256; the
    # step is one page of the dense-mask encoder, encoder.one_page_step(2,365) = 4,608)
    # - non-torch 241,172,480 (graphs are not reserved by vLLM 0.26) = 229,429,248;
    # /1,835,008 = 125.03 -> 125 blocks; fit 124 x 16 = 1,984 < 6,661 tokens a page.
    arch = get_spec("lightonai/LightOnOCR-2-1B")
    assert arch is not None
    plan = plan_memory(
        arch,
        get_profile("a100-40g"),
        32 * GiB,
        int(3.5 * GiB),
        sizing=PageSizing(longest_edge=1540),
        prompt_tokens=200,
    )
    assert plan.util_eff == 0.078125
    assert plan.engine_args["max_num_batched_tokens"] == 4608
    assert (plan.num_blocks, plan.max_model_len_fit, plan.fits) == (125, 1_984, False)
    text = "\n".join(plan.advice)
    assert "6,661 tokens" in plan.advice[0] and "holds 1,984" in plan.advice[0]
    # smaller page: 1540 * 0.75 = 1155 -> 892x1155: 32x42 = 1,344; 2,365 - 1,344
    assert "1155 px long edge instead of 1540 px saves 1,021 tokens" in text
    assert "2x the tokens (3,968)" in text  # FP8 KV: 2 x 1,984
    assert "max_tokens 4,096 → 2,048" in text


def test_plan_for_model_uses_the_registered_spec() -> None:
    plan, arch, spec = plan_for_model(
        "lightonai/LightOnOCR-2-1B", get_profile("a100-80g"), 80 * GiB
    )
    assert spec.id == plan.model_id == "lightonai/LightOnOCR-2-1B"
    assert arch is spec.arch and arch.context == 16_384  # the checkpoint's context, not 40,960
    assert plan.max_tokens == spec.sampling.max_tokens
    assert plan.max_model_len == 16_384
    js = plan.to_json()
    for key in ("max_model_len", "kv_cache_bytes", "tokens_per_page", "pages_in_flight"):
        assert js[key] == getattr(plan, key)
    assert js["engine_args"]["max_model_len"] == plan.max_model_len


def test_deepseek_output_budget_is_capped_by_the_context() -> None:
    # DeepSeek-OCR: 8,192 max_tokens in an 8,192-token context (upstream runs exactly that;
    # vLLM stops at the context). Output budget = 8,192 - prompt - 900 vision tokens.
    spec = get_spec("deepseek-ai/DeepSeek-OCR")
    for profile, total in (("h100-h200", 143_156 * MiB), ("a100-80g", 80 * GiB)):
        plan, _arch, _spec = plan_for_model(spec.id, get_profile(profile), total)
        prompt = len(spec.prompt or "") // 3 + 32
        assert plan.fits, plan.advice
        assert plan.max_tokens == 8192 - prompt - 900
        assert plan.tokens_per_page == plan.max_model_len == 8192
        assert any("output budget capped" in a for a in plan.assumptions)


def test_page_dimensions_apply_min_pixels_and_image_files() -> None:
    # min_pixels grows a tiny page (the pipeline does the same, through fit_size)
    assert planned_page(PageSizing(longest_edge=100, min_pixels=200 * 200)) == (175, 228)
    # Chandra: an image file gets a 1536 px short side, a PDF page 1024; the plan takes the
    # larger (72 DPI letter: 612x792 -> PDF 1024x1325, image 1536x1988)
    sizing = PageSizing(dpi=72, min_short_edge=1024, image_min_short_edge=1536)
    assert planned_page(sizing) == (1536, 1988)


def test_unknown_model_and_unsupported_profile_raise_plan_error() -> None:
    from workbench.errors import PlanError

    with pytest.raises(PlanError, match="no memory numbers"):
        plan_for_model("acme/not-a-model", get_profile("a100-80g"), 80 * GiB)
    with pytest.raises(PlanError, match="unsupported"):
        plan_for_model("lightonai/LightOnOCR-2-1B", get_profile("v100"), 32 * GiB)
