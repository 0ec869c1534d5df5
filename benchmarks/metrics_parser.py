"""The Prometheus parser the workbench uses (``prometheus_client``, engines/stats.py) beside the
regex one ``benchmarks/vllm_breakdown.py`` had before, on a vLLM ``/metrics`` page.

Why: telemetry reads ``/metrics`` every 2 s per session while pages run, so its cost must stay
far below the poll interval. The page is ``tests/data/vllm_metrics_sample.txt`` repeated with
the engine label changed (``--engines``: a data-parallel server writes each family per engine).
Both parsers run alternately, ``--rounds`` times; medians in µs per page and their ratio.

    python benchmarks/metrics_parser.py [--engines 8] [--rounds 200]
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from workbench.engines.stats import sample_totals, stats_from_text  # noqa: E402

_LINE = re.compile(r"^([A-Za-z_:][\w:]*)(\{[^}]*\})?\s+(\S+)")


def regex_parse(text: str) -> dict[str, float]:
    """The hand parser vllm_breakdown.py had (the peer; sums over label sets)."""
    values: dict[str, float] = {}
    for line in text.splitlines():
        match = _LINE.match(line)
        if match is None or line.startswith("#"):
            continue
        try:
            value = float(match.group(3))
        except ValueError:
            continue
        values[match.group(1)] = values.get(match.group(1), 0.0) + value
    return values


def page(engines: int) -> str:
    """Each family's HELP and TYPE once, then its samples for every engine (as vLLM writes)."""
    one = (ROOT / "tests/data/vllm_metrics_sample.txt").read_text()
    lines: list[str] = []
    block: list[str] = []
    for line in [*one.splitlines(), "# HELP end"]:
        if line.startswith("# HELP") and block:
            lines += [
                ln.replace('engine="0"', f'engine="{e}"') for e in range(engines) for ln in block
            ]
            block = []
        if line.startswith(("# HELP", "# TYPE")) and line != "# HELP end":
            lines.append(line)
        elif line and not line.startswith("#"):
            block.append(line)
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    text = page(args.engines)
    assert regex_parse(text).keys() <= sample_totals(text).keys()
    runs: dict[str, list[float]] = {"regex": [], "prometheus_client": [], "snapshot": []}
    for _ in range(args.rounds):
        for name, parse in (("regex", regex_parse), ("prometheus_client", sample_totals),
                            ("snapshot", stats_from_text)):  # fmt: skip
            start = time.perf_counter()
            parse(text)
            runs[name].append(time.perf_counter() - start)
    lines = len(text.splitlines())
    print(f"{lines} sample lines ({args.engines} engines), {args.rounds} rounds, medians:")
    base = statistics.median(runs["regex"])
    for name, times in runs.items():
        median = statistics.median(times)
        print(f"  {name:18s} {median * 1e6:8.0f} µs  {median / base:5.2f}x regex")


if __name__ == "__main__":
    main()
