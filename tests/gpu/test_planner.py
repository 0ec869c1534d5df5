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
    page_dimensions,
    plan_for_model,
    plan_memory,
)
from workbench.gpu.profiles import get_profile
from workbench.models import PageSizing, get_spec

CARDS = {
    "24": ("generic-24gb", 24 * GiB),
    "40": ("a100-40g", 40 * GiB),
    "80": ("a100-80g", 80 * GiB),
    "141": ("h100-h200", 143_156 * MiB),
}
LIGHTON = ("lightonai/LightOnOCR-2-1B", PageSizing(longest_edge=1540), 4096)
OLMOCR = ("allenai/olmOCR-2-7B-1025", PageSizing(longest_edge=1288), 8000)
CHANDRA2 = ("datalab-to/chandra-ocr-2", PageSizing(dpi=192), 12_384)

# fmt: off
# (model, card, vision, act, blocks, fit, max_model_len, tokens_per_page, in_flight)
CASES = [
    # LightOnOCR-2-1B: h=1024 i=3072 vocab=151,936 vh=1024 vi=4096, 2 GB weights, max_pos 16,384
    # Pixtral tokens as vLLM counts them: ceil(w/28) x ceil(h/28) (break/end tokens stripped).
    # B bf16 = 16x2x28x8x128x2 = 1,835,008; fp8 917,504.
    # 24: page 1280 cap -> 989x1280 (1280x8.5/11=989.09); 36x46 = 1656.
    #     act = 4096x(6144+9216)x2 = 125,829,120 + 4x1656x(6144+12288)x2 = 244,187,136
    #         + 16x151,936x8 = 19,447,808 + 536,870,912 = 926,334,976; graphs 0 (eager)
    #     budget = 21,904,333,209 - 2e9 - 926,334,976 = 18,977,998,233; /917,504 = 20,684.2
    #     fit = 20,683x16 = 330,928; page = 1656+200+4096 = 5,952 -> 372 blocks;
    #     in flight min(16, 20,683//372 = 55) = 16
    ("lighton", "24", 1656, 926_334_976, 20_684, 330_928, 16_384, 5_952, 16),
    # 40: page 1190x1540: 43x55 = 2365 (vLLM 0.26 and 0.33). act = 8192x15360x2 = 251,658,240
    #     + 4x2365x18432x2 = 348,733,440 + 64x151,936x8 = 77,791,232 + 536,870,912
    #     = 1,215,053,824; graphs 536,870,912 (0.5 GiB, 1 B model)
    #     budget = 38,654,705,664 - 2e9 - 1,215,053,824 - 536,870,912 = 34,902,780,928
    #     /1,835,008 = 19,020.6 -> 19,020; fit 19,019x16 = 304,304; page 2365+200+4096 = 6,661
    #     -> 417 blocks; in flight min(64, 19,019//417 = 45) = 45
    ("lighton", "40", 2365, 1_215_053_824, 19_020, 304_304, 16_384, 6_661, 45),
    # 80: act = 251,658,240 + 348,733,440 + 128x151,936x8 = 155,582,464 + 536,870,912
    #     = 1,292,845,056; budget = 77,309,411,328 - 2e9 - 1,292,845,056 - 536,870,912
    #     = 73,479,695,360; /1,835,008 = 40,043.3 -> 40,043; fit 640,672; 40,042//417 = 96
    ("lighton", "80", 2365, 1_292_845_056, 40_043, 640_672, 16_384, 6_661, 96),
    # 141: act = 16384x15360x2 = 503,316,480 + 348,733,440 + 256x151,936x8 = 311,164,928
    #     + 536,870,912 = 1,700,085,760; budget = 138,101,150,187 - 2e9 - 1,700,085,760
    #     - 536,870,912 = 133,864,193,515; /1,835,008 = 72,950.4 -> 72,950; fit 1,167,184;
    #     in flight min(256, 72,949//417 = 174) = 174
    ("lighton", "141", 2365, 1_700_085_760, 72_950, 1_167_184, 16_384, 6_661, 174),
    # olmOCR-2-7B: h=3584 i=18,944 vocab=152,064 vh=1280 vi=3420, 16.6 GB, max_pos 128,000.
    # Served at the spec's max_model_len 16,384. Qwen2.5-VL tokens: smart_resize to a 28 px
    # grid (sides rounded), (w/28) x (h/28) + 2.
    # B bf16 = 16x2x28x4x128x2 = 917,504.
    # 6h+3i = 21,504+56,832 = 78,336; 6vh+3vi = 7,680+10,260 = 17,940.
    # 24: 989x1280 -> 980x1288: 35x46 = 1610+2 = 1612. act = 4096x78,336x2 = 641,728,512
    #     + 4x1612x17,940x2 = 231,354,240 + 4x152,064x8 = 4,866,048 + 536,870,912
    #     = 1,414,819,712; eager; budget = 21,904,333,209 - 16.6e9 - 1,414,819,712
    #     = 3,889,513,497; fp8 B 458,752 -> 8,478.5 -> 8,478; fit 135,632;
    #     page 1612+200+8000 = 9,812 -> 614 blocks; min(4, 8,477//614 = 13) = 4
    ("olmocr", "24", 1612, 1_414_819_712, 8_478, 135_632, 16_384, 9_812, 4),
    # 40: 995x1288 (1288x8.5/11 = 995.3): 36x46 +2 = 1658. act = 8192x78,336x2
    #     = 1,283,457,024 + 237,956,160 + 32x152,064x8 = 38,928,384 + 536,870,912
    #     = 2,097,212,480; graphs 1 GiB; budget = 38,654,705,664 - 16.6e9 - 2,097,212,480
    #     - 1,073,741,824 = 18,883,751,360; /917,504 = 20,581.8 -> 20,581; fit 329,280;
    #     min(32, 20,580//617 = 33) = 32
    ("olmocr", "40", 1658, 2_097_212_480, 20_581, 329_280, 16_384, 9_858, 32),
    # 80: act = 1,283,457,024 + 237,956,160 + 64x152,064x8 = 77,856,768 + 536,870,912
    #     = 2,136,140,864; budget = 77,309,411,328 - 16.6e9 - 2,136,140,864 - 1,073,741,824
    #     = 57,499,528,640; /917,504 = 62,669.3 -> 62,669; fit 1,002,688; min(64, 101) = 64
    ("olmocr", "80", 1658, 2_136_140_864, 62_669, 1_002_688, 16_384, 9_858, 64),
    # 141: act = 16384x78,336x2 = 2,566,914,048 + 237,956,160 + 128x152,064x8 = 155,713,536
    #     + 536,870,912 = 3,497,454,656; budget = 138,101,150,187 - 16.6e9 - 3,497,454,656
    #     - 1,073,741,824 = 116,929,953,707; /917,504 = 127,443.5 -> 127,443; fit 2,039,072;
    #     min(128, 206) = 128
    ("olmocr", "141", 1658, 3_497_454_656, 127_443, 2_039_072, 16_384, 9_858, 128),
    # Chandra OCR 2 (Qwen3.5-4B, hybrid): 8 KV layers x 4 heads x 256; h=2560 i=9216
    # vocab=248,320 vh=1024 vi=4096; 9.4 GB; max_pos 262,144 (served at 18,000); 32 px + 2.
    # B bf16 = 16x2x8x4x256x2 = 524,288; fp8 262,144. GDN state = 24 x (32x128x128x4 fp32
    # + (2x16x128 + 32x128)x3x2) = 24 x (2,097,152 + 49,152) = 51,511,296 a sequence.
    # (blocks below: budget minus that state, / B; max_model_len = the spec's 18,000)
    # 6h+3i = 15,360+27,648 = 43,008; 6vh+3vi = 6,144+12,288 = 18,432.
    # 24: 192 DPI letter 1632x2112, cap 1280 -> 989x1280: 31x40 = 1240+2 = 1242.
    #     act = 4096x43,008x2 = 352,321,536 + 4x1242x18,432x2 = 183,140,352
    #     + 4x248,320x8 = 7,946,240 + 536,870,912 = 1,080,279,040; eager
    #     budget = 21,904,333,209 - 9.4e9 - 1,080,279,040 = 11,424,054,169
    #     blocks = (11,424,054,169 - 26,345,472)/262,144 = 43,478.9 -> 43,478; fit 695,632
    #     page 1242+200+12,384 = 13,826 -> 865 blocks; min(4, ...) = 4
    ("chandra2", "24", 1242, 1_080_279_040, 43_382, 694_096, 18_000, 13_826, 4),
    # 40: 1632x2112: 51x66 = 3366+2 = 3368. act = 8192x43,008x2 = 704,643,072
    #     + 4x3368x18,432x2 = 496,631,808 + 32x248,320x8 = 63,569,920 + 536,870,912
    #     = 1,801,715,712; graphs 1 GiB; budget = 38,654,705,664 - 9.4e9 - 1,801,715,712
    #     - 1,073,741,824 = 26,379,248,128; (- state)/524,288 = 50,264.9 -> 50,264;
    #     fit 804,208; page 3368+200+12,384 = 15,952 -> 997 blocks;
    #     in flight min(32, (50,263x524,288 + state) // (997x524,288 + state) = 48) = 32
    ("chandra2", "40", 3368, 1_801_715_712, 50_216, 803_440, 18_000, 15_952, 32),
    # 80: act = 704,643,072 + 496,631,808 + 64x248,320x8 = 127,139,840 + 536,870,912
    #     = 1,865,285,632; budget = 77,309,411,328 - 9.4e9 - 1,865,285,632 - 1,073,741,824
    #     = 64,970,383,872; (- state)/524,288 = 123,870.2 -> 123,870; fit 1,981,904
    ("chandra2", "80", 3368, 1_865_285_632, 123_822, 1_981_136, 18_000, 15_952, 64),
    # 141: act = 16384x43,008x2 = 1,409,286,144 + 496,631,808 + 128x248,320x8 = 254,279,680
    #     + 536,870,912 = 2,697,068,544; budget = 138,101,150,187 - 9.4e9 - 2,697,068,544
    #     - 1,073,741,824 = 124,930,339,819; (- state)/524,288 = 238,235.9 -> 238,235;
    #     fit 3,811,744
    ("chandra2", "141", 3368, 2_697_068_544, 238_187, 3_810_976, 18_000, 15_952, 128),
]
# fmt: on
MODELS = {"lighton": LIGHTON, "olmocr": OLMOCR, "chandra2": CHANDRA2}


