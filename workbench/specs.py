"""Model specs: what each supported model needs, kept apart from how an engine runs it.

A :class:`ModelSpec` holds the prompt, the page sizing rule, sampling (and the hotter
sampling used to retry after a repetition loop), ``max_tokens``, the recommended vLLM engine
arguments, and the name of the parser for its output (see :mod:`workbench.parsers.base`).

Lookup: :func:`get_spec` by exact id or alias; :func:`match_served_model` for the name a
server reports in ``/v1/models`` (served names are often a bare or renamed repo id).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from workbench.schema import Sampling


@dataclass(frozen=True)
class PageSizing:
    """How a page image is sized before it is sent to the model.

    PDFs are rendered at ``dpi`` (or the workbench default). Then, in order: upscale so the
    short edge is at least ``min_short_edge``; shrink so the long edge is at most
    ``longest_edge``; shrink so width*height is at most ``max_pixels``; snap both sides down to
    a multiple of ``grid``. Images are never upscaled unless ``min_short_edge`` asks for it.
    """

    dpi: int | None = None
    longest_edge: int | None = None
    min_short_edge: int | None = None
    max_pixels: int | None = None
    grid: int | None = None


@dataclass(frozen=True)
class ModelSpec:
    id: str  # Hugging Face repo id, or "cpu" for the embedded engine
    display: str
    family: str
    parser: str  # parser registry key; "native" = the engine returns regions itself
    prompt: str | None = None  # None: image only
    system: str | None = None
    sizing: PageSizing = field(default_factory=PageSizing)
    sampling: Sampling = field(default_factory=Sampling)
    retry_sampling: tuple[Sampling, ...] = ()
    boxes: bool = True  # whether the model gives layout boxes at all
    aliases: tuple[str, ...] = ()
    vllm_args: dict[str, Any] = field(default_factory=dict)  # recommended engine args
    chat_template_kwargs: dict[str, Any] = field(default_factory=dict)
    notes: str = ""


CPU_SPEC = ModelSpec(
    id="cpu",
    display="Embedded CPU engine (Tesseract + RapidOCR + CDLA layout)",
    family="cpu",
    parser="native",
    sizing=PageSizing(dpi=200, max_pixels=12_000_000),
    notes="Runs offline on the CPU; its weights ship inside its wheels.",
)

_SPECS: dict[str, ModelSpec] = {}


def register_spec(spec: ModelSpec) -> ModelSpec:
    for key in (spec.id, *spec.aliases):
        _SPECS[key.lower()] = spec
    return spec


register_spec(CPU_SPEC)


def all_specs() -> list[ModelSpec]:
    seen: dict[str, ModelSpec] = {}
    for spec in _SPECS.values():
        seen.setdefault(spec.id, spec)
    return list(seen.values())


def get_spec(model_id: str) -> ModelSpec:
    try:
        return _SPECS[model_id.lower()]
    except KeyError:
        known = ", ".join(s.id for s in all_specs())
        raise KeyError(f"unknown model {model_id!r}; known: {known}") from None


def match_served_model(served: str) -> ModelSpec | None:
    """Best spec for a name from ``/v1/models``: exact id or alias, then the repo basename."""
    key = served.lower().strip()
    if key in _SPECS:
        return _SPECS[key]
    base = key.rsplit("/", 1)[-1]
    for spec in all_specs():
        names = [spec.id.lower(), *(a.lower() for a in spec.aliases)]
        if base in {n.rsplit("/", 1)[-1] for n in names}:
            return spec
    return None
