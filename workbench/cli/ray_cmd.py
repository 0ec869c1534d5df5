"""``python -m workbench ocr ... --ray [ADDRESS]``: the ``ocr`` command on a Ray cluster.

Same inputs, same run folder, same lines and exit status as the local command
(:mod:`workbench.cli.ocr.cmd`); only where the pages are processed differs
(:mod:`workbench.cluster.ray_run`).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from workbench.cli.ocr.job import announce, engine_options, progress_printer, report, say
from workbench.cluster.ray_run import ClusterWork, run_on_ray
from workbench.documents import Document
from workbench.errors import display_name
from workbench.models.registry import get_spec
from workbench.pipeline.process import render_dpi
from workbench.settings import Settings


def run_ray(
    args: argparse.Namespace,
    settings: Settings,
    wanted: list[tuple[Document, list[int]]],
    run_name: str,
    failures: int,
) -> int:
    options, spec_id = engine_options(args, settings, plan_here=False)
    spec = get_spec(spec_id) if spec_id else None
    dpi = float(args.dpi or (render_dpi(spec, settings.dpi) if spec else settings.dpi))
    max_tokens = getattr(args, "max_tokens", None)
    work = ClusterWork(options, spec_id, dpi, settings, profile=args.profile, max_tokens=max_tokens)
    out: Path = args.out
    if not args.quiet:
        say("", f"{display_name(out)}: processing on the Ray cluster at {args.ray}")
    outcome = run_on_ray(
        args.ray,
        work,
        out,
        run_name,
        wanted,
        failed_inputs=failures,
        on_plan=lambda plan, job: announce(plan, job, args.quiet),
        on_page=progress_printer(args.quiet),
    )
    return report(args, outcome, failures)
