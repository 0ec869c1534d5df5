"""What vLLM is doing inside: one typed snapshot, read from a server's ``/metrics`` or from
the in-process engine's ``LLM.get_metrics()``.

Contract
--------
* :class:`EngineStats` is one reading: KV cache use, requests running and waiting, totals of
  preemptions, prompt and generation tokens, requests finished by finish reason (``length``:
  cut off at ``max_tokens``), the time-to-first-token histogram, and the KV cache's size when
  vLLM says it (``vllm:cache_config_info``). Rates (tokens/s) exist only between two readings:
  :meth:`EngineStats.since` fills them from the one before.
* Both sources go through one mapping (:func:`stats_from_metrics`) over vLLM's metric
  families: ``vllm.v1.metrics.reader`` objects in process (``Counter``/``Gauge`` with
  ``value``, ``Histogram`` with ``count``/``sum``/``buckets``), and the same shapes
  (:class:`Metric`) parsed from Prometheus text by ``prometheus_client``'s parser
  (:func:`metrics_from_text`). Family names are vLLM's ``name=`` (a counter's ``_total`` is
  the wire suffix; names checked against ``vllm/v1/metrics/loggers.py``, vLLM 0.10 to main):
  ``vllm:kv_cache_usage_perc`` (before 0.10 also ``vllm:gpu_cache_usage_perc``),
  ``vllm:num_requests_running``/``_waiting``, ``vllm:num_preemptions``,
  ``vllm:prompt_tokens``, ``vllm:generation_tokens``,
  ``vllm:request_success{finished_reason=stop|length|abort|error|repetition}``,
  ``vllm:time_to_first_token_seconds``. Data-parallel engines (label ``engine``) are summed;
  KV cache use is their mean.
* :func:`read_server_stats` and :func:`stats_from_metrics` never raise: no answer, no vLLM
  metrics or text that does not parse give None.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import httpx

from workbench.engines.server.info import server_root

#: vLLM's finish reasons (``FINISH_REASON_STRINGS``; ``error``/``repetition`` from 0.2x).
FINISH_REASONS = ("stop", "length", "abort", "error", "repetition")
KV_USAGE = ("vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc")  # newest name first
RUNNING = "vllm:num_requests_running"
WAITING = "vllm:num_requests_waiting"
PREEMPTIONS = "vllm:num_preemptions"
PROMPT_TOKENS = "vllm:prompt_tokens"
GENERATION_TOKENS = "vllm:generation_tokens"
FINISHED = "vllm:request_success"
TTFT = "vllm:time_to_first_token_seconds"
CACHE_INFO = "vllm:cache_config_info"
METRICS_TIMEOUT_S = 5.0


@dataclass(frozen=True)
class Metric:
    """One labelled series of a metric family, in ``vllm.v1.metrics.reader``'s shape: a
    counter or gauge has ``value``; a histogram ``count``, ``sum`` and cumulative ``buckets``
    keyed by their upper bound as Prometheus writes it (``"0.5"``, ``"+Inf"``)."""

    name: str
    labels: Mapping[str, str]
    value: float = 0.0
    count: float = 0.0
    sum: float = 0.0
    buckets: Mapping[str, float] | None = None


@dataclass(frozen=True)
class EngineStats:
    """One reading of a vLLM engine (module contract). Totals count since vLLM started."""

    at: float  # wall clock of the reading (time.time())
    source: str  # "server" (a /metrics URL) or "in-process"
    kv_cache_usage: float | None  # fraction of KV cache blocks in use, 0..1
    running: int
    waiting: int
    preemptions: int
    prompt_tokens: int
    generation_tokens: int
    finished: Mapping[str, int] = field(default_factory=dict)  # finish reason -> requests
    ttft_count: int = 0
    ttft_sum: float = 0.0
    ttft_buckets: tuple[tuple[float, float], ...] = ()  # (upper bound, cumulative count)
    kv_tokens: int | None = None  # the KV cache's size in tokens, when vLLM says it
    prompt_tokens_per_s: float | None = None  # set by since()
    generation_tokens_per_s: float | None = None

    @property
    def kv_cache_pct(self) -> float | None:
        return None if self.kv_cache_usage is None else 100.0 * self.kv_cache_usage

    @property
    def kv_tokens_used(self) -> int | None:
        """KV cache tokens in use (usage × size), when both are known."""
        if self.kv_cache_usage is None or not self.kv_tokens:
            return None
        return round(self.kv_cache_usage * self.kv_tokens)

    @property
    def cut_off(self) -> int:
        """Requests that ended at ``max_tokens`` (or the context): a loop signal for OCR."""
        return int(self.finished.get("length", 0))

    @property
    def finished_total(self) -> int:
        return int(sum(self.finished.values()))

    @property
    def ttft_mean(self) -> float | None:
        return self.ttft_sum / self.ttft_count if self.ttft_count else None

    def ttft_quantile(self, q: float) -> float | None:
        """Prometheus' ``histogram_quantile``: linear inside the bucket holding rank
        ``q × count``; the largest finite bound when that bucket is ``+Inf``."""
        return bucket_quantile(self.ttft_buckets, q)

    def since(self, before: EngineStats | None) -> EngineStats:
        """This reading with token rates over the time since ``before`` (None: unchanged;
        a counter that went back means vLLM restarted: no rate)."""
        if before is None or self.at <= before.at:
            return self
        seconds = self.at - before.at
        prompt = self.prompt_tokens - before.prompt_tokens
        generated = self.generation_tokens - before.generation_tokens
        return replace(
            self,
            prompt_tokens_per_s=prompt / seconds if prompt >= 0 else None,
            generation_tokens_per_s=generated / seconds if generated >= 0 else None,
        )

    def to_json(self) -> dict[str, Any]:
        """Plain JSON (for an HTTP endpoint): every field, and the derived figures."""
        return {
            "at": self.at,
            "source": self.source,
            "kv_cache_usage": self.kv_cache_usage,
            "kv_tokens": self.kv_tokens,
            "kv_tokens_used": self.kv_tokens_used,
            "running": self.running,
            "waiting": self.waiting,
            "preemptions": self.preemptions,
            "prompt_tokens": self.prompt_tokens,
            "generation_tokens": self.generation_tokens,
            "prompt_tokens_per_s": self.prompt_tokens_per_s,
            "generation_tokens_per_s": self.generation_tokens_per_s,
            "finished": dict(self.finished),
            "cut_off": self.cut_off,
            "ttft_count": self.ttft_count,
            "ttft_mean_s": self.ttft_mean,
            "ttft_p50_s": self.ttft_quantile(0.5),
            "ttft_p95_s": self.ttft_quantile(0.95),
        }


def bucket_quantile(buckets: Iterable[tuple[float, float]], q: float) -> float | None:
    """The ``q`` quantile of cumulative histogram ``buckets`` (module doc); None when empty."""
    rows = sorted(buckets)
    if not rows or rows[-1][1] <= 0:
        return None
    rank = q * rows[-1][1]
    lower, below = 0.0, 0.0
    for bound, cumulative in rows:
        if cumulative >= rank:
            if math.isinf(bound):
                return lower
            if cumulative == below:
                return bound
            return lower + (bound - lower) * (rank - below) / (cumulative - below)
        lower, below = bound, cumulative
    return lower


# ------------------------------------------------------------------ Prometheus text
def metrics_from_text(text: str) -> list[Metric]:
    """vLLM's metric families in Prometheus ``text`` as :class:`Metric` series (other
    families left out). Raises ``ValueError`` on text that is not Prometheus'."""
    from prometheus_client.parser import text_string_to_metric_families

    out: list[Metric] = []
    for family in text_string_to_metric_families(text):
        if not family.name.startswith("vllm:"):
            continue
        if family.type == "histogram":
            out += _histograms(family.name, family.samples)
            continue
        wanted = family.name + "_total" if family.type == "counter" else family.name
        name = family.name.removesuffix("_total") if family.type == "unknown" else family.name
        for sample in family.samples:
            if sample.name == wanted:
                out.append(Metric(name, dict(sample.labels), value=float(sample.value)))
    return out


