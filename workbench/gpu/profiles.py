"""Tuning profiles: real vLLM 0.33 engine arguments plus two client-side knobs, per GPU class.

A :class:`Profile` is a list of :class:`Knob` s. Each knob is one real setting with the reason
it has that value (``why``) and ``guessed=True`` where the number is a starting point rather
than a measurement (all are, except vLLM's own defaults).

Knob kinds:

``engine``  a ``vllm.LLM(...)`` keyword / ``vllm serve --flag`` (underscores become dashes)
``page``    ``page_longest_edge``: a cap on the long edge of the page image sent to the model
            (None keeps the model's recommended size)
``client``  ``pages_in_flight``: how many page requests the workbench keeps open at once
``serve``   a ``vllm serve``-only flag (not an ``EngineArgs`` field, so never a ``vllm.LLM``
            keyword): ``api_server_count``, the front-end processes preparing pages

``max_num_seqs`` has two values: small models (≤ 3 B parameters) and 7-9 B models.
``gpu_memory_utilization`` is a *cap*: the planner uses ``min(cap, (free - margin)/total)``.
``limit_mm_per_prompt`` is filled in by the planner (the page size decides its width/height).

Each GPU profile names the cards it is tuned for (``cards``, :class:`Card`); the first is
the one planned for when no GPU is present (:mod:`workbench.gpu.target`).

Detection (:func:`detect_profile`) matches the GPU name by word (``L4`` is not ``L40S``),
then falls back on total memory (a size only one profile's cards have picks it); no GPU gives
``cpu``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from workbench.gpu.cards import Card

KnobKind = Literal["engine", "page", "client", "serve"]
GiB = 1024**3


@dataclass(frozen=True)
class Knob:
    name: str
    value: Any
    why: str
    kind: KnobKind = "engine"
    guessed: bool = False
    large_value: Any = None  # max_num_seqs for 7-9 B models; None = same as value


@dataclass(frozen=True)
class Profile:
    name: str
    label: str
    knobs: tuple[Knob, ...] = ()
    supported: bool = True
    reason: str = ""  # why unsupported, or a one-line summary
    name_pattern: str | None = None  # regex on the NVML device name
    min_gib: float = 0.0  # with name_pattern: memory range that also has to match
    max_gib: float = 1e9
    cards: tuple[Card, ...] = ()  # the first is the one planned for when no GPU is present

    @property
    def card(self) -> Card | None:
        """The card this profile plans for without a GPU (None: the CPU profile)."""
        return self.cards[0] if self.cards else None

    def card_for_memory(self, total_bytes: int) -> Card | None:
        """The card of this profile with this memory size, if it names one."""
        return next((c for c in self.cards if c.matches(total_bytes)), None)

    def knob(self, name: str) -> Knob | None:
        return next((k for k in self.knobs if k.name == name), None)

    def value(self, name: str, default: Any = None, *, small: bool = True) -> Any:
        knob = self.knob(name)
        if knob is None:
            return default
        if not small and knob.large_value is not None:
            return knob.large_value
        return knob.value

    @property
    def util_cap(self) -> float:
        return float(self.value("gpu_memory_utilization", 0.9))

    @property
    def page_longest_edge(self) -> int | None:
        value = self.value("page_longest_edge")
        return int(value) if value is not None else None

    @property
    def pages_in_flight(self) -> int:
        return int(self.value("pages_in_flight", 8))

    def engine_args(self, *, small: bool = True) -> dict[str, Any]:
        """The profile's engine arguments (limit_mm_per_prompt is the planner's)."""
        return {
            k.name: (k.large_value if not small and k.large_value is not None else k.value)
            for k in self.knobs
            if k.kind == "engine"
        }

    def serve_args(self) -> dict[str, Any]:
        """The profile's ``vllm serve``-only flags (kind ``serve``), for the serve command."""
        return {k.name: k.value for k in self.knobs if k.kind == "serve"}


