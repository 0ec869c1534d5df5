"""benchmarks/telemetry_check.py's verdicts, on a /metrics page in vLLM's shape (the script
itself needs a real vLLM server)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from benchmarks import telemetry_check
from workbench.engines.stats import stats_from_text

SAMPLE = (Path(__file__).parents[1] / "data" / "vllm_metrics_sample.txt").read_text()


def test_the_workbench_and_a_plain_regex_read_one_page_alike() -> None:
    assert telemetry_check.same_text(SAMPLE) == []
    assert telemetry_check.same_text("<html>") != []


def test_a_counter_outside_the_reads_around_it_is_a_disagreement() -> None:
    values = telemetry_check.direct(SAMPLE)
    snap = stats_from_text(SAMPLE)
    assert snap is not None
    wrong, gauges = telemetry_check.check(values, snap, values)
    assert wrong == [] and all(gauges.values())
    off = replace(snap, generation_tokens=snap.generation_tokens + 1, running=snap.running + 1)
    wrong, gauges = telemetry_check.check(values, off, values)
    assert len(wrong) == 1 and wrong[0].startswith("generation_tokens")
    assert gauges["running"] is False  # a gauge that moved is reported, not a disagreement
