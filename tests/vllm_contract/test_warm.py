"""The sampler warm-up's calls into ``vllm.LLM`` and the rule it warms for, on the real classes
of each supported release (no GPU: signatures and source)."""

from __future__ import annotations

import importlib.util
import inspect
import re
from pathlib import Path

import pytest

from workbench.engines import warm

vllm = pytest.importorskip("vllm")


def test_generate_takes_token_prompts_and_a_params_list() -> None:
    params = inspect.signature(vllm.LLM.generate).parameters
    assert {"prompts", "sampling_params", "use_tqdm"} <= set(params)
    from vllm.inputs import TokensPrompt

    assert "prompt_token_ids" in TokensPrompt.__annotations__


def test_the_top_k_top_p_kernel_is_taken_at_the_warm_up_batch_sizes() -> None:
    """vLLM takes its Triton top-k/top-p kernel from some number of rows on (8 in 0.17 and
    0.26, 1 from 0.30): the warm-up batches at or above it must cover each batch size Triton
    compiles apart (a multiple of 16, any other, and 1 where 1 takes the kernel)."""
    spec = importlib.util.find_spec("vllm.v1.sample.ops.topk_topp_sampler")
    assert spec is not None and spec.origin
    source = Path(spec.origin).read_text()
    if "topk_topp_triton" not in source:
        pytest.skip("this release samples top-k/top-p without a Triton kernel: nothing to warm")
    rows = re.search(r"HAS_TRITON and logits\.shape\[0\] >= (\d+)", source)
    every = re.search(r"if HAS_TRITON:\s+return apply_top_k_top_p_triton\(", source)
    assert rows or every, "the rule for taking the Triton kernel moved: check warm.BATCHES"
    least = int(rows.group(1)) if rows else 1
    taken = [n for n in warm.BATCHES if n >= least]
    assert any(n % 16 == 0 for n in taken) and any(n % 16 and n > 1 for n in taken)
    assert least > 1 or 1 in taken


def test_a_warm_up_sampling_builds_the_release_s_sampling_params() -> None:
    for sampling in warm.GENERIC:
        from workbench.engines.messages import sampling_params_kwargs

        params = vllm.SamplingParams(**sampling_params_kwargs(sampling))
        assert params.max_tokens == warm.TOKENS and params.temperature == 1.0