_COMMON = (
    Knob(
        "enable_prefix_caching",
        False,
        "OCR pages share no prefix beyond the short prompt; caching costs hashing for nothing "
        "(LightOnOCR turns it off; DeepSeek-OCR loops less without it).",
    ),
    Knob(
        "mm_processor_cache_gb",
        0,
        "Each page is seen once, so the 4 GiB default host-RAM cache of processed images only "
        "grows memory (#35191, #16185).",
    ),
)


def _util(cap: float, extra: str = "") -> Knob:
    return Knob(
        "gpu_memory_utilization",
        cap,
        "Cap on the fraction of TOTAL memory vLLM takes; the planner lowers it to "
        "(free - 1 GiB)/total when other processes hold memory, because startup fails if "
        "free < util x total." + extra,
    )


def _seqs(small: int, large: int, why: str, guessed: bool = True) -> Knob:
    return Knob("max_num_seqs", small, why, large_value=large, guessed=guessed)


def _mnbt(value: int, why: str, guessed: bool = False) -> Knob:
    return Knob("max_num_batched_tokens", value, why, guessed=guessed)


def _kv(value: str, why: str) -> Knob:
    return Knob("kv_cache_dtype", value, why)


def _eager(value: bool, why: str) -> Knob:
    return Knob("enforce_eager", value, why)


def _client(pages: int, edge: int | None, edge_why: str) -> tuple[Knob, ...]:
    return (
        Knob(
            "pages_in_flight",
            pages,
            "Client-side concurrency: enough open requests to keep the batch full, no more "
            "(the planner lowers it to what the KV cache holds).",
            kind="client",
            guessed=True,
        ),
        Knob("page_longest_edge", edge, edge_why, kind="page"),
    )


_MODEL_SIZE = "None keeps the model's recommended page size (its accuracy was measured there)."

