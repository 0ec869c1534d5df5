"""Per-model numbers the memory planner needs, with where each one comes from.

Sources are the table in ``shared/notes/vllm.md`` §4 (cited as "vllm.md") and the public
configs it cites. Every number that was not read from the checkpoint's own config is listed
in :attr:`Architecture.unverified`; the planner copies that list into its plan so the UI and
the CLI can say which parts of an estimate are guesses.

Units: bytes, tokens, pixels. ``weight_bytes`` is what the weights occupy on the GPU
(bf16 = 2 bytes a parameter unless the checkpoint is quantised).

Vision tokens for a page of ``w`` x ``h`` pixels (:meth:`Architecture.vision_tokens`):

``grid``       ``ceil(w/px) * ceil(h/px) + extra`` (Qwen2/2.5/3-VL, dots.ocr, PaddleOCR-VL:
               14-px patches merged 2x2 = 28 px a token; Qwen3-VL/3.5: 16-px patches = 32 px)
``grid_rows``  as ``grid`` plus one ``[IMG_BREAK]`` a row (Pixtral, LightOnOCR 1/2)
``fixed``      ``extra`` tokens whatever the page size (DeepSeek-OCR's default base+tiles mode)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

from workbench.models.registry import PageSizing

GB = 1_000_000_000
TokenRule = Literal["grid", "grid_rows", "fixed"]


@dataclass(frozen=True)
class Architecture:
    model_id: str
    display: str
    params_b: float  # total parameters, billions (decoder + vision)
    weight_bytes: int  # on the GPU
    kv_layers: int  # layers that hold KV (hybrid models: full-attention layers only)
    kv_heads: int
    head_dim: int
    max_position_embeddings: int
    hidden_size: int  # decoder; used for the activation-peak estimate
    intermediate_size: int
    vocab_size: int
    px_per_token: int  # side of the square of pixels one vision token covers
    token_rule: TokenRule = "grid"
    extra_vision_tokens: int = 2  # start/end markers (or the whole count for "fixed")
    vision_hidden: int = 1280
    vision_intermediate: int = 3420
    sizing: PageSizing = field(default_factory=PageSizing)  # used when no ModelSpec says
    max_tokens: int = 4096  # default output budget when no ModelSpec says
    hybrid: bool = False  # Gated-DeltaNet layers: fixed state a running sequence
    state_bytes_per_seq: int = 0  # hybrid models only; derived estimate
    aliases: tuple[str, ...] = ()
    unverified: tuple[str, ...] = ()
    source: str = "vllm.md §4"

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


def _gdn_state(layers: int, value_heads: int, head_k: int = 128, head_v: int = 128) -> int:
    """Gated-DeltaNet state a sequence: per layer a ``value_heads x head_k x head_v`` bf16
    recurrent state plus a 3-step conv state of ``(2*keys + values)`` channels (keys = half
    the value heads), as in Qwen3-Next. Derived, not read from a checkpoint."""
    ssm = value_heads * head_k * head_v * 2
    conv = (2 * (value_heads // 2) * head_k + value_heads * head_v) * 3 * 2
    return layers * (ssm + conv)


_LETTER_1540 = PageSizing(longest_edge=1540)

ARCHITECTURES: tuple[Architecture, ...] = (
    Architecture(
        model_id="lightonai/LightOnOCR-2-1B",
        display="LightOnOCR-2-1B",
        params_b=1.0,
        weight_bytes=2 * GB,
        kv_layers=28,
        kv_heads=8,
        head_dim=128,
        max_position_embeddings=40_960,
        hidden_size=1024,
        intermediate_size=3072,
        vocab_size=151_936,
        px_per_token=28,
        token_rule="grid_rows",
        extra_vision_tokens=1,  # [IMG_END]
        vision_hidden=1024,
        vision_intermediate=4096,
        sizing=_LETTER_1540,
        max_tokens=4096,
        unverified=(
            "max_position_embeddings (Qwen3-0.6B value)",
            "weight bytes (~1.0 B params)",
            "vocab size (Qwen3-0.6B value)",
        ),
    ),
    Architecture(
        model_id="lightonai/LightOnOCR-1B-1025",
        display="LightOnOCR-1B",
        params_b=1.0,
        weight_bytes=2 * GB,
        kv_layers=28,
        kv_heads=8,
        head_dim=128,
        max_position_embeddings=40_960,
        hidden_size=1024,
        intermediate_size=3072,
        vocab_size=151_936,
        px_per_token=28,
        token_rule="grid_rows",
        extra_vision_tokens=1,
        vision_hidden=1024,
        vision_intermediate=4096,
        sizing=_LETTER_1540,
        unverified=("decoder shape assumed equal to LightOnOCR-2-1B",),
    ),
    Architecture(
        model_id="lightonai/LightOnOCR-3-1B",
        display="LightOnOCR-3-1B",
        params_b=1.0,
        weight_bytes=2 * GB,
        kv_layers=28,
        kv_heads=8,
        head_dim=128,
        max_position_embeddings=16_384,  # served at 16,384 (LightOnOCR README)
        hidden_size=1024,
        intermediate_size=3072,
        vocab_size=151_936,
        px_per_token=28,
        token_rule="grid_rows",
        extra_vision_tokens=1,
        vision_hidden=1024,
        vision_intermediate=4096,
        sizing=_LETTER_1540,
        unverified=("decoder shape assumed equal to LightOnOCR-2-1B",),
    ),
    Architecture(
        model_id="lightonai/LightOnOCR-3-0.8B",
        display="LightOnOCR-3-0.8B",
        params_b=0.9,
        weight_bytes=int(1.8 * GB),
        kv_layers=6,  # 6 of 24 layers are full attention
        kv_heads=2,
        head_dim=256,
        max_position_embeddings=262_144,
        hidden_size=1024,
        intermediate_size=3584,
        vocab_size=248_320,
        px_per_token=32,
        vision_hidden=768,
        vision_intermediate=3072,
        sizing=PageSizing(longest_edge=2048),
        hybrid=True,
        state_bytes_per_seq=_gdn_state(18, 16),
        unverified=(
            "32 px a vision token",
            "GDN state size",
            "hidden/intermediate/vocab",
        ),
    ),
    Architecture(
        model_id="lightonai/LightOnOCR-3-4B",
        display="LightOnOCR-3-4B",
        params_b=4.75,
        weight_bytes=int(9.5 * GB),
        kv_layers=8,  # 8 of 32
        kv_heads=4,
        head_dim=256,
        max_position_embeddings=262_144,
        hidden_size=2560,
        intermediate_size=9216,
        vocab_size=248_320,
        px_per_token=32,
        vision_hidden=1024,
        vision_intermediate=4096,
        sizing=PageSizing(longest_edge=2048),
        hybrid=True,
        state_bytes_per_seq=_gdn_state(24, 32),
        unverified=("32 px a vision token", "GDN state size", "intermediate/vocab"),
    ),
    Architecture(
        model_id="datalab-to/chandra",
        display="Chandra 1",
        params_b=8.8,
        weight_bytes=int(17.6 * GB),
        kv_layers=36,
        kv_heads=8,
        head_dim=128,
        max_position_embeddings=262_144,
        hidden_size=4096,
        intermediate_size=12_288,
        vocab_size=151_936,
        px_per_token=32,
        vision_hidden=1152,
        vision_intermediate=4304,
        sizing=PageSizing(dpi=192, min_short_edge=1024),
        max_tokens=12_384,
        unverified=("max_position_embeddings (Qwen3-VL-8B base default)",),
    ),
    Architecture(
        model_id="datalab-to/chandra-ocr-2",
        display="Chandra OCR 2",
        params_b=4.7,
        weight_bytes=int(9.4 * GB),
        kv_layers=8,  # 8 of 32 (Qwen3.5-4B: 3 GDN layers per full-attention layer)
        kv_heads=4,
        head_dim=256,
        max_position_embeddings=262_144,
        hidden_size=2560,
        intermediate_size=9216,
        vocab_size=248_320,
        px_per_token=32,
        vision_hidden=1024,
        vision_intermediate=4096,
        sizing=PageSizing(dpi=192, min_short_edge=1024, max_pixels=3072 * 2048),
        max_tokens=12_384,
        hybrid=True,
        state_bytes_per_seq=_gdn_state(24, 32),
        aliases=("chandra-ocr-2", "chandra-2"),
        unverified=("32 px a vision token", "GDN state size", "weight bytes (~4.7 B params)"),
    ),
    Architecture(
        model_id="allenai/olmOCR-2-7B-1025",
        display="olmOCR-2-7B",
        params_b=8.3,
        weight_bytes=int(16.6 * GB),
        kv_layers=28,
        kv_heads=4,
        head_dim=128,
        max_position_embeddings=128_000,
        hidden_size=3584,
        intermediate_size=18_944,
        vocab_size=152_064,
        px_per_token=28,
        vision_hidden=1280,
        vision_intermediate=3420,
        sizing=PageSizing(longest_edge=1288),
        max_tokens=8000,
        unverified=("max_tokens default (olmOCR pipeline value not re-read)",),
    ),
    Architecture(
        model_id="allenai/olmOCR-2-7B-1025-FP8",
        display="olmOCR-2-7B (FP8)",
        params_b=8.3,
        # FP8 linear layers (~6.5 B) at 1 byte, embeddings + lm_head (1.09 B) and ViT (0.67 B)
        # left in bf16: 6.5 + 2*1.09 + 2*0.67 ≈ 10.0 GB.
        weight_bytes=10 * GB,
        kv_layers=28,
        kv_heads=4,
        head_dim=128,
        max_position_embeddings=128_000,
        hidden_size=3584,
        intermediate_size=18_944,
        vocab_size=152_064,
        px_per_token=28,
        vision_hidden=1280,
        vision_intermediate=3420,
        sizing=PageSizing(longest_edge=1288),
        max_tokens=8000,
        unverified=("weight bytes (estimate of which layers stay bf16)",),
    ),
    Architecture(
        model_id="rednote-hilab/dots.ocr",
        display="dots.ocr",
        params_b=3.0,
        weight_bytes=6 * GB,
        kv_layers=28,
        kv_heads=2,
        head_dim=128,
        max_position_embeddings=131_072,
        hidden_size=1536,
        intermediate_size=8960,
        vocab_size=151_936,
        px_per_token=28,
        vision_hidden=1536,
        vision_intermediate=4224,
        sizing=PageSizing(dpi=200, max_pixels=11_289_600),
        max_tokens=16_384,
        unverified=("vision hidden/intermediate",),
    ),
    Architecture(
        model_id="PaddlePaddle/PaddleOCR-VL",
        display="PaddleOCR-VL",
        params_b=0.9,
        weight_bytes=int(1.9 * GB),
        kv_layers=18,
        kv_heads=2,
        head_dim=128,
        max_position_embeddings=131_072,
        hidden_size=1024,
        intermediate_size=3072,
        vocab_size=103_424,
        px_per_token=28,
        vision_hidden=1152,
        vision_intermediate=4304,
        sizing=PageSizing(max_pixels=2_822_400, dpi=200),
        unverified=("hidden/intermediate/vocab", "vision width"),
    ),
    Architecture(
        model_id="deepseek-ai/DeepSeek-OCR",
        display="DeepSeek-OCR",
        params_b=3.3,
        weight_bytes=int(6.7 * GB),
        kv_layers=12,
        kv_heads=10,
        head_dim=128,
        max_position_embeddings=8192,
        hidden_size=1280,
        intermediate_size=6848,
        vocab_size=129_280,
        px_per_token=16,
        token_rule="fixed",
        extra_vision_tokens=900,  # base 1024 (273) + 640-px tiles (~630), vllm.md §4
        vision_hidden=1024,
        vision_intermediate=4096,
        sizing=PageSizing(longest_edge=1024),
        max_tokens=8192,
        unverified=("activation sizes (MoE)", "tile count varies with the page"),
    ),
)

_BY_NAME: dict[str, Architecture] = {}
for _arch in ARCHITECTURES:
    for _name in (_arch.model_id, *_arch.aliases):
        _BY_NAME[_name.lower()] = _arch


def find_architecture_exact(model_id: str) -> Architecture | None:
    return _BY_NAME.get(model_id.lower().strip())


def find_architecture(model_id: str) -> Architecture | None:
    """Exact id or alias (case-insensitive), then the repo basename (``org/`` dropped)."""
    key = model_id.lower().strip()
    if key in _BY_NAME:
        return _BY_NAME[key]
    base = key.rsplit("/", 1)[-1]
    for name, arch in _BY_NAME.items():
        if name.rsplit("/", 1)[-1] == base:
            return arch
    return None
