"""benchmarks/gpu_throughput.py's report: its modes' labels, pages/s per run and the Markdown
table of medians and ratios (a run that failed a page is no rate)."""

from __future__ import annotations

import statistics
from typing import Any

CLIS = {"server-cli": "", "server-cli-b": " (candidate server)"}
BASELINES = {"server-raw": "server", "server-chandra": "server, Chandra's client"}
SETS = {"a": "one long PDF", "b": "folder of short PDFs"}


def rate(row: dict[str, Any], key: str = "seconds") -> float:
    return float(row.get("pages", 0)) / row[key] if row.get(key) else 0.0


def median_rate(rows: list[dict[str, Any]], key: str = "seconds") -> float:
    """The median pages/s of the runs that ended with every page answered (a server that died
    answers its remaining pages with 500s at once: such a run is no rate)."""
    rates = [
        rate(r, key) for r in rows if r.get(key) and not r.get("failed") and not r.get("error")
    ]
    return statistics.median(rates) if rates else 0.0


def table(results: dict[str, dict[str, Any]]) -> str:
    lines = ["| set | engine, baseline client | pages | baseline pages/s (median) | workbench "
             "pages/s (median, after ready) | workbench pages/s (median, wall) | ratio after "
             "ready | ratio wall |",
             "|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for name, modes in results.items():
        # one row per baseline client (raw, Chandra's) and CLI server; a CLI alone gets a row
        baselines = [(m, modes[m]) for m in BASELINES if modes.get(m)]
        for cli_mode, label in CLIS.items():
            cli = modes.get(cli_mode) or []
            for mode, raw in (baselines or [("server-raw", [])]) if cli else []:
                r, ready, wall = (median_rate(raw), median_rate(cli, "after_ready_s"),
                                  median_rate(cli))  # fmt: skip
                pages = (raw or cli)[0].get("pages", 0)
                ratio = f"{ready / r:.3f}" if r else "—"
                ratio_wall = f"{wall / r:.3f}" if r else "—"
                head = f"| {name} ({SETS[name]}) | {BASELINES[mode]}{label} | {pages} | "
                lines.append(f"{head}{r:.2f} | {ready:.2f} | {wall:.2f} | {ratio} | {ratio_wall} |")
        local = modes.get("local")
        if local and local.get("raw_pages_s"):
            r, w = local["raw_pages_s"], local.get("workbench_pages_s") or 0.0
            pages = local["rounds"]["raw"][0]["pages"]
            lines.append(f"| {name} ({SETS[name]}) | in process | {pages} | {r:.2f} | — | "
                         f"{w:.2f} | — | {w / r:.3f} |")  # fmt: skip
    return "\n".join(lines)
