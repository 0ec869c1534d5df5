"""vLLM's own numbers, live: in the sidebar beside the GPU memory bars and on the GPU page.

NVML's memory is flat once vLLM reserved it; what tells a person tuning a deployment whether
the plan holds is inside vLLM: KV cache use, requests running and waiting, preemptions,
tokens/s, answers cut off at ``max_tokens``, time to first token
(:mod:`workbench.engines.stats`). Shown only when the sidebar's engine is vLLM:

* ``vllm-server``: read from the server's ``/metrics`` directly (before any page too);
* ``vllm`` (in process): the engine's ``stats()`` once it is loaded (never loads it).

Both panels are ``st.fragment(run_every=...)``: only they rerun, every :data:`POLL_S`. The
readings of this session go into one :class:`~workbench.gpu.engine_watch.StatsHistory`
(:data:`workbench.ui.state.ENGINE_STATS`, started again when the source changes); a chart
shows its trend. A server that does not answer is one line, never an exception. The GPU page
also sets the plan's pages in flight and KV cache beside vLLM's (a wrong plan shows).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pandas as pd
import streamlit as st

from workbench.engines.stats import EngineStats, metrics_url, read_server_stats, server_answers
from workbench.gpu.engine_watch import Expected, StatsHistory, compare, engine_stats
from workbench.ui import engines, state

POLL_S = 2.0


@dataclass(frozen=True)
class Source:
    """Where this session's vLLM numbers come from."""

    key: str  # a new key starts a new history
    label: str  # what a reader is told when nothing answers
    read: Callable[[], EngineStats | None]
    expected: Expected
    #: asked only when a reading is None: does the server answer at all (it then publishes
    #: no vLLM metrics, a neutral fact), or is it lost (an alarm)?
    answers: Callable[[], bool] = lambda: False


def source() -> Source | None:
    """The sidebar's engine as a telemetry source; None when it is not vLLM."""
    choice = engines.current_choice()
    if choice is None or choice.kind not in ("vllm-server", "vllm"):
        return None
    engine = engines.loaded_engine(choice)
    pages = getattr(engine, "concurrency", None) or getattr(choice.options, "concurrency", None)
    if choice.kind == "vllm-server":
        url = str(getattr(choice.options, "base_url", ""))
        key = f"server:{url}"
        answers = lambda: server_answers(url, timeout=2.0)  # noqa: E731
        if engine is not None:  # the engine's own client (its key, its timeouts)
            return Source(key, url, lambda: engine_stats(engine), Expected(pages), answers)
        read = lambda: read_server_stats(url, timeout=2.0)  # noqa: E731
        return Source(key, url, read, Expected(pages), answers)
    planned = state.SB_LOCAL_EXPECTED.get()
    expected = planned if isinstance(planned, Expected) else Expected(pages)
    if engine is None:
        return Source(f"local:{choice.key}", "", lambda: None, expected)
    return Source(f"local:{id(engine)}", "vLLM in process", lambda: engine_stats(engine), expected)


def _history(src: Source) -> StatsHistory:
    kept = state.ENGINE_STATS.get()
    if isinstance(kept, tuple) and kept[0] == src.key and isinstance(kept[1], StatsHistory):
        return kept[1]
    history = StatsHistory()
    state.ENGINE_STATS.set((src.key, history))
    return history


def _read(src: Source) -> tuple[StatsHistory, EngineStats | None]:
    history = _history(src)
    reading = src.read()
    return history, history.add(reading) if reading is not None else None


def _missing(src: Source) -> tuple[str, bool]:
    """Why there is no reading, and whether that is an alarm (the server does not answer)."""
    if src.key.startswith("local:") and not src.label:
        return "vLLM telemetry: the engine loads with the first page.", True
    if src.answers():  # it answers, with no vLLM figures at /metrics: not vLLM, or hidden
        return "vLLM telemetry: this server publishes no vLLM metrics (nothing to chart).", False
    return f"vLLM telemetry: {metrics_url(src.label)} does not answer (server lost).", True