PROFILES: tuple[Profile, ...] = (
    Profile(
        "h100-h200",
        "H100 / H200 (80-141 GB, Hopper)",
        (
            _util(0.92, " 0.92 is vLLM's default."),
            _seqs(256, 128, "Hopper bandwidth (3.35-4.8 TB/s) keeps a large batch busy."),
            _mnbt(
                16_384,
                "vLLM's own default from 0.30 at 160 GB (compat.serve_defaults; 8192 below). "
                "8192 was no faster (H100, Chandra OCR 2: 5.20 pages/s against 5.28, "
                "benchmarks/h200/results-2026-12-07b.md).",
            ),
            _kv("auto", "bf16 KV; fp8 is optional here (FA3 does FP8 attention on sm90)."),
            _eager(False, "CUDA graphs speed decode; their memory is small next to 80+ GB."),
            Knob(
                "api_server_count",
                4,
                "vLLM's API server prepares page images one after another (~130 ms a Chandra "
                "OCR 2 page): with one, pages waited 5.2-5.6 s before the engine saw them and "
                "the plan ran at 0.90x Chandra's recipe; with four, 1.5-1.8 s and 1.07x (H100, "
                "vLLM 0.26, benchmarks/h200/results-2026-12-07c.md). CPU processes only: the "
                "GPU memory and KV cache are the same.",
                kind="serve",
            ),
            *_COMMON,
            *_client(64, None, _MODEL_SIZE),
        ),
        reason="compute capability 9.0",
        name_pattern=r"\bG?H(100|200|800|20)\b",
        cards=(Card("h100", "H100", 80, 79.11), Card("h200", "H200", 141, 139.80)),
    ),
    Profile(
        "a100-80g",
        "A100 80 GB",
        (
            _util(0.90),
            _seqs(128, 64, "Half the H100 batch for ~60% of its bandwidth (2.0 TB/s)."),
            _mnbt(8192, "vLLM keeps A100 at 8192 on purpose (PR #17885 note in arg_utils.py)."),
            _kv("auto", "fp8 is storage-only on Ampere (FlashInfer), enable it for capacity."),
            _eager(False, "CUDA graphs speed decode; 80 GB has room for them."),
            *_COMMON,
            *_client(48, None, _MODEL_SIZE),
        ),
        reason="compute capability 8.0",
        name_pattern=r"\bA100\b",
        min_gib=60,
        cards=(Card("a100-80g", "A100 80GB", 80, 79.15),),
    ),
    Profile(
        "a100-40g",
        "A100 40 GB",
        (
            _util(0.90),
            _seqs(64, 32, "Half the 80 GB batch: the KV cache is about half as big."),
            _mnbt(8192, "vLLM keeps A100 at 8192 (PR #17885)."),
            _kv("auto", "bf16 KV; switch to fp8 (storage only) if a 7-9 B model runs short."),
            _eager(False, "CUDA graphs speed decode."),
            *_COMMON,
            *_client(32, None, _MODEL_SIZE),
        ),
        reason="compute capability 8.0",
        name_pattern=r"\bA100\b",
        max_gib=60,
        cards=(Card("a100-40g", "A100 40GB", 40, 39.39),),
    ),
    Profile(
        "l40s",
        "L40S (48 GB, Ada)",
        (
            _util(0.90),
            _seqs(64, 16, "864 GB/s: between A100-40G and the 24 GB cards; a guess."),
            _mnbt(8192, "vLLM's default below 70 GB."),
            _kv("auto", "48 GB leaves room for bf16 KV even with 7-9 B weights."),
            _eager(False, "CUDA graphs speed decode."),
            *_COMMON,
            *_client(24, None, _MODEL_SIZE),
        ),
        reason="compute capability 8.9",
        name_pattern=r"\bL40S?\b|\bA6000\b|\bA40\b",
        cards=(
            Card("l40s", "L40S", 48, 44.39),
            Card("a6000", "RTX A6000", 48),
            Card("a40", "A40", 48),
        ),
    ),
    Profile(
        "a10g",
        "A10G / A10 (24 GB, Ampere)",
        (
            _util(0.88, " 0.88 leaves room for the display-less driver and a second process."),
            _seqs(32, 8, "600 GB/s; a 7-9 B bf16 model leaves little KV for more sequences."),
            _mnbt(8192, "vLLM's default below 70 GB; one page of every model fits in it."),
            _kv(
                "fp8",
                "Halves KV memory (2x tokens). sm_86 has no FP8 tensor cores: FlashInfer or "
                "Triton dequantise, a memory win, no compute win.",
            ),
            _eager(False, "CUDA graphs speed decode; switch on enforce_eager if KV is short."),
            *_COMMON,
            *_client(8, None, _MODEL_SIZE),
        ),
        reason="compute capability 8.6",
        name_pattern=r"\bA10G?\b",
        cards=(Card("a10g", "A10G", 24, 22.19), Card("a10", "A10", 24)),
    ),
    Profile(
        "l4",
        "L4 (24 GB, Ada)",
        (
            _util(0.88),
            _seqs(32, 8, "300 GB/s makes decode bandwidth-bound; max_num_seqs=2 would starve it."),
            _mnbt(
                4096,
                "Lower peak activations on a small card; an image larger than this still runs "
                "(vLLM's encoder budget is max(mnbt, largest image)).",
                guessed=True,
            ),
            _kv("fp8", "Halves KV memory; Ada stores FP8 natively."),
            _eager(False, "CUDA graphs matter most on a slow card."),
            *_COMMON,
            *_client(8, None, _MODEL_SIZE),
        ),
        reason="compute capability 8.9",
        name_pattern=r"\bL4\b",
        cards=(Card("l4", "L4", 24, 22.03),),
    ),
    Profile(
        "rtx-4090",
        "RTX 4090 (24 GB, Ada)",
        (
            _util(
                0.90,
                " A desktop card often drives a display too: the free-memory rule matters here.",
            ),
            _seqs(32, 8, "1,008 GB/s but 24 GB: the KV cache, not compute, limits the batch."),
            _mnbt(8192, "vLLM's default below 70 GB."),
            _kv("fp8", "Halves KV memory on 24 GB; Ada stores FP8 natively."),
            _eager(False, "CUDA graphs speed decode."),
            *_COMMON,
            *_client(8, None, _MODEL_SIZE),
        ),
        reason="compute capability 8.9",
        name_pattern=r"\b4090\b",
        cards=(Card("rtx-4090", "RTX 4090", 24, 23.65),),
    ),
    Profile(
        "generic-24gb",
        "Generic 24 GB card (safe settings)",
        (
            _util(0.85, " Lower for an unknown card that may share memory with a display."),
            _seqs(16, 4, "Unknown bandwidth: a small batch keeps latency sane.", guessed=True),
            _mnbt(4096, "Lower profiling peak; images larger than this still run.", guessed=True),
            _kv("fp8", "Halves KV memory (2x tokens); needs compute capability ≥ 8.0."),
            _eager(
                True,
                "No CUDA-graph memory and faster restarts; slower decode. The safe 24 GB toggle.",
            ),
            *_COMMON,
            *_client(
                4,
                1280,
                "A smaller page gives fewer vision tokens (~28% fewer than 1540 px); check "
                "accuracy on your pages.",
            ),
        ),
        reason="unknown card: conservative settings",
        # planned as the 24 GB card with the least memory to CUDA (the L4): safe for all
        cards=(Card("generic-24gb", "Generic 24 GB card", 24, 22.03),),
    ),
    Profile(
        "cpu",
        "CPU only (embedded engine)",
        (
            Knob(
                "pages_in_flight",
                1,
                "The embedded CPU engine uses every core for one page already.",
                kind="client",
            ),
        ),
        reason="no NVIDIA GPU: the embedded Tesseract + RapidOCR engine runs instead of vLLM",
    ),
    Profile(
        "t4",
        "T4 (16 GB, Turing) — unsupported",
        supported=False,
        reason=(
            "sm_75 has no bf16 (cc < 8.0) and no FlashAttention/FlashInfer kernels; vLLM 0.33 "
            "runs it only in fp16 with Triton attention. The OCR models are bf16-trained: "
            "use the CPU engine or a newer GPU."
        ),
        name_pattern=r"\bT4\b",
        cards=(Card("t4", "T4", 16),),
    ),
    Profile(
        "v100",
        "V100 (16/32 GB, Volta) — unsupported",
        supported=False,
        reason=(
            "The vLLM 0.33 wheel ships no sm_70 kernels (its fatbins hold sm_75/80/86/89/90/"
            "100/120) and V100 has no bf16 (cc 7.0)."
        ),
        name_pattern=r"\bV100\b",
        cards=(Card("v100-16g", "V100 16GB", 16), Card("v100-32g", "V100 32GB", 32)),
    ),
)

