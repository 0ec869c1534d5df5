"""Where a page's time goes inside vLLM, from two reads of a server's ``/metrics`` (issue 34).

vLLM keeps per-request histograms (queue, prefill, decode, inference, end to end, first
token) and token counters; the difference of two reads taken around a run, divided by the
number of requests finished between them, is the mean of that run alone. Used by
``benchmarks/gpu_throughput.py`` (each server row gets a ``vllm`` breakdown).

Contract: :func:`read` never raises (None when the server has no metrics); :func:`between`
gives means in seconds per request, tokens per request and per second, and the mean number of
tokens one engine step carried (``iteration_tokens``: prefill chunk plus decodes).
"""

from __future__ import annotations

from typing import Any

from workbench.engines.stats import read_metrics_text, sample_totals

#: breakdown key -> vLLM's histogram (newer names first where vLLM renamed one)
HISTOGRAMS = {
    "queue_s": ("vllm:request_queue_time_seconds",),
    "prefill_s": ("vllm:request_prefill_time_seconds",),
    "decode_s": ("vllm:request_decode_time_seconds",),
    "inference_s": ("vllm:request_inference_time_seconds",),
    "e2e_s": ("vllm:e2e_request_latency_seconds",),
    "ttft_s": ("vllm:time_to_first_token_seconds",),
    "inter_token_s": ("vllm:inter_token_latency_seconds", "vllm:time_per_output_token_seconds"),
    "prompt_tokens": ("vllm:request_prompt_tokens",),
    "step_tokens": ("vllm:iteration_tokens_total",),
}
COUNTERS = {
    "prompt_tokens_total": "vllm:prompt_tokens_total",
    "generation_tokens_total": "vllm:generation_tokens_total",
    "preemptions": "vllm:num_preemptions_total",
}
#: Prometheus text → {sample name: value summed over its label sets}: the workbench's one parser
parse = sample_totals


def read(base_url: str) -> dict[str, float] | None:
    """One read of ``/metrics`` of the server behind ``base_url`` (``…/v1``), or None."""
    text = read_metrics_text(base_url, timeout=10)
    return None if text is None else parse(text)


def between(
    before: dict[str, float] | None, after: dict[str, float] | None, seconds: float
) -> dict[str, Any] | None:
    """Means over the requests finished between two reads (module contract)."""
    if not before or not after:
        return None

    def delta(name: str) -> float:
        return after.get(name, 0.0) - before.get(name, 0.0)

    out: dict[str, Any] = {}
    for key, names in HISTOGRAMS.items():
        for name in names:
            count = delta(f"{name}_count")
            if count > 0:
                out[key] = delta(f"{name}_sum") / count
                if key == "e2e_s":
                    out["requests"] = count
                break
    for key, name in COUNTERS.items():
        out[key] = delta(name)
    if seconds > 0:
        out["prompt_tokens_per_s"] = out["prompt_tokens_total"] / seconds
        out["generation_tokens_per_s"] = out["generation_tokens_total"] / seconds
    return out
