"""Known-bad combinations of a vLLM release with a model, its packages or its arguments, and
the defaults ``vllm serve`` falls back to: what ``plan`` and the GPU page warn about.

Each :class:`Rule` names the release source it was read from. :func:`warnings` checks them
all against a :class:`Setup` (the release planned for, the transformers installed, the model
and the arguments the plan generated); :func:`serve_defaults` gives ``vllm serve``'s own
``max_num_batched_tokens`` / ``max_num_seqs`` for a card (``engine/arg_utils.py::
EngineArgs.get_batch_defaults``, ``OPENAI_API_SERVER`` row): what a hand-written command
without those flags gets.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from workbench.gpu.vllm_versions import behaviour, version_key
from workbench.models.registry import ModelSpec

GiB = 1024**3


@dataclass(frozen=True)
class Setup:
    vllm: str
    spec: ModelSpec
    total_bytes: int
    gpu_name: str = ""
    transformers: str | None = None
    kwargs: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Rule:
    key: str
    applies: Callable[[Setup], bool]
    message: Callable[[Setup], str]
    source: str


def _pixtral(s: Setup) -> bool:
    return s.spec.arch is not None and s.spec.arch.vision_attention == "dense_mask"


def _hybrid(s: Setup) -> bool:
    return s.spec.arch is not None and s.spec.arch.hybrid


#: NVIDIA's Hopper cards (compute capability 9.0), by the names NVML gives them.
_HOPPER = ("h100", "h200", "h800", "h20", "gh200")


def _hopper(s: Setup) -> bool:
    return any(h in s.gpu_name.lower().replace(" ", "") for h in _HOPPER)


def serve_defaults(vllm: str, total_bytes: int, gpu_name: str = "") -> tuple[int, int]:
    """``(max_num_batched_tokens, max_num_seqs)`` that ``vllm serve`` uses when not told:
    2048/256 below 70 GB and on A100s, 8192/1024 on H100/H200-class cards, and from 0.30
    16384/1024 at 160 GB and more."""
    if total_bytes >= 160 * GiB and version_key(vllm) >= (0, 30, 0):
        return 16384, 1024
    if total_bytes >= 70 * GiB and "a100" not in gpu_name.lower():
        return 8192, 1024
    return 2048, 256


def _seqs(s: Setup) -> int:
    return int(s.kwargs.get("max_num_seqs") or serve_defaults(s.vllm, s.total_bytes, s.gpu_name)[1])


RULES: tuple[Rule, ...] = (
    Rule(
        "transformers-5.17-pixtral",
        lambda s: (
            _pixtral(s)
            and behaviour(s.vllm).pixtral_imports_rotary
            and version_key(s.transformers or "0") >= (5, 17, 0)
        ),
        lambda s: (
            f"transformers {s.transformers} with vLLM {s.vllm}: {s.spec.display} fails to "
            "load (\"cannot import name 'PixtralRotaryEmbedding'\", removed in transformers 5.17). "
            "Install transformers==5.16.1 (LightOn's pin) or vLLM ≥ 0.31.0."
        ),
        "model_executor/models/pixtral.py imports PixtralRotaryEmbedding up to 0.30.0",
    ),
    Rule(
        "0.27.1-lighton-compiled",
        lambda s: (
            version_key(s.vllm) == (0, 27, 1)
            and s.spec.id.startswith("lightonai/")
            and not s.kwargs.get("enforce_eager")
        ),
        lambda s: (
            f"vLLM 0.27.1 with {s.spec.display} compiled (enforce_eager off) loops on "
            "every page (LightOn's report; they pin 0.30.0). Use 0.30.0, or --enforce-eager."
        ),
        "LightOnOCR README (lightonai/LightOnOCR): vLLM 0.27.1 makes every model loop",
    ),
    Rule(
        "hybrid-1024-seqs",
        lambda s: _hybrid(s) and _seqs(s) >= 1024,
        lambda s: (
            f"max_num_seqs {_seqs(s)} with {s.spec.display} (a Qwen3.5 hybrid model): "
            'vLLM refuses to start: "max_num_seqs (1024) exceeds available Mamba cache blocks". '
            "Pass --max-num-seqs 256 or fewer."
        ),
        "vllm serve default on ≥70 GB cards (engine/arg_utils.py::get_batch_defaults)",
    ),
    Rule(
        "hybrid-gdn-flashinfer",
        lambda s: (
            _hybrid(s)
            and _hopper(s)
            and behaviour(s.vllm).gdn_flashinfer_on_hopper
            and not s.kwargs.get("gdn_prefill_backend")
        ),
        lambda s: (
            f"vLLM {s.vllm} runs {s.spec.display}'s Gated-DeltaNet prefill with FlashInfer's "
            "kernel on this card: compiled at first start (minutes), from the flashinfer-python "
            "that vLLM pins, which must be installed where vLLM runs (without it the engine "
            "dies at start: \"No module named 'flashinfer'\"). --gdn-prefill-backend triton "
            "uses vLLM's own Triton kernel instead, with nothing to compile."
        ),
        "model_executor/layers/mamba/gdn/qwen_gdn_linear_attn.py::_resolve_gdn_prefill_backend",
    ),
)


def warnings(setup: Setup) -> list[str]:
    """The messages of every rule that applies (empty: nothing known to be wrong)."""
    return [rule.message(setup) for rule in RULES if rule.applies(setup)]
