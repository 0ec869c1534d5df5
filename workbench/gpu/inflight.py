"""How many pages to keep in flight against a vLLM server when the user did not say.

Why: a fixed 32 kept an H200 that holds a thousand pages' KV cache a quarter busy (the CLI at
its default reached 0.75x the raw client). The server engine cannot count a page's tokens (an
engine knows no model spec); this module can, with the planner's own page rule.

Contract
--------
* :func:`page_tokens` is one page's KV footprint for ``spec``: its image tokens at the size
  the pipeline renders it (:func:`~workbench.models.planned_page`), the prompt, and
  the output budget vLLM allows it (``max_tokens``, cut at the model's context).
* :func:`pages_held` is how many such pages a KV cache of ``kv_tokens`` holds at once, at
  most :data:`MAX_IN_FLIGHT` (past vLLM's ``max_num_seqs`` requests only queue in the server).
* :func:`fit_in_flight` sizes a server engine that was given no ``concurrency``: from the
  KV cache the server reports (``/metrics``) and the spec the run uses; it leaves an engine
  alone when the user chose a number, when the server reports no KV cache (not vLLM) or when
  the model is one the planner has no numbers for (then the engine keeps its default).
"""

from __future__ import annotations

from workbench import models
from workbench.engines.base import Engine
from workbench.errors import PlanError
from workbench.gpu.planner import architecture_of, prompt_token_estimate
from workbench.models import ModelSpec, planned_page

#: vLLM's default ``max_num_seqs`` below the largest cards; more pages than it runs only wait.
MAX_IN_FLIGHT = 256


def page_tokens(spec: ModelSpec) -> int:
    """One page's tokens in the KV cache (the planner's rule, :func:`models.page_tokens`)."""
    width, height = planned_page(spec.sizing)
    prompt = prompt_token_estimate(spec)
    return models.page_tokens(architecture_of(spec), width, height, prompt, spec.max_tokens).total


def pages_held(spec: ModelSpec, kv_tokens: int) -> int:
    """Pages of ``spec`` that ``kv_tokens`` of KV cache hold at once (1 to MAX_IN_FLIGHT)."""
    return max(1, min(MAX_IN_FLIGHT, kv_tokens // max(page_tokens(spec), 1)))


def fit_in_flight(engine: Engine, spec: ModelSpec) -> int | None:
    """Size ``engine`` (a server engine given no ``concurrency``) to what its server holds;
    returns the pages in flight it set, or None when it left the engine as it was."""
    sized = getattr(engine, "sized", True)
    kv_tokens = getattr(engine, "kv_tokens", None)
    resize = getattr(engine, "resize", None)
    if sized or not callable(kv_tokens) or not callable(resize):
        return None
    held = kv_tokens()
    if not held:
        return None
    try:
        pages = pages_held(spec, int(held))
    except PlanError:  # a model without memory numbers: the engine's default stands
        return None
    resize(pages)
    return pages
