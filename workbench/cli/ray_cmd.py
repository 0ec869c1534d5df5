"""``python -m workbench ocr ... --ray [ADDRESS]``: the ``ocr`` command on a Ray cluster.

Same inputs, same run folder, same lines and exit status as the local command
(:mod:`workbench.cli.ocr.cmd`); only where the pages are processed differs
(:mod:`workbench.cluster.ray_run`).
"""

from __future__ import annotations

from workbench.cli.ocr.job import Output, announce, progress_printer, report, say
from workbench.cluster.ray_run import run_on_ray
from workbench.documents import Document
from workbench.errors import display_name
from workbench.pipeline.request import RunRequest


def run_ray(
    address: str,
    request: RunRequest,
    out: Output,
    wanted: list[tuple[Document, list[int]]],
    failures: int,
) -> int:
    if not out.quiet:
        say("", f"{display_name(out.folder)}: processing on the Ray cluster at {address}")
    outcome = run_on_ray(
        address,
        request,
        out.folder,
        out.run_name,
        wanted,
        failed_inputs=failures,
        on_plan=lambda plan, job: announce(plan, job, out.quiet),
        on_page=progress_printer(out.quiet),
    )
    return report(out, outcome, failures)
