"""What :mod:`workbench.engines.stats` reads of vLLM, checked on each supported release (no
GPU): ``LLM.get_metrics()``, the stats switch the engine turns on, the reader's shapes and the
metric names its Prometheus logger registers."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from workbench.engines import stats

vllm = pytest.importorskip("vllm")


def test_the_llm_reports_metrics_when_stats_logging_is_on() -> None:
    from vllm.engine.arg_utils import EngineArgs

    assert callable(getattr(vllm.LLM, "get_metrics", None))
    assert "disable_log_stats" in inspect.signature(EngineArgs).parameters


def test_the_reader_objects_have_the_fields_the_mapping_reads() -> None:
    from vllm.v1.metrics import reader

    assert {f.name for f in dataclasses.fields(reader.Counter)} >= {"name", "labels", "value"}
    assert {f.name for f in dataclasses.fields(reader.Gauge)} >= {"name", "labels", "value"}
    fields = {f.name for f in dataclasses.fields(reader.Histogram)}
    assert fields >= {"name", "labels", "count", "sum", "buckets"}


def test_the_metric_names_are_vllms() -> None:
    from vllm.v1.metrics import loggers

    source = inspect.getsource(loggers)
    names = [
        stats.KV_USAGE[0], stats.RUNNING, stats.WAITING, stats.PREEMPTIONS, stats.PROMPT_TOKENS,
        stats.GENERATION_TOKENS, stats.FINISHED, stats.TTFT,
    ]  # fmt: skip
    missing = [n for n in names if f'"{n}"' not in source]
    assert not missing, f"vLLM {vllm.__version__} does not register {missing}"
