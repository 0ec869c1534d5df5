"""Vision-token rules as vLLM counts them (measured by the vllm_contract lane on vLLM 0.26.0
and 0.33.0: tests/vllm_contract/test_processor_tokens.py)."""

from __future__ import annotations

from workbench.models import get_spec
from workbench.models.architectures import smart_resize


def test_smart_resize_rounds_sides_then_scales_into_the_pixel_bounds() -> None:
    assert smart_resize(989, 1280, 28, 3136, 12_845_056) == (980, 1288)  # 35.3 -> 35, 45.7 -> 46
    assert smart_resize(995, 1288, 28, 3136, 12_845_056) == (1008, 1288)  # 35.5 -> 36
    # above max_pixels: scaled down (floor) until it fits
    w, h = smart_resize(4000, 5000, 32, 3136, 6_291_456)
    assert w * h <= 6_291_456 and (w % 32, h % 32) == (0, 0) and (w, h) == (2240, 2784)
    # below min_pixels: scaled up (ceil)
    w, h = smart_resize(100, 120, 32, 65_536, 16_777_216)
    assert w * h >= 65_536 and (w, h) == (256, 288)


def test_vision_tokens_of_the_planned_pages_are_vllms() -> None:
    """LightOnOCR: no break/end tokens (vLLM strips them); Qwen: smart_resize + 2 markers."""
    lighton = get_spec("lightonai/LightOnOCR-2-1B").arch
    olmocr = get_spec("allenai/olmOCR-2-7B-1025").arch
    chandra = get_spec("datalab-to/chandra").arch
    assert lighton and olmocr and chandra
    assert lighton.vision_tokens(1190, 1540) == 2365  # 43 x 55, measured in vLLM 0.26 on the H200
    assert olmocr.vision_tokens(995, 1288) == 36 * 46 + 2
    assert olmocr.vision_tokens(989, 1280) == 35 * 46 + 2  # ceil would say 36 x 46
    assert chandra.vision_tokens(1632, 2112) == 51 * 66 + 2
