"""benchmarks/vllm_breakdown.py: means of one run from two reads of vLLM's /metrics."""

from __future__ import annotations

from benchmarks import vllm_breakdown

BEFORE = """# HELP vllm:e2e_request_latency_seconds Histogram of e2e request latency in seconds.
# TYPE vllm:e2e_request_latency_seconds histogram
vllm:e2e_request_latency_seconds_sum{engine="0",model_name="m"} 10.0
vllm:e2e_request_latency_seconds_count{engine="0",model_name="m"} 4.0
vllm:request_prefill_time_seconds_sum{engine="0",model_name="m"} 2.0
vllm:request_prefill_time_seconds_count{engine="0",model_name="m"} 4.0
vllm:prompt_tokens_total{engine="0",model_name="m"} 1000.0
vllm:generation_tokens_total{engine="0",model_name="m"} 100.0
vllm:num_preemptions_total{engine="0",model_name="m"} 0.0
"""
AFTER = """vllm:e2e_request_latency_seconds_sum{engine="0",model_name="m"} 40.0
vllm:e2e_request_latency_seconds_count{engine="0",model_name="m"} 14.0
vllm:request_prefill_time_seconds_sum{engine="0",model_name="m"} 7.0
vllm:request_prefill_time_seconds_count{engine="0",model_name="m"} 14.0
vllm:prompt_tokens_total{engine="0",model_name="m"} 21000.0
vllm:generation_tokens_total{engine="0",model_name="m"} 1380.0
vllm:num_preemptions_total{engine="0",model_name="m"} 2.0
"""


def test_the_means_are_of_the_requests_between_the_two_reads() -> None:
    out = vllm_breakdown.between(
        vllm_breakdown.parse(BEFORE), vllm_breakdown.parse(AFTER), seconds=5.0
    )
    assert out is not None
    assert out["requests"] == 10 and out["e2e_s"] == 3.0 and out["prefill_s"] == 0.5
    assert out["prompt_tokens_per_s"] == 4000 and out["generation_tokens_per_s"] == 256
    assert out["preemptions"] == 2 and "decode_s" not in out  # not exported: not guessed


def test_no_metrics_no_breakdown() -> None:
    assert vllm_breakdown.between(None, vllm_breakdown.parse(AFTER), 1.0) is None
    assert vllm_breakdown.read("http://127.0.0.1:9/v1") is None
