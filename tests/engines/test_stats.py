"""engines/stats.py: vLLM's numbers from a server's /metrics and from the in-process engine,
through one mapping; readers that never raise."""

from __future__ import annotations

import math
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from PIL import Image

from tests.fakes import fake_vllm as fv
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.fakes.vllm_metrics import VllmMetrics
from workbench.engines.base import PageRequest
from workbench.engines.server.engine import VllmServerEngine
from workbench.engines.stats import (
    EngineStats,
    Metric,
    bucket_quantile,
    kv_cache_tokens,
    metrics_from_text,
    read_server_stats,
    sample_totals,
    stats_from_metrics,
    stats_from_text,
)
from workbench.engines.vllm_local import VllmLocalEngine
from workbench.schema import Sampling

SAMPLE = Path(__file__).parents[1] / "data" / "vllm_metrics_sample.txt"


def test_a_vllm_metrics_page_maps_to_one_snapshot() -> None:
    stats = stats_from_text(SAMPLE.read_text(), at=100.0)
    assert stats is not None
    assert (stats.at, stats.source) == (100.0, "server")
    assert stats.kv_cache_pct == pytest.approx(81.25)
    assert (stats.running, stats.waiting, stats.preemptions) == (48, 16, 5)
    assert (stats.prompt_tokens, stats.generation_tokens) == (120_000, 97 * 700 + 3 * 4096)
    assert stats.finished == {"stop": 97, "length": 3} and stats.cut_off == 3
    assert stats.finished_total == 100
    assert stats.ttft_count == 100 and stats.ttft_mean == pytest.approx(0.1872)
    # 97 of 100 below 0.25 s, all below 0.5 s: the median inside (0.1, 0.25]
    assert 0.1 < (stats.ttft_quantile(0.5) or 0) <= 0.25
    assert 0.25 < (stats.ttft_quantile(0.99) or 0) <= 0.5
    assert stats.kv_tokens == 73_876 * 16
    assert stats.kv_tokens_used == round(0.8125 * 73_876 * 16)


def test_older_and_newer_names_and_engines_are_read_alike() -> None:
    old = VllmMetrics(legacy=True)
    old.set_load(2, 0, 0.5)
    text = old.text().replace("vllm:kv_cache_usage_perc", "vllm:other_gauge")  # only the old one
    stats = stats_from_text(text)
    assert stats is not None and stats.kv_cache_usage == 0.5
    # Untyped lines (no # TYPE), two data-parallel engines: summed, KV use their mean.
    untyped = (
        'vllm:num_requests_running{engine="0"} 3\nvllm:num_requests_running{engine="1"} 4\n'
        'vllm:kv_cache_usage_perc{engine="0"} 0.2\nvllm:kv_cache_usage_perc{engine="1"} 0.4\n'
        'vllm:num_preemptions_total{engine="0"} 2\n'
    )
    stats = stats_from_text(untyped)
    assert stats is not None and (stats.running, stats.preemptions) == (7, 2)
    assert stats.kv_cache_usage == pytest.approx(0.3)


def test_what_is_not_vllms_metrics_is_none_never_an_error() -> None:
    assert stats_from_text("<html>not metrics</html>") is None
    assert stats_from_text("process_cpu_seconds_total 3.0\n") is None
    assert kv_cache_tokens("<html>not metrics</html>") is None
    assert read_server_stats("http://127.0.0.1:9/v1") is None  # nothing listens there


def test_rates_come_from_two_readings() -> None:
    first = EngineStats(10.0, "server", 0.1, 1, 0, 0, prompt_tokens=1000, generation_tokens=50)
    second = EngineStats(12.0, "server", 0.2, 2, 0, 0, prompt_tokens=3000, generation_tokens=450)
    rated = second.since(first)
    assert (rated.prompt_tokens_per_s, rated.generation_tokens_per_s) == (1000.0, 200.0)
    assert second.since(None) is second and first.since(second) is first  # not later: unchanged
    restarted = EngineStats(14.0, "server", 0.0, 0, 0, 0, prompt_tokens=10, generation_tokens=1)
    assert restarted.since(second).generation_tokens_per_s is None  # vLLM restarted: no rate