@pytest.mark.parametrize(
    ("model", "card", "vision", "act", "blocks", "fit", "mml", "tpp", "in_flight"), CASES
)
def test_plan_matches_hand_worked_numbers(
    model: str,
    card: str,
    vision: int,
    act: int,
    blocks: int,
    fit: int,
    mml: int,
    tpp: int,
    in_flight: int,
) -> None:
    model_id, sizing, max_tokens = MODELS[model]
    profile_name, total = CARDS[card]
    arch = get_spec(model_id)
    assert arch is not None
    plan = plan_memory(
        arch,
        get_profile(profile_name),
        total,
        sizing=sizing,
        max_tokens=max_tokens,
        prompt_tokens=200,
    )
    assert plan.vision_tokens == vision
    assert plan.activation_bytes == act
    assert plan.num_blocks == blocks
    assert plan.kv_cache_bytes == blocks * plan.bytes_per_block
    assert plan.max_model_len_fit == fit
    assert plan.max_model_len == mml
    assert plan.tokens_per_page == tpp
    assert plan.pages_in_flight == in_flight
    assert plan.fits
    split = plan.split
    assert sum(split.as_dict().values()) == total  # the chart's parts add up to the card


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
    assert page_dimensions(PageSizing(dpi=192)) == (1632, 2112)  # 8.5x192, 11x192
    assert page_dimensions(PageSizing(dpi=192), cap=1280) == (989, 1280)
    assert page_dimensions(PageSizing(longest_edge=1288)) == (995, 1288)
    # dots.ocr: 200 DPI 1700x2200, snapped down to a 28-px grid: 1680x2184
    assert page_dimensions(PageSizing(dpi=200, grid=28)) == (1680, 2184)
    # min_short_edge upscales: 72 DPI letter 612x792 -> short side 1024: 1024x1325
    assert page_dimensions(PageSizing(dpi=72, min_short_edge=1024)) == (1024, 1325)


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
    # LightOnOCR-2-1B, a100-40g profile, 32 GiB card of which others hold 27 GiB (free 5 GiB):
    # util = (5 - 1) / 32 = 0.125 (exact in binary); 0.125 x 34,359,738,368 = 4,294,967,296
    # - 2e9 - act 1,215,053,824 - graphs 536,870,912 = 543,042,560; /1,835,008 = 295.9 -> 295
    # blocks; fit 294 x 16 = 4,704 < 6,661 tokens a page.
    arch = get_spec("lightonai/LightOnOCR-2-1B")
    assert arch is not None
    plan = plan_memory(
        arch,
        get_profile("a100-40g"),
        32 * GiB,
        5 * GiB,
        sizing=PageSizing(longest_edge=1540),
        prompt_tokens=200,
    )
    assert plan.util_eff == 0.125
    assert (plan.num_blocks, plan.max_model_len_fit, plan.fits) == (295, 4_704, False)
    text = "\n".join(plan.advice)
    assert "6,661 tokens" in plan.advice[0] and "holds 4,704" in plan.advice[0]
    # smaller page: 1540 * 0.75 = 1155 -> 892x1155: 32x42 = 1,344; 2,365 - 1,344
    assert "1155 px long edge instead of 1540 px saves 1,021 tokens" in text
    assert "2x the tokens (9,408)" in text  # FP8 KV: 2 x 4,704
    assert "enforce_eager=True" in text
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
    assert page_dimensions(PageSizing(longest_edge=100, min_pixels=200 * 200)) == (175, 228)
    # Chandra: an image file gets a 1536 px short side, a PDF page 1024; the plan takes the
    # larger (72 DPI letter: 612x792 -> PDF 1024x1325, image 1536x1988)
    sizing = PageSizing(dpi=72, min_short_edge=1024, image_min_short_edge=1536)
    assert page_dimensions(sizing) == (1536, 1988)


def test_unknown_model_and_unsupported_profile_raise_plan_error() -> None:
    from workbench.errors import PlanError

    with pytest.raises(PlanError, match="no memory numbers"):
        plan_for_model("acme/not-a-model", get_profile("a100-80g"), 80 * GiB)
    with pytest.raises(PlanError, match="unsupported"):
        plan_for_model("lightonai/LightOnOCR-2-1B", get_profile("v100"), 32 * GiB)
