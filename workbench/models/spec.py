"""The record each model is described by: one :class:`ModelSpec` holds every fact about it.

* what is sent: ``prompt`` (verbatim upstream), ``system``, ``prompt_first`` (the order of the
  text and image parts in the user turn), ``chat_template_kwargs`` (per request);
* how the page is sized: ``sizing`` (:class:`PageSizing`, applied by
  :func:`workbench.models.sizing.fit_size` in the pipeline *and* the memory planner);
* how it samples: ``sampling``, ``retry_sampling`` (tried in order after a repetition loop,
  or, with ``retry_on_length``, after an answer cut off by ``max_tokens``), with the
  checkpoint's ``generation_config`` defaults already folded in (vLLM's server applies them
  to fields a request leaves unset; a hand-built ``SamplingParams`` would not);
* what comes back: ``parser``, ``output_format``, ``coord_scale``;
* how vLLM runs it: ``vllm_args`` (valid ``EngineArgs`` fields, used in-process and by
  ``vllm serve``), ``serve_args`` (frontend-only ``vllm serve`` flags that ``EngineArgs``
  rejects), and ``arch`` (:class:`~workbench.models.architectures.Architecture`, the
  checkpoint's numbers the memory planner needs; ``arch.context`` is the context length).

``sources`` says where each value was read upstream.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from workbench.models.architectures import Architecture
from workbench.schema import Sampling


@dataclass(frozen=True)
class PageSizing:
    """How a page image is sized before it is sent to the model (:func:`fit_size`).

    PDFs are rendered at ``dpi`` (or the workbench default). Then, in order: upscale so the
    short edge is at least ``min_short_edge`` (``image_min_short_edge`` instead for image
    files, when set); shrink so the long edge is at most ``longest_edge`` (and a profile's
    cap); shrink so width*height is at most ``max_pixels``; grow so it is at least
    ``min_pixels``; snap both sides to a multiple of ``grid`` (down, or up where down would
    fall below ``min_pixels``). Nothing else upscales a page.
    """

    dpi: int | None = None
    longest_edge: int | None = None
    min_short_edge: int | None = None
    max_pixels: int | None = None
    grid: int | None = None
    min_pixels: int | None = None
    image_min_short_edge: int | None = None  # image files only (Chandra: 1536)


def with_generation_defaults(sampling: Sampling, defaults: dict[str, Any]) -> Sampling:
    """``sampling`` plus the checkpoint's generation_config values it leaves unset, as vLLM's
    server does (``default_sampling_params``: request value > model default > OpenAI default).
    The workbench always sets temperature, top_p and max_tokens, so only the others apply."""
    penalty = sampling.repetition_penalty
    if penalty is None and "repetition_penalty" in defaults:
        penalty = float(defaults["repetition_penalty"])
    extra = dict(sampling.extra)
    for key in ("top_k", "min_p"):
        if key in defaults and key not in extra:
            extra[key] = defaults[key]
    return replace(sampling, repetition_penalty=penalty, extra=extra)


@dataclass(frozen=True)
class ModelSpec:
    id: str  # Hugging Face repo id, or "cpu" for the embedded engine
    display: str
    family: str
    parser: str  # parser registry key; "native" = the engine returns regions itself
    prompt: str | None = None  # None: image only
    system: str | None = None
    prompt_first: bool = False  # text part before the image part (olmOCR)
    sizing: PageSizing = field(default_factory=PageSizing)
    sampling: Sampling = field(default_factory=Sampling)
    retry_sampling: tuple[Sampling, ...] = ()
    retry_on_length: bool = False  # also retry an answer cut off by max_tokens (olmOCR)
    generation_config: dict[str, Any] = field(default_factory=dict)  # checkpoint defaults
    boxes: bool = True  # whether the model gives layout boxes at all
    output_format: str = ""
    coord_scale: str = ""  # "0-1000", "0-1024", "0-999", "input pixels", "" (no boxes)
    aliases: tuple[str, ...] = ()
    vllm_args: dict[str, Any] = field(default_factory=dict)  # EngineArgs fields
    serve_args: dict[str, Any] = field(default_factory=dict)  # `vllm serve`-only flags
    chat_template_kwargs: dict[str, Any] = field(default_factory=dict)
    arch: Architecture | None = None
    notes: str = ""
    sources: tuple[str, ...] = ()  # where the prompt, sizing and sampling were checked

    @property
    def context_length(self) -> int | None:
        """The checkpoint's context (``max_position_embeddings``); None for the CPU engine."""
        return self.arch.context if self.arch else None

    @property
    def max_tokens(self) -> int:
        return self.sampling.max_tokens

    def with_max_tokens(self, max_tokens: int | None) -> ModelSpec:
        """This spec with every attempt's answer bounded to ``max_tokens`` (None: as it is);
        the caller records ``max_tokens`` in the run's settings (it shapes what a page reads)."""
        if not max_tokens:
            return self
        bound = tuple(replace(s, max_tokens=max_tokens) for s in self.retry_sampling)
        sampling = replace(self.sampling, max_tokens=max_tokens)
        return replace(self, sampling=sampling, retry_sampling=bound)

    @property
    def names(self) -> tuple[str, ...]:
        return (self.id, *self.aliases)