def test_quantiles_interpolate_inside_a_bucket_as_prometheus_does() -> None:
    buckets = [(1.0, 0.0), (2.0, 10.0), (math.inf, 10.0)]
    assert bucket_quantile(buckets, 0.5) == pytest.approx(1.5)
    assert bucket_quantile([(1.0, 4.0), (math.inf, 10.0)], 0.9) == 1.0  # in +Inf: last bound
    assert bucket_quantile([], 0.5) is None


def test_in_process_metric_objects_map_like_the_text() -> None:
    """vLLM's reader objects (names without ``_total``) and the parsed text give one snapshot."""
    text = SAMPLE.read_text()
    from_text = stats_from_metrics(metrics_from_text(text), "in-process", at=1.0)
    objects = [
        SimpleNamespace(**vars(m)) if m.buckets is None else m for m in metrics_from_text(text)
    ]
    assert stats_from_metrics(objects, "in-process", at=1.0) == from_text
    assert stats_from_metrics([Metric("vllm:other", {}, 1.0)], "in-process") is None


def test_one_parser_serves_the_breakdown_benchmark() -> None:
    totals = sample_totals(SAMPLE.read_text())
    assert totals["vllm:time_to_first_token_seconds_count"] == 100
    assert totals["vllm:prompt_tokens_total"] == 120_000
    from benchmarks import vllm_breakdown

    assert vllm_breakdown.parse is sample_totals  # one home for the Prometheus text


def test_the_server_engine_reads_metrics_that_move() -> None:
    with FakeOpenAIServer([Reply("x" * 400, "length"), "short"]) as server:
        server.vllm_metrics = VllmMetrics()
        engine = VllmServerEngine(server.base_url, model="fake/ocr-model", concurrency=2)
        before = engine.stats()
        assert before is not None and before.finished_total == 0
        page = PageRequest("p", Image.new("RGB", (20, 20)), prompt="OCR", sampling=Sampling())
        list(engine.run([page, PageRequest("q", page.image, prompt="OCR")]))
        after = engine.stats()
        assert after is not None and after.since(before).generation_tokens_per_s
        assert after.finished == {"length": 1, "stop": 1} and after.cut_off == 1
        assert after.prompt_tokens == 2000 and after.ttft_count == 2
        engine.close()
    assert engine.stats() is None  # the server is gone: None, no exception


@pytest.fixture
def fake_vllm(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "vllm", fv.module())
    monkeypatch.setattr(fv.FakeLLM, "tokens", 4)
    monkeypatch.setattr(fv.FakeLLM, "step_s", 0.002)


def test_the_in_process_engine_reports_vllms_own_metrics(fake_vllm: None) -> None:
    engine = VllmLocalEngine("m/ocr", {"max_num_seqs": 16})
    try:
        idle = engine.stats()
        assert idle is not None and idle.source == "in-process" and idle.running == 0
        assert idle.kv_tokens == 32_000
        pages = [PageRequest(f"p{i}", Image.new("RGB", (30, 30)), prompt="OCR") for i in range(5)]
        pages.append(PageRequest("loop", Image.new("RGB", (30, 30)), prompt="LOOP",
                                 sampling=Sampling(0.0, max_tokens=8)))  # fmt: skip
        engine.max_attempts = 1
        list(engine.run(pages))
        done = engine.stats()
        assert done is not None
        assert done.finished == {"stop": 5, "length": 1} and done.cut_off == 1
        assert done.prompt_tokens == 6 * fv.PROMPT_TOKENS and done.ttft_count == 6
        assert done.generation_tokens == 5 * 4 + 8
    finally:
        engine.close()
    assert engine.stats() is None  # closed


def test_stats_logging_off_is_none(fake_vllm: None) -> None:
    engine = VllmLocalEngine("m/ocr", {"disable_log_stats": True})
    try:
        assert engine.stats() is None  # vLLM refuses get_metrics(); stats() does not raise
    finally:
        engine.close()
