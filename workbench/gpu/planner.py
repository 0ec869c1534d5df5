"""Memory planner: the longest ``max_model_len`` that fits, pure arithmetic, no GPU needed.

It mirrors how the planned vLLM release sizes its KV cache (benchmarks/vllm_releases.md, read
from each release's source; 0.34's extensible cache: :mod:`workbench.gpu.kv_budget`):

``util_eff``   ``min(profile cap, (free - margin) / total)``; margin = 1 GiB because the CUDA
               context alone took 529 MiB on an H200 before vLLM's free-memory check
               (vLLM refuses to start when free < util x total)
``budget``     ``util_eff x total - weights - activation peak - CUDA graphs``
``B``          bytes a block = ``block_size x 2 x kv_layers x kv_heads x head_dim x dtype``
``blocks``     ``floor(budget / B)`` (hybrid models first set aside one GDN state)
``fit``        ``(blocks - 1) x block_size`` tokens (vLLM reserves one null block)
``max_model_len``  ``min(fit, max_position_embeddings, the spec's max_model_len if any)``

Estimates (they can only be measured; the plan says so in ``assumptions``):

* activation peak = decoder forward of ``max_num_batched_tokens`` tokens, ``(6 hidden +
  3 intermediate) x 2`` bytes a token (residual, norm, qkv, attention out, gate/up/act) + the
  ViT on the largest allowed image (the page: 4 patches a token, same per-patch rule) +
  the sampler's dummy run ``max_num_seqs x vocab x 8`` (fp32 logits and probabilities)
  + 512 MiB for cuBLAS workspaces and allocator slack;
* CUDA graphs = 0 with ``enforce_eager``, else 0.5 GiB (≤ 3 B) or 1 GiB: a guess from typical
  "Graph capturing finished … took 0.3-1.2 GiB" logs, not measured here.

A page needs ``vision tokens (at the page size) + prompt tokens + output budget``, where the
output budget is ``min(max_tokens, context - prompt - vision)``: vLLM stops a sequence at the
model's context, so a ``max_tokens`` as long as the context (DeepSeek-OCR: 8,192 in 8,192)
is legal. Pages that run at once = ``min(max_num_seqs, blocks_usable // blocks a page)``.
The plan errs low on purpose; pass ``max_model_len=-1`` to vLLM to let it measure exactly.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from workbench.errors import PlanError
from workbench.gpu import kv_budget
from workbench.gpu.encoder import EncoderPlan, encoder_step
from workbench.gpu.profiles import Profile
from workbench.gpu.vllm_versions import VllmBehaviour, behaviour
from workbench.models import (
    ModelSpec,
    PageSizing,
    all_specs,
    match_served_model,
    page_tokens,
    planned_page,
)
from workbench.models.architectures import Architecture

GiB = 1024**3
MiB = 1024**2
MARGIN_BYTES = 1 * GiB
#: Added to the profiled activation peak (allocator rounding, small buffers). Calibrated on
#: vLLM 0.26 on the H200 (benchmarks/gpu_probe_results.md): LightOnOCR-2-1B measured 0.15,
#: 0.17, 0.25 GiB at max_num_batched_tokens 2560, 3584, 7168; Chandra 1 1.53 GiB at 16384.
FIXED_ACTIVATION_BYTES = 64 * MiB
#: vLLM's "non-torch memory" (cuBLAS/NCCL workspaces the profile sees grow), taken out of the
#: KV budget: 241,172,480 bytes measured for both LightOnOCR-2-1B and Chandra 1 (vLLM 0.26).
NON_TORCH_BYTES = 230 * MiB
LETTER_ASPECT = 8.5 / 11  # width / height of the page the plan assumes (US letter portrait)
KV_DTYPE_BYTES = {"auto": 2, "bfloat16": 2, "float16": 2}  # every fp8*/int8 variant: 1


def kv_dtype_bytes(kv_cache_dtype: str) -> int:
    return KV_DTYPE_BYTES.get(kv_cache_dtype, 1)


def bytes_per_block(arch: Architecture, block_size: int, kv_cache_dtype: str) -> int:
    return (block_size * 2 * arch.kv_layers * arch.kv_heads * arch.head_dim) * kv_dtype_bytes(
        kv_cache_dtype
    )


def activation_peak(arch: Architecture, mnbt: int, max_num_seqs: int, encoder: int = 0) -> int:
    """vLLM's start-up profile peak: its phases run one after another (encoder, decoder
    forward of ``mnbt`` tokens, sampler over ``max_num_seqs`` rows), so the peak is the
    largest phase, not their sum. ``encoder``: the encoder step's bytes when the version
    profiles it, else 0 (:mod:`workbench.gpu.encoder`)."""
    # Per token the MLP holds its input, gate/up and activation at once: (4h + 3i) x 2 bytes
    # matched the measured peaks within 10 % (over, for Chandra 1); the sampler holds fp32
    # logits for every sequence.
    decoder = mnbt * (4 * arch.hidden_size + 3 * arch.intermediate_size) * 2
    sampler = max_num_seqs * arch.vocab_size * 4
    return max(decoder, sampler, encoder) + FIXED_ACTIVATION_BYTES


def cuda_graph_bytes(arch: Architecture, enforce_eager: bool, reserved: bool = True) -> int:
    """CUDA-graph memory the KV budget must leave. ``reserved=False``: the vLLM version
    captures graphs after sizing the KV cache, from the memory outside its share (0.26's
    default runner: measured 0.12-0.42 GiB there), so they cost the budget nothing."""
    if enforce_eager or not reserved:
        return 0
    return GiB // 2 if arch.small else GiB


@dataclass(frozen=True)
class MemorySplit:
    weights: int
    activations: int
    cuda_graphs: int
    kv_cache: int
    free: int  # total minus all of the above (outside vLLM's share, or unused)

    def as_dict(self) -> dict[str, int]:
        return {
            "weights": self.weights,
            "activations": self.activations,
            "cuda_graphs": self.cuda_graphs,
            "kv_cache": self.kv_cache,
            "free": self.free,
        }


@dataclass(frozen=True)
class MemoryPlan:
    model_id: str
    profile: str
    total_bytes: int
    free_bytes: int
    util_eff: float
    weights_bytes: int
    activation_bytes: int
    cuda_graph_bytes: int
    kv_cache_bytes: int  # num_blocks x bytes_per_block (0 when nothing fits)
    block_size: int
    kv_cache_dtype: str
    bytes_per_block: int
    num_blocks: int
    max_model_len_fit: int  # longest context the KV cache holds
    max_model_len: int  # what to pass to vLLM
    page_width: int
    page_height: int
    vision_tokens: int
    prompt_tokens: int
    max_tokens: int
    tokens_per_page: int
    pages_in_flight: int  # pages the KV cache holds at once (≤ max_num_seqs)
    client_pages_in_flight: int  # what the workbench should keep open: min(profile, above)
    fits: bool
    advice: tuple[str, ...] = ()
    assumptions: tuple[str, ...] = ()
    engine_args: dict[str, Any] = field(default_factory=dict)
    vllm_version: str = ""  # the release whose behaviour was planned for (vllm_versions)
    encoder: EncoderPlan | None = None  # the vision encoder's step (budget, peak, why)

    @property
    def split(self) -> MemorySplit:
        used = self.weights_bytes + self.activation_bytes + self.cuda_graph_bytes
        kv = self.kv_cache_bytes
        return MemorySplit(
            self.weights_bytes,
            self.activation_bytes,
            self.cuda_graph_bytes,
            kv,
            max(self.total_bytes - used - kv, 0),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "model": self.model_id,
            "profile": self.profile,
            "fits": self.fits,
            "max_model_len": self.max_model_len,
            "max_model_len_fit": self.max_model_len_fit,
            "kv_cache_bytes": self.kv_cache_bytes,
            "num_blocks": self.num_blocks,
            "bytes_per_block": self.bytes_per_block,
            "block_size": self.block_size,
            "kv_cache_dtype": self.kv_cache_dtype,
            "tokens_per_page": self.tokens_per_page,
            "vision_tokens": self.vision_tokens,
            "page_size": [self.page_width, self.page_height],
            "pages_in_flight": self.pages_in_flight,
            "client_pages_in_flight": self.client_pages_in_flight,
            "gpu_memory_utilization": round(self.util_eff, 4),
            "total_bytes": self.total_bytes,
            "free_bytes": self.free_bytes,
            "memory_split": self.split.as_dict(),
            "advice": list(self.advice),
            "assumptions": list(self.assumptions),
            "engine_args": self.engine_args,
            "vllm_version": self.vllm_version,
            "encoder": None  # every EncoderPlan field but the headroom
            if self.encoder is None
            else {k: v for k, v in vars(self.encoder).items() if k != "headroom_bytes"},
        }


def plan_memory(
    spec: ModelSpec,
    profile: Profile,
    total_bytes: int,
    free_bytes: int | None = None,
    *,
    sizing: PageSizing | None = None,
    max_tokens: int | None = None,
    prompt_tokens: int | None = None,
    vllm_version: str | None = None,
    _advise: bool = True,
) -> MemoryPlan:
    """Plan one model on one GPU. ``free_bytes`` defaults to ``total_bytes`` (an idle card);
    ``sizing``/``max_tokens``/``prompt_tokens`` default to the spec's; ``vllm_version``: the
    vLLM that will run the plan (None: the oldest supported, safe on all,
    :mod:`workbench.gpu.vllm_versions`)."""
    arch = architecture_of(spec)
    free = total_bytes if free_bytes is None else free_bytes
    eng = profile.engine_args(small=arch.small)
    block_size = int(eng.get("block_size") or 16)
    kv_dtype = str(eng.get("kv_cache_dtype", "auto"))
    max_seqs = int(eng.get("max_num_seqs", 256))
    eager = bool(eng.get("enforce_eager", False))
    prompt_tokens = prompt_token_estimate(spec) if prompt_tokens is None else prompt_tokens
    version = behaviour(vllm_version, hybrid=arch.hybrid)
    utilization = kv_budget.utilization(version, profile.util_cap, total_bytes, free, MARGIN_BYTES)
    width, height = planned_page(sizing or spec.sizing, profile.page_longest_edge)
    page = page_tokens(arch, width, height, prompt_tokens, max_tokens or spec.max_tokens)
    vision, out_tokens, per_page = page.vision, page.output, page.total
    mnbt = int(eng.get("max_num_batched_tokens", 8192))  # the profile's; the encoder's below
    enc, util = encoder_step(arch, version, mnbt, vision, total_bytes, utilization.value)
    mnbt = enc.max_num_batched_tokens
    act, graphs, budget = _kv_budget(arch, version, enc, util, eager, max_seqs, total_bytes, free)
    bpb = bytes_per_block(arch, block_size, kv_dtype)
    blocks, fit, mml, in_flight = kv_budget.kv_fit(
        arch, spec, budget, bpb, block_size, per_page, max_seqs
    )
    fits = budget > 0 and out_tokens > 0 and mml >= per_page
    args = _engine_args(eng, mnbt, util, mml if fits else -1, (width, height), utilization.passed)
    plan = MemoryPlan(
        model_id=spec.id,
        profile=profile.name,
        total_bytes=total_bytes,
        free_bytes=free,
        util_eff=util,
        weights_bytes=arch.weight_bytes,
        activation_bytes=act,
        cuda_graph_bytes=graphs,
        kv_cache_bytes=blocks * bpb,
        block_size=block_size,
        kv_cache_dtype=kv_dtype,
        bytes_per_block=bpb,
        num_blocks=blocks,
        max_model_len_fit=fit,
        max_model_len=mml,
        page_width=width,
        page_height=height,
        vision_tokens=vision,
        prompt_tokens=prompt_tokens,
        max_tokens=out_tokens,
        tokens_per_page=per_page,
        pages_in_flight=int(in_flight),
        client_pages_in_flight=int(min(in_flight, profile.pages_in_flight)),
        fits=fits,
        assumptions=(
            *_assumptions(arch, eager, out_tokens < (max_tokens or spec.max_tokens)),
            enc.reason,
            *([kv_budget.EXTENSIBLE_NOTE.format(version.version)] if version.extensible_kv else []),
        ),
        engine_args=args,
        vllm_version=version.version,
        encoder=enc,
    )
    if fits or not _advise:
        return plan
    return replace(plan, advice=tuple(_advice(plan, spec, profile, out_tokens)))


def _kv_budget(
    arch: Architecture, version: VllmBehaviour, enc: EncoderPlan, util: float, eager: bool,
    max_seqs: int, total: int, free: int,
) -> tuple[int, int, int]:  # fmt: skip
    """(activation peak, CUDA graphs, KV cache budget) in bytes, as ``version`` charges them."""
    act = activation_peak(
        arch, enc.max_num_batched_tokens, max_seqs, enc.peak_bytes if enc.profiled else 0
    )
    graphs = cuda_graph_bytes(arch, eager, version.reserves_cudagraphs)
    budget = kv_budget.kv_bytes(
        version, util=util, total=total, free=free, weights=arch.weight_bytes, activations=act,
        graphs=graphs, non_torch=NON_TORCH_BYTES,
    )  # fmt: skip
    return act, graphs, budget


def _engine_args(
    eng: dict[str, Any], mnbt: int, util: float, max_model_len: int, page: tuple[int, int],
    util_passed: bool,
) -> dict[str, Any]:  # fmt: skip
    """The plan's ``vllm.LLM`` arguments: the profile's, then what the plan decided."""
    width, height = page
    args = {
        **eng,
        "max_num_batched_tokens": mnbt,
        "gpu_memory_utilization": round(util, 4),
        "max_model_len": max_model_len,
        "limit_mm_per_prompt": {
            "image": {"count": 1, "width": width, "height": height},
            "video": 0,
        },
    }
    if not util_passed:  # 0.34 on an idle card: its default (1.0), never a habit
        del args["gpu_memory_utilization"]
    return args


def _assumptions(arch: Architecture, eager: bool, capped: bool) -> tuple[str, ...]:
    notes = [
        "activation peak is an estimate (the largest of: decoder forward of "
        "max_num_batched_tokens, sampler, profiled encoder step; + 64 MiB); vLLM measures it "
        "at start-up",
        "page is US letter portrait; prompt 200 tokens",
    ]
    if capped:
        notes.append(
            f"output budget capped at the {arch.context:,}-token context minus prompt and "
            "image (vLLM stops there too)"
        )
    if not eager:
        notes.append("CUDA-graph memory is a guess (0.5 GiB ≤3 B, else 1 GiB)")
    if arch.hybrid:
        notes.append(
            "hybrid model: KV counts full-attention layers only, plus one GDN state a page; "
            "vLLM raises the block size itself, so prefer max_model_len=-1"
        )
    notes += [f"unverified: {u}" for u in arch.unverified]
    return tuple(notes)


def _advice(plan: MemoryPlan, spec: ModelSpec, profile: Profile, max_tokens: int) -> list[str]:
    arch = architecture_of(spec)
    gib = plan.total_bytes / GiB
    tips: list[str] = []
    fixed = plan.weights_bytes + plan.activation_bytes + plan.cuda_graph_bytes
    if fixed >= plan.util_eff * plan.total_bytes:
        held = plan.total_bytes - plan.free_bytes
        tips.append(
            f"The weights ({plan.weights_bytes / GiB:.1f} GiB) and start-up peak "
            f"({plan.activation_bytes / GiB:.1f} GiB) alone exceed {plan.util_eff:.2f} x "
            f"{gib:.1f} GiB"
            + (f"; other processes hold {held / GiB:.1f} GiB" if held > MARGIN_BYTES else "")
            + ": a quantised checkpoint or a smaller model is needed."
        )
    else:
        tips.append(
            f"One page needs {plan.tokens_per_page:,} tokens ({plan.vision_tokens:,} vision + "
            f"{plan.prompt_tokens} prompt + {max_tokens:,} output) but the KV cache holds "
            f"{plan.max_model_len_fit:,}."
        )
        edge = max(plan.page_width, plan.page_height)
        smaller = int(edge * 0.75)
        w2, h2 = planned_page(PageSizing(longest_edge=smaller), None)
        saved = plan.vision_tokens - arch.vision_tokens(w2, h2)
        if saved > 0:
            tips.append(
                f"Smaller page: a {smaller} px long edge instead of {edge} px saves {saved:,} "
                f"tokens a page (page_longest_edge)."
            )
        if plan.kv_cache_dtype in KV_DTYPE_BYTES:
            tips.append(
                "FP8 KV cache (kv_cache_dtype=fp8) halves the bytes a token: 2x the tokens "
                f"({2 * plan.max_model_len_fit:,})."
            )
        if plan.cuda_graph_bytes:
            tips.append(
                f"enforce_eager=True frees the CUDA-graph memory "
                f"(~{plan.cuda_graph_bytes / GiB:.1f} GiB) for KV, at slower decode."
            )
        tips.append(f"Fewer output tokens: max_tokens {max_tokens:,} → {max_tokens // 2:,}.")
    smaller_models = [
        other
        for other in sorted(_planned_specs(), key=lambda o: -architecture_of(o).weight_bytes)
        if architecture_of(other).weight_bytes < arch.weight_bytes
        and plan_memory(other, profile, plan.total_bytes, plan.free_bytes, _advise=False).fits
    ]
    if smaller_models:
        names = ", ".join(o.display for o in smaller_models[:3])
        tips.append(f"A smaller model that fits this GPU with this profile: {names}.")
    return tips


def prompt_token_estimate(spec: ModelSpec | None) -> int:
    """Prompt + chat template tokens: ~3 characters a token (conservative for English and
    HTML-heavy prompts) + 32 for the template; 200 when the spec is unknown."""
    if spec is None:
        return 200
    text = (spec.system or "") + (spec.prompt or "")
    return len(text) // 3 + 32


def _planned_specs() -> list[ModelSpec]:
    return [s for s in all_specs() if s.arch is not None]


def architecture_of(spec: ModelSpec) -> Architecture:
    if spec.arch is None:
        known = ", ".join(s.id for s in _planned_specs())
        raise PlanError(f"no memory numbers for model {spec.id!r}; the planner knows: {known}")
    return spec.arch


def resolve_model(model_id: str) -> tuple[Architecture, ModelSpec]:
    """The architecture numbers and the ModelSpec for a model id, alias or served name."""
    spec = match_served_model(model_id)
    if spec is None:
        known = ", ".join(s.id for s in _planned_specs())
        raise PlanError(f"no memory numbers for model {model_id!r}; the planner knows: {known}")
    return architecture_of(spec), spec


def plan_for_model(
    model_id: str,
    profile: Profile,
    total_bytes: int,
    free_bytes: int | None = None,
    *,
    vllm_version: str | None = None,
) -> tuple[MemoryPlan, Architecture, ModelSpec]:
    """:func:`plan_memory` for a model named by id, alias or served name."""
    if not profile.supported:
        raise PlanError(f"profile {profile.name!r} is unsupported: {profile.reason}")
    if profile.name == "cpu":
        raise PlanError("the cpu profile runs the embedded CPU engine, not vLLM; pick a GPU one")
    arch, spec = resolve_model(model_id)
    if vllm_version is None:  # the vLLM that would run it here; none: the oldest (safe on all)
        from workbench.gpu.vllm_versions import installed_version

        vllm_version = installed_version()
    plan = plan_memory(spec, profile, total_bytes, free_bytes, vllm_version=vllm_version)
    return plan, arch, spec
