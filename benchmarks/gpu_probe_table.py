"""The probe table from a probe run's saved files, against the planner as it is now.

    python benchmarks/gpu_probe_table.py [benchmarks/gpu_probe]

``python -m workbench probe ... --out DIR`` leaves, per (model, card), the job it started
(``*.job.json``: the exact ``vllm.LLM`` arguments), what the child measured
(``*.result.json``) and vLLM's own log lines (``*.vllm-lines.txt``, or the whole ``*.log``).
This rebuilds the Markdown table from them with the planner of the current tree, and says
whether the arguments the planner generates now are still exactly those that were run (if
not, that row's survival says nothing about today's plan). Needs no GPU.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from workbench.gpu.probe.cases import (  # noqa: E402
    CARDS,
    TABLE_HEAD,
    ProbeReport,
    plan_case,
    planned_numbers,
    read_outcome,
    report_row,
)


def main(folder: Path) -> int:
    rows = []
    for job_path in sorted(folder.glob("*.job.json")):
        stem = job_path.name.removesuffix(".job.json")
        job = json.loads(job_path.read_text())
        card = next(c for c in CARDS if stem.endswith("_" + c.name.replace(" ", "_")))
        plan, kwargs = plan_case(job["model"], card, "0.26.0")
        kwargs.pop("model")
        ran = {k: v for k, v in job["engine_args"].items()
               if k not in ("load_format", "gpu_memory_utilization")}  # fmt: skip
        now = {k: v for k, v in kwargs.items() if k != "gpu_memory_utilization"}
        same = json.dumps(ran, sort_keys=True, default=str) == json.dumps(
            now, sort_keys=True, default=str
        )
        report = ProbeReport(
            model=plan.model_id, card=card.name, card_gib=card.gib, profile=plan.profile,
            vllm_version="0.26.0", fits=plan.fits, planned=planned_numbers(plan),
        )  # fmt: skip
        log = folder / f"{stem}.log"
        if not log.exists():
            log = folder / f"{stem}.vllm-lines.txt"
        read_outcome(
            report, folder / f"{stem}.result.json", log, plan, job["pages"], job["max_tokens"]
        )
        if not (folder / f"{stem}.result.json").exists():
            report.verdict = "started; stopped before its pages finished (device time)"
        rows.append(report_row(report) + (" same arguments |" if same else " ARGUMENTS DIFFER |"))
    head, rule = TABLE_HEAD.splitlines()
    print(f"{head} arguments now |\n{rule}---|")
    for row in rows:
        print(row)
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "benchmarks" / "gpu_probe"))
