"""``python -m workbench probe``: prove memory plans on this GPU with real vLLM.

    python -m workbench probe --model lightonai/LightOnOCR-2-1B --card all --out probe/
    python -m workbench probe --model datalab-to/chandra --card "A100 40GB" --card 12
    python -m workbench probe --model lightonai/LightOnOCR-2-1B --here   # this GPU as it is
    python -m workbench probe --model allenai/olmOCR-2-7B-1025 --card H100 --eager  # starts fast

Each (model, card) starts vLLM in a child process with exactly the arguments the workbench
generates for that card (``load_format="dummy"``: no weights needed, the model's config,
tokenizer and processor files must be in the Hugging Face cache; ``python -m
workbench.models.weightless`` writes weightless ones), a ballast holding the rest of this GPU
so a smaller card's overshoot fails as it would there, then the most pages the plan allows at
once at the largest page size (:mod:`workbench.gpu.probe.cases`). Prints a Markdown table of planned
against measured (``--out``: also ``probe.json`` and ``probe.md`` and each run's vLLM log).
Exit status 0 when every started plan survived, 1 when one failed, 2 on bad input or no GPU.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from workbench.errors import PlanError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("probe", help="start real vLLM with each plan and push it")
    parser.add_argument("--model", action="append", required=True, help="model id (repeat)")
    parser.add_argument(
        "--card", action="append", help="card name, profile, GiB, or 'all' (repeat; default all)"
    )
    parser.add_argument("--here", action="store_true", help="this GPU as it is: no ballast")
    parser.add_argument("--pages", type=int, default=256, help="at most this many pages at once")
    parser.add_argument("--max-tokens", type=int, default=64, help="output tokens a page")
    parser.add_argument("--timeout", type=float, default=420.0, help="seconds a run at most")
    parser.add_argument("--page-pdf", default="", help="a PDF whose first page is sent")
    parser.add_argument("--out", type=Path, default=Path("probe-out"), help="folder for logs")
    parser.add_argument(
        "--eager", action="store_true",
        help="enforce_eager over the plan: starts in seconds (no compile, no CUDA graphs)",
    )  # fmt: skip
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from workbench.gpu.probe.cases import (
        CARDS,
        TABLE_HEAD,
        Card,
        find_card,
        report_row,
        run_case,
        save,
    )
    from workbench.gpu.telemetry import read_snapshot

    snap = read_snapshot(with_processes=False)
    if snap.first is None:
        raise PlanError(f"probe needs an NVIDIA GPU with vLLM installed ({snap.summary()})")
    names = args.card or ["all"]
    if args.here:
        gpu = snap.first
        from workbench.gpu.profiles import detect_profile

        profile = detect_profile(gpu.name, gpu.cuda_total_bytes).name
        cards: list[Card] = [Card(gpu.name, gpu.cuda_total_bytes / 1024**3, profile)]
    else:
        cards = list(CARDS) if "all" in names else [find_card(n) for n in names]
    reports = []
    print(TABLE_HEAD, flush=True)
    for model in args.model:
        for card in cards:
            report = run_case(
                model, card, workdir=args.out, pages_cap=args.pages, max_tokens=args.max_tokens,
                timeout_s=args.timeout, ballast=not args.here, page_pdf=args.page_pdf,
                eager=args.eager,
            )  # fmt: skip
            reports.append(report)
            print(report_row(report), flush=True)
            save(reports, args.out / "probe.json")
    table = "\n".join([TABLE_HEAD, *(report_row(r) for r in reports)])
    (args.out / "probe.md").write_text(table + "\n")
    return 0 if all(r.ok for r in reports) else 1
