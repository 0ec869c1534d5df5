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

``grid``          ``ceil(w/px) * ceil(h/px) + extra`` (dots.ocr: 14-px patches merged 2x2 =
                  28 px a token; LightOnOCR 1/2/3-1B: Pixtral's 28 px, ``extra`` 0, because
                  vLLM's LightOnOCR processor strips the ``[IMG_BREAK]``/``[IMG_END]`` tokens
                  Pixtral adds: 1190x1540 is 2,365 tokens in vLLM 0.26 and 0.33, not 2,421)
``grid_rows``     as ``grid`` plus one ``[IMG_BREAK]`` a row (Pixtral as Mistral serves it)
``smart_resize``  Qwen2-VL's ``smart_resize``: each side rounded to a multiple of ``px``, then
                  scaled into ``[min_pixels, max_pixels]``; ``(w'/px) * (h'/px) + extra``
                  (Qwen2.5-VL: 28 px; Qwen3-VL/3.5: 16-px patches merged 2x2 = 32 px;
                  ``extra`` 2 = ``<|vision_start|>``/``<|vision_end|>``)
``fixed``         ``extra`` tokens whatever the page size (DeepSeek-OCR's default base+tiles mode)

The ``vllm_contract`` lane checks these counts against vLLM's own multimodal processor on
a weightless model folder (:mod:`workbench.models.weightless`), in each supported vLLM.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

GB = 1_000_000_000
TokenRule = Literal["grid", "grid_rows", "smart_resize", "fixed"]
#: How the vision encoder attends across the pages of one encoder step: ``varlen`` (Qwen-VL
#: family: per-image sequence lengths, memory linear in the batch) or ``dense_mask``
#: (Pixtral: one N x N block mask over all patches where vLLM has no variable-length path;
#: see workbench/gpu/encoder.py).
VisionAttention = Literal["varlen", "dense_mask"]


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
    min_pixels: int = 0  # "smart_resize" only: the image processor's bounds as served
    max_pixels: int = 0
    vision_hidden: int = 1280
    vision_intermediate: int = 3420
    hybrid: bool = False  # Gated-DeltaNet layers: fixed state a running sequence
    state_bytes_per_seq: int = 0  # hybrid models only; derived estimate
    vision_attention: VisionAttention = "varlen"
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
        if self.token_rule == "smart_resize":
            w, h = smart_resize(width, height, self.px_per_token, self.min_pixels, self.max_pixels)
            return (w // self.px_per_token) * (h // self.px_per_token) + self.extra_vision_tokens
        cols = math.ceil(width / self.px_per_token)
        rows = math.ceil(height / self.px_per_token)
        tokens = cols * rows + self.extra_vision_tokens
        if self.token_rule == "grid_rows":
            tokens += rows
        return tokens


def smart_resize(
    width: int, height: int, factor: int, min_pixels: int, max_pixels: int
) -> tuple[int, int]:
    """(width, height) Qwen2-VL's image processor resizes a page to (``transformers``
    ``image_processing_qwen2_vl.smart_resize``, which vLLM's Qwen2.5-VL/Qwen3-VL/Qwen3.5
    processors call): sides rounded (half to even) to ``factor``, then scaled down into
    ``max_pixels`` (floor) or up to ``min_pixels`` (ceil); 0 = no bound."""
    h = max(factor, round(height / factor) * factor)
    w = max(factor, round(width / factor) * factor)
    if max_pixels and h * w > max_pixels:
        beta = math.sqrt(height * width / max_pixels)
        h = max(factor, math.floor(height / beta / factor) * factor)
        w = max(factor, math.floor(width / beta / factor) * factor)
    elif min_pixels and h * w < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        h = math.ceil(height * beta / factor) * factor
        w = math.ceil(width * beta / factor) * factor
    return w, h


def gdn_state(layers: int, value_heads: int, head_k: int = 128, head_v: int = 128) -> int:
    """Gated-DeltaNet state a sequence: per layer a ``value_heads x head_k x head_v`` fp32
    recurrent state (Qwen3.5 configs: ``mamba_ssm_dtype: float32``) plus a 3-step bf16 conv
    state of ``(2*keys + values)`` channels (keys = half the value heads). Derived, not read
    from a checkpoint."""
    ssm = value_heads * head_k * head_v * 4
    conv = (2 * (value_heads // 2) * head_k + value_heads * head_v) * 3 * 2
    return layers * (ssm + conv)
