"""The vision encoder's batch: how many image tokens vLLM encodes in one step, and its peak.

vLLM encodes ``max(max_num_batched_tokens, one page's tokens)`` image tokens per scheduler
step (``compute_mm_encoder_budget`` in ``vllm/v1/core/encoder_cache_manager.py``: the
encoder compute budget is ``max(max_num_encoder_input_tokens, largest item)`` and the former
equals ``max_num_batched_tokens``). At 16,384 that is six LightOnOCR pages at once. Whatever
mix of page sizes arrives, the patches of one step are at most ``budget x merge`` (a token is
``merge`` = 2 x 2 patches in every planned model), which is what this module bounds.

Peak of one encoder step, bytes (``patches`` = budget tokens x merge):

``linear``  ``patches x (6 vision_hidden + 3 vision_intermediate) x 2``: the widest layer's
            activations for every patch at once (the rule the planner always used for a page)
``mask``    Pixtral under a vLLM whose attention is dense (:mod:`workbench.gpu.vllm_versions`):
            ``2 x patches² x 2``: the bf16 ``N x N`` block mask plus the copy PyTorch's SDPA
            pads it into. On the H200 six pages asked for 5.34 GiB in one allocation
            (≈ 53.5 k patches, 53.5k² x 2 B) with 3.79 GiB free.

:func:`choose_budget` picks the largest ``max_num_batched_tokens`` (not above the profile's)
whose encoder step fits where it has to fit: inside the activation reserve when vLLM profiles
the encoder (then the KV cache shrinks to make room, the planner counts it), else inside the
memory vLLM leaves outside its share, of which only :data:`HEADROOM_SHARE` is used because
the allocator fragments (4.34 GiB "reserved but unallocated" at the failure above). A
profiled step whose attention is quadratic is kept to :data:`PROFILED_QUADRATIC_SHARE` of the
card; a profiled linear one (packed attention, vLLM ≥ 0.29) is not limited beyond the profile.
A quadratic step is also kept to one page where memory would allow more (:func:`one_page_step`):
that is faster, not only safer (:data:`ONE_PAGE_WHY`).
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.gpu.vllm_versions import VllmBehaviour
from workbench.models.architectures import Architecture

GiB = 1024**3
PATCHES_PER_TOKEN = 4  # 2 x 2 spatial merge: Pixtral/LightOnOCR, Qwen2.5-VL, Qwen3-VL, Qwen3.5
#: Part of the unprofiled headroom an encoder step may take: the rest is the CUDA context
#: (529 MiB measured on the H200 before vLLM allocates), NCCL/cuBLAS workspaces that the
#: profile does not see and fragmentation (4.34 GiB reserved-unallocated at the H200 OOM).
HEADROOM_SHARE = 0.4
CONTEXT_BYTES = 600 * 1024**2  # CUDA context + cuBLAS workspaces outside the profile
#: Part of the card a profiled but quadratic encoder step may take (vLLM 0.17, 0.27-0.28 with
#: Pixtral): vLLM takes it out of the KV cache, so a larger batch only buys encoder speed.
PROFILED_QUADRATIC_SHARE = 0.1
STEP = 256  # budgets are multiples of this (vLLM pads batches to multiples of 8/16 anyway)
#: Why a quadratic encoder gets one page a step even where memory allows more (issue 34).
ONE_PAGE_WHY = (
    "one page an encoder step for speed: the dense mask makes a step of k pages attend over "
    "all of them, k² the work of one (H200, vLLM 0.26, LightOnOCR-2-1B: 5.60 pages/s at one "
    "page a step against 3.83 at three, benchmarks/h200/results-2026-12-05b.md)"
)


def one_page_step(page_tokens: int) -> int:
    """The largest ``max_num_batched_tokens`` (a multiple of STEP) whose encoder step holds one
    page, never below one page: vLLM encodes whole images, as many as the budget holds."""
    return max((2 * page_tokens - 1) // STEP * STEP, page_tokens)


@dataclass(frozen=True)
class EncoderPlan:
    budget_tokens: int  # what vLLM encodes in one step: max(mnbt, page tokens)
    pages_per_step: int  # whole planned pages in one step
    peak_bytes: int  # bound on one step's memory, any page mix
    profiled: bool  # vLLM takes it out of the KV cache itself
    max_num_batched_tokens: int  # the value to pass (≤ the profile's)
    headroom_bytes: int  # memory outside vLLM's share (0 when profiled)
    reason: str


def quadratic(arch: Architecture, behaviour: VllmBehaviour) -> bool:
    return arch.vision_attention == "dense_mask" and behaviour.dense_pixtral_mask


def step_peak(arch: Architecture, budget_tokens: int, behaviour: VllmBehaviour) -> int:
    """Bytes one encoder step of ``budget_tokens`` image tokens may take (module doc)."""
    patches = budget_tokens * PATCHES_PER_TOKEN
    linear = patches * (6 * arch.vision_hidden + 3 * arch.vision_intermediate) * 2
    mask = 2 * patches * patches * 2 if quadratic(arch, behaviour) else 0
    return linear + mask


def headroom(total_bytes: int, util: float) -> int:
    """Memory vLLM leaves outside ``util x total``, less the CUDA context."""
    return max(int(total_bytes * (1.0 - util)) - CONTEXT_BYTES, 0)


def choose_budget(
    arch: Architecture,
    behaviour: VllmBehaviour,
    *,
    profile_mnbt: int,
    page_tokens: int,
    total_bytes: int,
    util: float,
) -> EncoderPlan:
    """The encoder batch the plan allows (module doc). Never below one page: vLLM encodes a
    whole image in one step whatever ``max_num_batched_tokens`` says."""
    page_tokens = max(page_tokens, 1)
    if behaviour.profiles_encoder and not quadratic(arch, behaviour):
        budget = max(profile_mnbt, page_tokens)
        return EncoderPlan(
            budget, budget // page_tokens, step_peak(arch, budget, behaviour), True,
            profile_mnbt, 0, f"vLLM {behaviour.version} profiles the encoder at start-up",
        )  # fmt: skip
    room = headroom(total_bytes, util)
    # Where the step must fit: inside vLLM's share when it profiles it (a quadratic step is
    # kept to PROFILED_QUADRATIC_SHARE of the card, or it would eat the KV cache), else in
    # the unprofiled headroom.
    if behaviour.profiles_encoder:
        allowed, room = int(total_bytes * PROFILED_QUADRATIC_SHARE), 0
    else:
        allowed = int(room * HEADROOM_SHARE)
    mnbt = profile_mnbt
    # The largest multiple of STEP under the profile's value whose step fits; one page at least.
    while mnbt > page_tokens and step_peak(arch, max(mnbt, page_tokens), behaviour) > allowed:
        mnbt = max((mnbt - 1) // STEP * STEP, page_tokens)
    one_page = one_page_step(page_tokens)
    faster = quadratic(arch, behaviour) and mnbt > one_page
    mnbt = one_page if faster else mnbt
    budget = max(mnbt, page_tokens)
    peak = step_peak(arch, budget, behaviour)
    if behaviour.profiles_encoder:
        why = (
            f"vLLM {behaviour.version} profiles the encoder, but its Pixtral attention mask "
            f"grows with the square of the batch: one step of {budget:,} image tokens "
            f"({budget // page_tokens} page(s)) peaks near {peak / GiB:.2f} GiB, kept under "
            f"{PROFILED_QUADRATIC_SHARE:.0%} of the card (taken from the KV cache)"
        )
    else:
        why = (
            f"vLLM {behaviour.version} does not profile the vision encoder: one step of "
            f"{budget:,} image tokens ({budget // page_tokens} page(s)) peaks near "
            f"{peak / GiB:.2f} GiB, which must fit in the {room / GiB:.1f} GiB left outside "
            f"gpu_memory_utilization"
        )
        if quadratic(arch, behaviour):
            why += " (its attention mask grows with the square of the batch)"
    if faster:
        why += f"; {ONE_PAGE_WHY}"
    return EncoderPlan(
        budget, budget // page_tokens, peak, behaviour.profiles_encoder, mnbt,
        room, why,
    )  # fmt: skip


def encoder_step(
    arch: Architecture, version: VllmBehaviour, profile_mnbt: int, vision: int, total_bytes: int,
    util: float,
) -> tuple[EncoderPlan, float]:  # fmt: skip
    """The vision encoder's batch and the ``gpu_memory_utilization`` that leaves it room: when
    even one page's encoder step does not fit outside vLLM's share, the share shrinks."""
    enc = choose_budget(
        arch, version, profile_mnbt=profile_mnbt, page_tokens=vision, total_bytes=total_bytes,
        util=util,
    )  # fmt: skip
    if not enc.profiled and enc.peak_bytes > HEADROOM_SHARE * enc.headroom_bytes:
        util = max(1.0 - (enc.peak_bytes / HEADROOM_SHARE + CONTEXT_BYTES) / total_bytes, 0.0)
        enc = choose_budget(
            arch, version, profile_mnbt=profile_mnbt, page_tokens=vision,
            total_bytes=total_bytes, util=util,
        )  # fmt: skip
    return enc, util
