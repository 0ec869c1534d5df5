"""The checkpoint numbers the memory planner needs, one :class:`Architecture` per model.

Each :class:`~workbench.models.spec.ModelSpec` carries its own ``arch`` (there is no second
table and no second name lookup: :func:`find_architecture` asks the model registry). The
numbers are the checkpoint's ``config.json`` values (the ``vllm_contract`` test lane builds
vLLM's ``ModelConfig`` from a fixture of each and compares); anything not read from a
checkpoint is listed in :attr:`Architecture.unverified`, which the planner copies into its
plan so the UI and the CLI can say which parts of an estimate are guesses.

Units: bytes, tokens, pixels. ``weight_bytes`` is what the weights occupy on the GPU
(bf16 = 2 bytes a parameter unless the checkpoint is quantised).

Vision tokens for a page of ``w`` x ``h`` pixels (:meth:`Architecture.vision_tokens`):

``grid``       ``ceil(w/px) * ceil(h/px) + extra`` (Qwen2/2.5/3-VL, dots.ocr: 14-px patches
               merged 2x2 = 28 px a token; Qwen3-VL/3.5: 16-px patches = 32 px)
``grid_rows``  as ``grid`` plus one ``[IMG_BREAK]`` a row (Pixtral, LightOnOCR 1/2)
``fixed``      ``extra`` tokens whatever the page size (DeepSeek-OCR's default base+tiles mode)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

GB = 1_000_000_000
TokenRule = Literal["grid", "grid_rows", "fixed"]


@dataclass(frozen=True)
class Architecture:
    params_b: float  # total parameters, billions (decoder + vision)
    weight_bytes: int  # on the GPU
    kv_layers: int  # layers that hold KV (hybrid models: full-attention layers only)
    kv_heads: int
    head_dim: int
    context: int  # max_position_embeddings of the decoder: vLLM refuses a longer max_model_len
    hidden_size: int  # decoder; used for the activation-peak estimate
    intermediate_size: int
    vocab_size: int
    px_per_token: int  # side of the square of pixels one vision token covers
    token_rule: TokenRule = "grid"
    extra_vision_tokens: int = 2  # start/end markers (or the whole count for "fixed")
    vision_hidden: int = 1280
    vision_intermediate: int = 3420
    hybrid: bool = False  # Gated-DeltaNet layers: fixed state a running sequence
    state_bytes_per_seq: int = 0  # hybrid models only; derived estimate
    unverified: tuple[str, ...] = ()

    @property
    def max_position_embeddings(self) -> int:
        return self.context

    @property
    def small(self) -> bool:
        """Profiles give small (≤ 3 B) models more sequences in flight than 7-9 B ones."""
        return self.params_b <= 3.0

    def vision_tokens(self, width: int, height: int) -> int:
        if self.token_rule == "fixed":
            return self.extra_vision_tokens
        cols = math.ceil(width / self.px_per_token)
        rows = math.ceil(height / self.px_per_token)
        tokens = cols * rows + self.extra_vision_tokens
        if self.token_rule == "grid_rows":
            tokens += rows
        return tokens


def gdn_state(layers: int, value_heads: int, head_k: int = 128, head_v: int = 128) -> int:
    """Gated-DeltaNet state a sequence: per layer a ``value_heads x head_k x head_v`` fp32
    recurrent state (Qwen3.5 configs: ``mamba_ssm_dtype: float32``) plus a 3-step bf16 conv
    state of ``(2*keys + values)`` channels (keys = half the value heads). Derived, not read
    from a checkpoint."""
    ssm = value_heads * head_k * head_v * 4
    conv = (2 * (value_heads // 2) * head_k + value_heads * head_v) * 3 * 2
    return layers * (ssm + conv)