def _figures(reading: EngineStats) -> str:
    bits = [f"{reading.preemptions} preemptions", f"{reading.cut_off} cut off at max_tokens"]
    if reading.generation_tokens_per_s is not None:
        bits.insert(0, f"{reading.generation_tokens_per_s:,.0f} tok/s out")
    if reading.prompt_tokens_per_s is not None:
        bits.insert(1, f"{reading.prompt_tokens_per_s:,.0f} tok/s in")
    p50 = reading.ttft_quantile(0.5)
    if p50 is not None:
        bits.append(f"first token p50 {p50:.2f} s")
    return " · ".join(bits)


def _kv_bar(reading: EngineStats) -> None:
    kv = reading.kv_cache_usage
    text = (
        f"vLLM KV cache {reading.kv_cache_pct:.0f}% · {reading.running} running · "
        f"{reading.waiting} waiting"
        if kv is not None
        else f"vLLM · {reading.running} running · {reading.waiting} waiting"
    )
    st.progress(min(max(kv or 0.0, 0.0), 1.0), text=text)


_SERIES = ["KV cache %", "running", "waiting"]


def chart_spec(history: StatsHistory, height: int) -> tuple[pd.DataFrame, dict[str, Any]] | None:
    """The history as long rows and a Vega-Lite line chart that fits the 240 px sidebar: the
    legend wraps under it (``st.line_chart``'s one row put "waiting" past the sidebar's edge)
    and the y axis starts at 0 and counts whole numbers (an idle engine drew "0.000000").
    ``height`` is the plot's own, legend and axes below it."""
    rows = pd.DataFrame(history.rows())
    if len(rows) < 2:
        return None
    rows["seconds ago"] = (rows["time"] - rows["time"].max()).round(1)  # readable, not a clock
    long = rows.melt("seconds ago", _SERIES, var_name="series", value_name="value")
    top = max(1.0, float(long["value"].max(skipna=True) or 0.0))
    legend = {"orient": "bottom", "columns": 2, "title": None, "labelLimit": 100}
    spec: dict[str, Any] = {
        "height": height,  # the plot's; the width fits the column, legend and axes add on
        "autosize": {"type": "fit-x", "contains": "padding"},
        "mark": {"type": "line"},
        "encoding": {
            "x": {"field": "seconds ago", "type": "quantitative", "title": "seconds ago"},
            "y": {
                "field": "value",
                "type": "quantitative",
                "title": None,
                "scale": {"domain": [0, top]},
                "axis": {"format": "~d", "tickMinStep": 1},
            },
            "color": {"field": "series", "type": "nominal", "sort": _SERIES, "legend": legend},
        },
    }
    return long, spec


def _chart(history: StatsHistory, height: int) -> None:
    chart = chart_spec(history, height)
    if chart is not None:
        st.vega_lite_chart(chart[0], chart[1], width="stretch")


@st.fragment(run_every=POLL_S)
def sidebar_engine_panel() -> None:
    """The sidebar's lines (under the memory bars); nothing when the engine is not vLLM."""
    src = source()
    if src is None:
        return
    history, reading = _read(src)
    if reading is None:
        st.caption(_missing(src)[0])  # the sidebar says a lost server above (st.warning)
        return
    _kv_bar(reading)
    st.caption(_figures(reading))
    _chart(history, 80)


@st.fragment(run_every=POLL_S)
def page_engine_panel() -> None:
    """The GPU page's section: the numbers, their history and the plan beside them."""
    src = source()
    st.subheader("vLLM engine")
    if src is None:
        st.caption("Pick a vLLM engine (server or in process) in the sidebar to watch it here.")
        return
    history, reading = _read(src)
    if reading is None:
        why, alarm = _missing(src)
        (st.info if alarm else st.caption)(why)
        return
    _kv_bar(reading)
    cols = st.columns(5)
    rate = reading.generation_tokens_per_s
    cols[0].metric("Running", reading.running)
    cols[1].metric("Waiting", reading.waiting)
    cols[2].metric("Preemptions", reading.preemptions)
    cols[3].metric("Tokens/s out", "…" if rate is None else f"{rate:,.0f}")
    cols[4].metric("Cut off (length)", reading.cut_off)
    st.caption(_figures(reading))
    _chart(history, 140)
    rows = compare(src.expected, history)
    st.dataframe(
        pd.DataFrame(
            {"": r.figure, "plan": r.planned, "vLLM": r.reported, "note": r.note} for r in rows
        ),
        hide_index=True,
    )