def _histograms(name: str, samples: Iterable[Any]) -> list[Metric]:
    series: dict[frozenset[tuple[str, str]], dict[str, Any]] = {}
    for sample in samples:
        labels = dict(sample.labels)
        le = labels.pop("le", None)
        one = series.setdefault(frozenset(labels.items()), {"buckets": {}})
        if sample.name == name + "_bucket" and le is not None:
            one["buckets"][le] = float(sample.value)
        elif sample.name == name + "_count":
            one["count"] = float(sample.value)
        elif sample.name == name + "_sum":
            one["sum"] = float(sample.value)
    return [
        Metric(
            name, dict(key), count=v.get("count", 0.0), sum=v.get("sum", 0.0), buckets=v["buckets"]
        )
        for key, v in series.items()
    ]


def sample_totals(text: str) -> dict[str, float]:
    """Prometheus ``text`` → {sample name: value summed over its label sets} (a histogram's
    ``X_count``/``X_sum``, a counter's ``X_total``); what parses before a bad line is kept."""
    from prometheus_client.parser import text_string_to_metric_families

    values: dict[str, float] = {}
    try:
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                values[sample.name] = values.get(sample.name, 0.0) + float(sample.value)
    except ValueError:
        pass
    return values


# ------------------------------------------------------------------ one mapping
def _num(metric: Any, attr: str) -> float:
    value = getattr(metric, attr, 0.0)
    try:
        return float(value)
    except (TypeError, ValueError):
        return 0.0