_BY_NAME = {p.name: p for p in PROFILES}


def profile_names() -> list[str]:
    return [p.name for p in PROFILES]


def get_profile(name: str) -> Profile:
    try:
        return _BY_NAME[name.lower()]
    except KeyError:
        known = ", ".join(_BY_NAME)
        raise KeyError(f"unknown profile {name!r}; known: {known}") from None


def detect_profile(gpu_name: str | None, total_bytes: int | None) -> Profile:
    """The profile for a GPU: by name (word match, memory range), else by memory size alone
    (no name: a card given only by its memory); no memory at all means ``cpu``.

    By memory alone, a size that only one supported profile's cards have picks that profile
    (141 GiB: the H200, so ``h100-h200``); a size several share (24 GiB: A10G, L4, 4090;
    80 GiB: H100 and A100) falls back on the conservative profile for its size."""
    if not total_bytes:
        return _BY_NAME["cpu"]
    gib = total_bytes / GiB
    for profile in PROFILES if gpu_name else ():
        named = profile.name_pattern and re.search(profile.name_pattern, gpu_name or "", re.I)
        if named and profile.min_gib <= gib < profile.max_gib:
            return profile
    owners = {p.name for p in PROFILES if p.supported and p.card_for_memory(total_bytes)}
    if len(owners) == 1:
        return _BY_NAME[owners.pop()]
    if gib >= 70:
        return _BY_NAME["a100-80g"]  # unknown big card: A100-like, conservative mnbt
    if gib >= 44:
        return _BY_NAME["l40s"]
    if gib >= 36:
        return _BY_NAME["a100-40g"]
    return _BY_NAME["generic-24gb"]
