"""``python -m workbench plan --model MODEL [--profile NAME] [--card KEY] [--gpu-memory GiB]``
and ``python -m workbench plan --explain-error "PASTED ERROR"``.

Prints the memory plan as JSON: ``gpu`` (where the memory came from), ``card``,
``max_model_len``, ``kv_cache_bytes``, ``tokens_per_page``, ``pages_in_flight``,
``engine_args`` (the full ``vllm.LLM`` kwargs), ``serve_command``, the memory split, when a
page does not fit ``advice``, and ``if_out_of_memory``: vLLM's out-of-memory errors by their
text with the knob that fixes each, and the myths about them that concern this profile
(:mod:`workbench.gpu.oom_help`).

Which GPU (:mod:`workbench.gpu.target`): ``--gpu-memory`` (total GiB; free = total minus
``--used-memory``) > ``--card`` > the first NVIDIA GPU NVML sees (unless ``--profile`` names
another card's profile) > the profile's own card (no profile and no GPU: generic-24gb's
24 GiB card). Exit status 0 when a page fits, 1 when it does not, 2 on bad input.

``--explain-error TEXT`` (``-`` reads standard input) names the error(s) in a pasted log,
what each means and the knob that fixes it; exit status 0 when one matched, 1 when none did.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from workbench.errors import PlanError
from workbench.gpu import oom_help
from workbench.gpu.commands import engine_kwargs, example_curl, example_python, serve_command
from workbench.gpu.planner import plan_for_model
from workbench.gpu.profiles import profile_names
from workbench.gpu.target import card_keys, resolve_target
from workbench.gpu.telemetry import read_snapshot


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("plan", help="plan max_model_len and engine args for a GPU")
    parser.add_argument("--model", help="model id or alias, e.g. lightonai/…")
    parser.add_argument("--profile", choices=profile_names(), help="tuning profile")
    parser.add_argument("--card", choices=card_keys(), help="plan for this card's memory")
    parser.add_argument(
        "--vllm-version",
        help="the vLLM that will run it (default: the one installed here, else 0.26, the oldest "
        "supported: its planning is safe on every newer one)",
    )
    parser.add_argument("--gpu-memory", type=float, metavar="GiB", help="total GPU memory")
    parser.add_argument(
        "--used-memory", type=float, default=0.0, metavar="GiB", help="held by other processes"
    )
    parser.add_argument(
        "--explain-error",
        metavar="TEXT",
        help='a pasted vLLM/CUDA error or log ("-" reads stdin): what it means, what fixes it',
    )
    parser.set_defaults(func=run)


def explain_text(text: str) -> tuple[str, bool]:
    """The matched entries as plain text, and whether any matched."""
    found = oom_help.explain(text)
    if not found:
        known = "; ".join(e.title for e in oom_help.ERRORS)
        return f"No known out-of-memory error in that text. Known: {known}.", False
    blocks = []
    for i, entry in enumerate(found):
        head = "Most likely" if i == 0 else "Also matches"
        blocks.append(
            f"{head}: {entry.title} ({entry.stage})\n"
            f"  vLLM says: {entry.says}\n"
            f"  means: {entry.means}\n"
            f"  fix: {entry.fix}\n"
            f"  knobs: {', '.join(entry.knobs)}\n"
            f"  source (vLLM package): {entry.source}"
        )
    return "\n\n".join(blocks), True


def run(args: argparse.Namespace) -> int:
    if args.explain_error is not None:
        text = sys.stdin.read() if args.explain_error == "-" else args.explain_error
        explained, matched = explain_text(text)
        print(explained)
        return 0 if matched else 1
    if not args.model:
        raise PlanError("plan needs --model (or --explain-error TEXT)")
    target = resolve_target(
        read_snapshot(with_processes=False),
        args.profile,
        args.card,
        args.gpu_memory,
        args.used_memory,
    )
    plan, _arch, spec = plan_for_model(
        args.model, target.profile, target.total_bytes, target.free_bytes,
        vllm_version=getattr(args, "vllm_version", None),
    )  # fmt: skip
    kwargs = engine_kwargs(plan.model_id, spec, target.profile, plan)
    out: dict[str, Any] = {"gpu": target.source, "card": target.card.key if target.card else None}
    out.update(plan.to_json())
    out["engine_args"] = kwargs
    out["serve_command"] = serve_command(kwargs)
    out["example_curl"] = example_curl(spec)
    out["example_python"] = example_python(spec)
    out["probe_command"] = f"python -m workbench probe --model {plan.model_id} --here"
    errors, myths = oom_help.for_profile(target.profile.name)
    out["if_out_of_memory"] = {
        "errors": [oom_help.entry_json(e) for e in errors],
        "myths": [oom_help.myth_json(m) for m in myths],
        "explain": 'python -m workbench plan --explain-error "<pasted error>"',
    }
    print(json.dumps(out, indent=2))
    return 0 if plan.fits else 1