def stats_from_metrics(
    metrics: Iterable[Any], source: str, at: float | None = None
) -> EngineStats | None:
    """Map vLLM's metric series (``vllm.v1.metrics.reader`` objects or :class:`Metric`) to an
    :class:`EngineStats`; None when none of vLLM's scheduler metrics is among them."""
    by_name: dict[str, list[Any]] = {}
    for metric in metrics:
        name = str(getattr(metric, "name", "")).removesuffix("_total")
        by_name.setdefault(name, []).append(metric)
    if RUNNING not in by_name and not any(k in by_name for k in KV_USAGE):
        return None

    def total(name: str) -> float:
        return sum(_num(m, "value") for m in by_name.get(name, ()))

    usage = next(([_num(m, "value") for m in by_name[k]] for k in KV_USAGE if k in by_name), [])
    finished: dict[str, int] = {}
    for m in by_name.get(FINISHED, ()):
        reason = str((getattr(m, "labels", None) or {}).get("finished_reason", "?"))
        finished[reason] = finished.get(reason, 0) + int(_num(m, "value"))
    buckets: dict[float, float] = {}
    for m in by_name.get(TTFT, ()):
        for le, count in (getattr(m, "buckets", None) or {}).items():
            bound = float(le)  # "+Inf" -> inf
            buckets[bound] = buckets.get(bound, 0.0) + float(count)
    return EngineStats(
        at=time.time() if at is None else at,
        source=source,
        kv_cache_usage=sum(usage) / len(usage) if usage else None,
        running=int(total(RUNNING)),
        waiting=int(total(WAITING)),
        preemptions=int(total(PREEMPTIONS)),
        prompt_tokens=int(total(PROMPT_TOKENS)),
        generation_tokens=int(total(GENERATION_TOKENS)),
        finished={k: v for k, v in finished.items() if v},
        ttft_count=int(sum(_num(m, "count") for m in by_name.get(TTFT, ()))),
        ttft_sum=sum(_num(m, "sum") for m in by_name.get(TTFT, ())),
        ttft_buckets=tuple(sorted(buckets.items())),
        kv_tokens=_kv_tokens(by_name.get(CACHE_INFO, ())),
    )


def _kv_tokens(infos: Iterable[Any]) -> int | None:
    """KV cache tokens from ``vllm:cache_config_info`` (``num_gpu_blocks`` × ``block_size``
    labels), summed over engines; None when it does not say."""
    total = 0
    for info in infos:
        labels = getattr(info, "labels", None) or {}
        try:
            total += int(labels["num_gpu_blocks"]) * int(labels["block_size"])
        except (KeyError, ValueError, TypeError):
            continue
    return total or None


def stats_from_text(text: str, at: float | None = None) -> EngineStats | None:
    """:func:`stats_from_metrics` of a server's ``/metrics`` text; None when it does not
    parse or has no vLLM scheduler metrics."""
    try:
        metrics = metrics_from_text(text)
    except ValueError:
        return None
    return stats_from_metrics(metrics, "server", at)


def metrics_url(base_url: str) -> str:
    """``http://host:8000/v1`` → ``http://host:8000/metrics`` (vLLM serves it at the root)."""
    return f"{server_root(base_url)}/metrics"


def kv_cache_tokens(text: str) -> int | None:
    """The KV cache a vLLM server holds, in tokens, from its ``/metrics`` text
    (``vllm:cache_config_info``, summed over its engines); None when the text does not say."""
    try:
        return _kv_tokens(m for m in metrics_from_text(text) if m.name == CACHE_INFO)
    except ValueError:
        return None


def read_metrics_text(
    base_url: str, client: httpx.Client | None = None, timeout: float = METRICS_TIMEOUT_S
) -> str | None:
    """The ``/metrics`` text of the server behind ``base_url`` (``…/v1`` or its root); None
    when it does not answer or answers an error. Never raises."""
    response = _get_metrics(base_url, client, timeout)
    return response.text if response is not None and response.status_code == 200 else None


def server_answers(
    base_url: str, client: httpx.Client | None = None, timeout: float = METRICS_TIMEOUT_S
) -> bool:
    """True when the server behind ``base_url`` answers HTTP at all: its ``/metrics`` with
    any status (a 404 from a server that publishes no vLLM metrics counts). Never raises."""
    return _get_metrics(base_url, client, timeout) is not None


def _get_metrics(
    base_url: str, client: httpx.Client | None, timeout: float
) -> httpx.Response | None:
    try:
        get = client.get if client is not None else httpx.get
        return get(metrics_url(base_url), timeout=timeout)
    except (httpx.HTTPError, RuntimeError):  # RuntimeError: the client was closed meanwhile
        return None


def read_server_stats(
    base_url: str, client: httpx.Client | None = None, timeout: float = METRICS_TIMEOUT_S
) -> EngineStats | None:
    """One reading of the vLLM server behind ``base_url``; None when it does not answer,
    answers an error or is not vLLM. Never raises."""
    text = read_metrics_text(base_url, client, timeout)
    return None if text is None else stats_from_text(text)


def probe_kv_tokens(client: httpx.Client, base_url: str) -> int | None:
    """:func:`kv_cache_tokens` of the server at ``base_url``; None when it has no metrics."""
    text = read_metrics_text(base_url, client)
    return None if text is None else kv_cache_tokens(text)
