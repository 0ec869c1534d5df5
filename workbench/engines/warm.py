"""Warm vLLM's sampler before the engine takes pages: the kernels vLLM compiles on first use.

Why: vLLM samples with top-p or top-k through a Triton kernel (``vllm/v1/sample/ops/
topk_topp_sampler.py``, ``apply_top_k_top_p``; ``topk_topp_triton.py``, ``_topk_topp_kernel``):
from 8 rows a step on in 0.17 and 0.26 (PyTorch below), at every batch size from 0.30. Its own
start-up warm-up samples without them, so the kernel is compiled in the middle of the first
such step, once per specialization Triton makes of the batch size (1, a multiple of 16, any
other): vLLM 0.26 logs
"Triton kernel JIT compilation during inference: _topk_topp_kernel". Measured on the H100
(``benchmarks/h200/results-2026-12-07c.md``): a one-page newcomer sent as a 200-page run
filled the engine took 6.1× its time alone the first time after a build (4.2× on the H200 the
day before) and 1.9-2.2× every time after.

Contract
--------
* :func:`warm_sampler` runs, on a freshly built ``vllm.LLM`` and before anything else uses it,
  one short ``LLM.generate`` per sampling and batch size: each distinct sampling of the
  caller's (the model's own and its retry sampling), else :data:`GENERIC`, at each of
  :data:`BATCHES` requests at once (Triton compiles an integer argument that is 1, or
  divisible by 16, apart from any other). Prompts are token ids (no chat template, no image: any
  model), :data:`TOKENS` tokens each; greedy samplings need no kernel and are skipped.
* It returns the seconds it took; it never raises: a warm-up that fails is logged and the
  engine is used as it is (a slower first ramp, not a broken engine).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from workbench.schema import Sampling

log = logging.getLogger(__name__)

#: requests per warm-up call: one of each kind Triton specializes (a multiple of 16, other, 1)
BATCHES = (16, 9, 1)
#: tokens each warm-up request makes: its prefill step and one decode step sample
TOKENS = 2
#: prompt token ids of a warm-up request (ids every tokenizer has)
PROMPT_IDS = tuple(range(100, 108))
#: what is warmed when the caller names no sampling: top-p, top-k and both
GENERIC = (
    Sampling(temperature=1.0, top_p=0.9, max_tokens=TOKENS),
    Sampling(temperature=1.0, top_p=1.0, max_tokens=TOKENS, extra={"top_k": 50}),
    Sampling(temperature=1.0, top_p=0.9, max_tokens=TOKENS, extra={"top_k": 50}),
)


def needs_kernel(sampling: Sampling) -> bool:
    """Whether vLLM samples ``sampling`` through the top-k/top-p kernel (not greedy, and a
    top-p under 1 or a top-k)."""
    top_k = sampling.extra.get("top_k")
    limited = sampling.top_p < 1.0 or (isinstance(top_k, int) and top_k > 0)
    return sampling.temperature > 0 and limited


def cases(samplings: Iterable[Sampling]) -> list[Sampling]:
    """The samplings to warm, each once, shortened to :data:`TOKENS` tokens (contract)."""
    given = list(samplings) or list(GENERIC)
    seen: list[Sampling] = []
    for sampling in given:
        short = replace(sampling, max_tokens=TOKENS)
        if needs_kernel(short) and short not in seen:
            seen.append(short)
    return seen


def warm_sampler(
    llm: Any, params: Callable[[Sampling], Any], samplings: Iterable[Sampling]
) -> float:
    """Warm ``llm``'s sampler for ``samplings`` (module contract); ``params`` makes vLLM's
    ``SamplingParams`` of a :class:`Sampling`. The seconds it took."""
    started = time.perf_counter()
    prompt = {"prompt_token_ids": list(PROMPT_IDS)}
    for sampling in cases(samplings):
        for batch in BATCHES:
            try:
                llm.generate(
                    [dict(prompt) for _ in range(batch)], [params(sampling)] * batch, use_tqdm=False
                )
            except Exception:  # never stop an engine that loaded: it is only slower once
                log.warning("vLLM sampler warm-up failed for %s", sampling, exc_info=True)
                return time.perf_counter() - started
    return time.perf_counter() - started
