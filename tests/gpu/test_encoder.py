"""The encoder-batch bound (workbench/gpu/encoder.py) and the version table it reads."""

from __future__ import annotations

import pytest

from workbench.gpu.encoder import (
    HEADROOM_SHARE,
    choose_budget,
    headroom,
    one_page_step,
    step_peak,
)
from workbench.gpu.planner import GiB, plan_memory
from workbench.gpu.profiles import get_profile
from workbench.gpu.vllm_versions import behaviour, version_key
from workbench.models import get_spec

LIGHTON = get_spec("lightonai/LightOnOCR-2-1B")
CHANDRA = get_spec("datalab-to/chandra")
H200 = int(139.80 * GiB)
OLD, NEW = behaviour("0.26.0"), behaviour("0.33.0")


def _flags(b: object) -> tuple:
    return tuple(v for k, v in vars(b).items() if k not in ("version", "since"))


def test_versions_fall_back_to_the_release_below() -> None:
    assert version_key("0.26.0rc1+cu130") == (0, 26, 0)
    assert behaviour(None) == OLD  # unknown: the release the H200 probes ran on
    assert behaviour("garbage") == OLD
    assert behaviour("0.33.2").version == "0.33.2" and _flags(behaviour("0.33.2")) == _flags(NEW)
    assert behaviour("0.29.1").since == "0.29.0"  # packed Pixtral attention from 0.29.0
    assert behaviour("0.28.0").dense_pixtral_mask and not behaviour("0.29.0").dense_pixtral_mask
    assert behaviour("1.0").since == "0.34.0" and behaviour("1.0").extensible_kv
    assert behaviour("0.10.0").since == "0.17.0"  # older than supported: the oldest read


def test_pixtral_mask_grows_with_the_square_of_the_batch() -> None:
    arch = LIGHTON.arch
    assert arch is not None and arch.vision_attention == "dense_mask"
    one, two = step_peak(arch, 2400, OLD), step_peak(arch, 4800, OLD)
    assert two > 3 * one  # the quadratic mask dominates: 3x at two pages, towards 4x
    # The H200 failure: 6 pages of 2,365 tokens at once ask for more than 5 GiB.
    assert step_peak(arch, 6 * 2365, OLD) > 5 * GiB
    # The Qwen-VL encoders attend per image: linear.
    qwen = CHANDRA.arch
    assert qwen is not None
    assert step_peak(qwen, 4800, OLD) == pytest.approx(2 * step_peak(qwen, 2400, OLD))


def test_unprofiled_dense_encoder_gets_a_budget_that_fits_outside_vllms_share() -> None:
    arch = LIGHTON.arch
    assert arch is not None
    enc = choose_budget(
        arch, OLD, profile_mnbt=16_384, page_tokens=2421, total_bytes=H200, util=0.92
    )
    assert not enc.profiled
    assert 2421 <= enc.max_num_batched_tokens < 16_384
    assert enc.peak_bytes <= HEADROOM_SHARE * headroom(H200, 0.92)
    assert enc.pages_per_step < 6  # the batch that ran out of memory


def test_a_quadratic_encoder_gets_one_page_a_step_where_memory_allows_more() -> None:
    """Issue 34, measured on the H200 (vLLM 0.26): one page an encoder step 5.60 pages/s,
    three 3.83. The memory rule alone allows three pages here; the plan asks for one, the
    largest step that holds one (two would not fit in the budget one STEP higher)."""
    arch = LIGHTON.arch
    assert arch is not None
    memory_only = 2 * 2421 + 2 * 256  # what the headroom rule allowed before (three pages)
    assert step_peak(arch, memory_only, OLD) <= HEADROOM_SHARE * headroom(H200, 0.92)
    enc = choose_budget(arch, OLD, profile_mnbt=16_384, page_tokens=2421, total_bytes=H200,
                        util=0.92)  # fmt: skip
    assert enc.pages_per_step == 1 and enc.max_num_batched_tokens == one_page_step(2421)
    assert (
        enc.max_num_batched_tokens + 256
    ) // 2421 == 2 and "one page an encoder step" in enc.reason
    profiled = choose_budget(arch, behaviour("0.17.0"), profile_mnbt=16_384, page_tokens=2421,
                             total_bytes=H200, util=0.92)  # fmt: skip
    assert profiled.pages_per_step == 1  # quadratic and profiled: the same work per step
    # Linear encoders (packed attention from vLLM 0.29, Qwen-VL) keep the larger step.
    assert choose_budget(arch, NEW, profile_mnbt=16_384, page_tokens=2421, total_bytes=H200,
                         util=0.92).pages_per_step > 1  # fmt: skip


def test_profiling_version_keeps_the_profiles_budget() -> None:
    arch = CHANDRA.arch
    assert arch is not None
    enc = choose_budget(arch, NEW, profile_mnbt=8192, page_tokens=3368, total_bytes=H200, util=0.9)
    assert enc.profiled and enc.max_num_batched_tokens == 8192
    assert enc.budget_tokens == 8192 and enc.pages_per_step == 2


def test_never_below_one_page() -> None:
    arch = LIGHTON.arch
    assert arch is not None
    small = int(11.7 * GiB)
    enc = choose_budget(arch, OLD, profile_mnbt=4096, page_tokens=2421, total_bytes=small,
                        util=0.85)  # fmt: skip
    assert enc.budget_tokens >= 2421 and enc.pages_per_step == 1


@pytest.mark.parametrize("gib", [11.7, 15.7, 22.03, 23.65, 39.39, 79.15, 139.8])
def test_every_plan_keeps_the_unprofiled_encoder_step_inside_the_headroom(gib: float) -> None:
    total = int(gib * GiB)
    for name in ("generic-24gb", "l4", "rtx-4090", "a100-40g", "a100-80g", "h100-h200"):
        plan = plan_memory(LIGHTON, get_profile(name), total, vllm_version="0.26.0")
        assert plan.encoder is not None
        room = headroom(total, plan.util_eff)
        assert plan.encoder.peak_bytes <= HEADROOM_SHARE * room + 1, (name, gib)
        assert plan.engine_args["max_num_batched_tokens"] == plan.encoder.max_num_batched_tokens
        assert plan.vllm_version == "0.26.0"
