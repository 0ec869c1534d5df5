"""Does the workbench's telemetry say what vLLM says? Against a real ``vllm serve`` (issue 36).

While the workbench's server engine reads ``--pages`` pages (blank pages with one line of
text, image only, ``--max-tokens``), this script checks, every ``--every`` seconds:

* **same text**: one ``/metrics`` page read by a plain regex (no workbench code: the peer)
  and by the workbench (``stats_from_text``: ``prometheus_client``'s parser and the one
  mapping of ``workbench/engines/stats.py``): every figure must be equal;
* **live**: the engine's own reading (``VllmServerEngine.stats()``) taken between two direct
  reads: each counter must lie between them (counters only grow); gauges (running, waiting,
  KV cache) move with every engine step, so how often they matched one of the two reads is
  reported, not required.

At the end the CLI's summary line (``workbench/gpu/engine_watch.py``) is printed beside the
direct counters' differences over the run.

It cannot run on the development machine (no GPU, no vLLM): it is for the next GPU hold.

    vllm serve lightonai/LightOnOCR-2-1B --load-format dummy --port 8000 &
    python benchmarks/telemetry_check.py --base-url http://127.0.0.1:8000/v1 --pages 256

Exit status 0 when every reading agreed, 1 otherwise (the disagreements are printed).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import threading
from pathlib import Path
from typing import Any

import httpx
from PIL import Image, ImageDraw

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from workbench.engines.base import PageRequest  # noqa: E402
from workbench.engines.server.engine import VllmServerEngine  # noqa: E402
from workbench.engines.stats import EngineStats, stats_from_text  # noqa: E402
from workbench.gpu.engine_watch import StatsHistory  # noqa: E402
from workbench.schema import Sampling  # noqa: E402

_LINE = re.compile(r"^([A-Za-z_:][\w:]*)(\{[^}]*\})?\s+(\S+)")
_REASON = re.compile(r'finished_reason="([^"]*)"')


def fetch(root: str) -> str:
    return httpx.get(f"{root}/metrics", timeout=10).text


def direct(text: str) -> dict[str, float]:
    """``/metrics`` read with a regex: {sample name or name|reason: value summed over labels}."""
    values: dict[str, float] = {}
    for line in text.splitlines():
        match = _LINE.match(line)
        if match is None or line.startswith("#"):
            continue
        name = match[1]
        reason = _REASON.search(match[2] or "")
        if reason is not None:
            name = f"{name}|{reason[1]}"
        values[name] = values.get(name, 0.0) + float(match[3])
    return values


#: snapshot figure -> the direct sample names it must equal (the first present; renamed ones)
FIGURES: dict[str, tuple[str, ...]] = {
    "running": ("vllm:num_requests_running",),
    "waiting": ("vllm:num_requests_waiting",),
    "kv_cache_usage": ("vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"),
    "preemptions": ("vllm:num_preemptions_total",),
    "prompt_tokens": ("vllm:prompt_tokens_total",),
    "generation_tokens": ("vllm:generation_tokens_total",),
    "ttft_count": ("vllm:time_to_first_token_seconds_count",),
    "ttft_sum": ("vllm:time_to_first_token_seconds_sum",),
}


def figure(values: dict[str, float], names: tuple[str, ...]) -> float | None:
    return next((values[n] for n in names if n in values), None)


GAUGES = ("running", "waiting", "kv_cache_usage")


def _figures(snap: EngineStats) -> tuple[dict[str, float], dict[str, tuple[str, ...]]]:
    got: dict[str, float] = {k: float(getattr(snap, k) or 0.0) for k in FIGURES}
    names = dict(FIGURES)
    for reason, count in snap.finished.items():
        got[f"finished {reason}"] = count
        names[f"finished {reason}"] = (f"vllm:request_success_total|{reason}",)
    return got, names


def check(
    before: dict[str, float], snap: EngineStats, after: dict[str, float]
) -> tuple[list[str], dict[str, bool]]:
    """Counters of ``snap`` outside the two direct reads around it (disagreements), and for
    each gauge whether it equals one of the two reads."""
    wrong: list[str] = []
    gauges: dict[str, bool] = {}
    got, names = _figures(snap)
    for key, value in got.items():
        low, high = figure(before, names[key]), figure(after, names[key])
        if low is None or high is None:
            wrong.append(f"{key}: not in vLLM's /metrics")
        elif key in GAUGES:
            gauges[key] = abs(value - low) < 1e-9 or abs(value - high) < 1e-9
        elif not min(low, high) - 1e-6 <= value <= max(low, high) + 1e-6:
            wrong.append(f"{key}: workbench {value:g}, vLLM {low:g}..{high:g}")
    return wrong, gauges


def same_text(text: str) -> list[str]:
    """Figures where the workbench and the regex read one page differently."""
    snap = stats_from_text(text)
    if snap is None:
        return ["the workbench read no snapshot from vLLM's page"]
    values = direct(text)
    got, names = _figures(snap)
    wrong = []
    for key, value in got.items():
        peer = figure(values, names[key])
        if peer is None or abs(value - peer) > 1e-6 * max(1.0, abs(value)):
            wrong.append(f"{key} (same page): workbench {value:g}, regex {peer}")
    return wrong


def pages(n: int, max_tokens: int) -> list[PageRequest]:
    out = []
    for i in range(n):
        image = Image.new("RGB", (1240, 1754), "white")
        ImageDraw.Draw(image).text(
            (100, 100 + i % 1500), f"Page {i} of the telemetry check", fill="black"
        )
        out.append(PageRequest(f"p{i}", image, sampling=Sampling(0.0, max_tokens=max_tokens)))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", default="http://127.0.0.1:8000/v1")
    parser.add_argument("--pages", type=int, default=256)
    parser.add_argument("--max-tokens", type=int, default=512)
    parser.add_argument("--every", type=float, default=0.5)
    parser.add_argument("--json", type=Path, help="write every reading and verdict here")
    args = parser.parse_args()
    engine = VllmServerEngine(args.base_url, connect=True)
    root = args.base_url.rstrip("/").removesuffix("/v1")
    history = StatsHistory(maxlen=100_000)
    start = direct(fetch(root))
    done = threading.Event()
    outputs: list[Any] = []
    worker = threading.Thread(
        target=lambda: (outputs.extend(engine.run(pages(args.pages, args.max_tokens))), done.set())
    )
    worker.start()
    readings: list[dict[str, Any]] = []
    disagreements: list[str] = []
    matched: dict[str, list[bool]] = {g: [] for g in GAUGES}
    while not done.is_set():
        text = fetch(root)
        snap = engine.stats()
        after = fetch(root)
        disagreements += same_text(text)
        if snap is None:
            disagreements.append("the engine read no snapshot")
        else:
            history.add(snap)
            wrong, gauges = check(direct(text), snap, direct(after))
            disagreements += wrong
            for key, ok in gauges.items():
                matched[key].append(ok)
            readings.append({"snapshot": snap.to_json(), "wrong": wrong, "gauges": gauges})
        done.wait(args.every)
    worker.join()
    end = direct(fetch(root))
    summary = history.summary()
    print(f"{len(outputs)} pages, {sum(o.ok for o in outputs)} ok; {len(readings)} readings")
    print(summary.line() if summary else "no summary (fewer than two readings)")
    for key in (
        "vllm:num_preemptions_total",
        "vllm:generation_tokens_total",
        "vllm:request_success_total|length",
    ):
        print(f"  direct {key}: +{end.get(key, 0.0) - start.get(key, 0.0):g} over the run")
    for key, oks in matched.items():
        print(f"  {key}: equal to a direct read around it in {sum(oks)} of {len(oks)} readings")
    for line in disagreements[:50]:
        print("DISAGREES", line)
    print("agreed" if not disagreements else f"{len(disagreements)} disagreements")
    if args.json:
        args.json.write_text(
            json.dumps({"readings": readings, "disagreements": disagreements}, indent=1)
        )
    engine.close()
    return 0 if not disagreements else 1


if __name__ == "__main__":
    raise SystemExit(main())
