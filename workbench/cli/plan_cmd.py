"""``python -m workbench plan --model MODEL [--profile NAME] [--card KEY] [--gpu-memory GiB]``
and ``python -m workbench plan --explain-error "PASTED ERROR"``.

Prints a short summary: the vLLM release planned for (``--vllm-version``, else the one
installed here, else 0.26, the release proven on the H200) and how it was known, the numbers,
the ``vllm serve`` command, warnings about known-bad combinations (:mod:`workbench.gpu.compat`)
and what the plan would change on the other releases users run
(:mod:`workbench.gpu.release_plans`). ``--json`` prints the whole plan as JSON instead:
``gpu`` (where the memory came from), ``card``,
``max_model_len``, ``kv_cache_bytes``, ``tokens_per_page``, ``pages_in_flight``,
``engine_args`` (the full ``vllm.LLM`` kwargs), ``serve_command``, the memory split, when a
page does not fit ``advice``, and ``if_out_of_memory``: vLLM's out-of-memory errors by their
text with the knob that fixes each, and the myths about them that concern this profile
(:mod:`workbench.gpu.oom_help`), ``vllm`` (release, how known, ``warnings``,
``serve_defaults``, ``other_releases``, ``differs_on``).

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
from dataclasses import replace
from typing import Any

from workbench.errors import PlanError
from workbench.gpu import compat, oom_help, release_plans, vllm_versions
from workbench.gpu.launch import plan_launch
from workbench.gpu.profiles import profile_names
from workbench.gpu.target import card_keys, resolve_target
from workbench.gpu.telemetry import read_snapshot
from workbench.gpu.vllm_versions import installed_transformers


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("plan", help="plan max_model_len and engine args for a GPU")
    parser.add_argument("--model", help="model id or alias, e.g. lightonai/…")
    parser.add_argument("--profile", choices=profile_names(), help="tuning profile")
    parser.add_argument("--card", choices=card_keys(), help="plan for this card's memory")
    parser.add_argument(
        "--vllm-version",
        help="the vLLM release that will run it, e.g. 0.17.0, 0.30.0, 0.34.0 (default: the one "
        "installed here, else 0.26.0, the release the H200 probes ran on)",
    )
    parser.add_argument("--json", action="store_true", help="print the whole plan as JSON")
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
    which = release_plans.which_vllm(args.vllm_version)
    launch = plan_launch(
        args.model, target.profile, target.total_bytes, target.free_bytes,
        vllm_version=which.version,
    )  # fmt: skip
    plan, spec = launch.plan, launch.spec
    out: dict[str, Any] = {"gpu": target.source, "card": target.card.key if target.card else None}
    out.update(plan.to_json())
    out["engine_args"] = launch.kwargs
    out["serve_command"] = launch.serve_command
    out["example_curl"] = launch.example_curl
    out["example_python"] = launch.example_python
    out["probe_command"] = f"python -m workbench probe --model {plan.model_id} --here"
    errors, myths = oom_help.for_profile(target.profile.name)
    out["if_out_of_memory"] = {
        "errors": [oom_help.entry_json(e) for e in errors],
        "myths": [oom_help.myth_json(m) for m in myths],
        "explain": 'python -m workbench plan --explain-error "<pasted error>"',
    }
    out["vllm"] = vllm_facts(which, plan, spec, target, launch.kwargs)
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        print(summary(out))
    return 0 if plan.fits else 1


def vllm_facts(
    which: release_plans.WhichVllm, plan: Any, spec: Any, target: Any, kwargs: dict[str, Any]
) -> dict[str, Any]:
    """The release-dependent part of the plan (module doc)."""
    card = target.card.name if target.card else ""
    gpu_name = target.gpu.name if target.gpu is not None else card  # A100s differ by name
    setup = compat.Setup(
        which.version, spec, target.total_bytes, gpu_name,
        transformers=installed_transformers() if which.how == "installed here" else None,
        kwargs=kwargs,
    )  # fmt: skip
    warnings = compat.warnings(setup)
    bare = replace(setup, kwargs={k: v for k, v in kwargs.items() if k != "max_num_seqs"})
    # What a command without --max-num-seqs would hit (vllm serve's default on big cards).
    serve_warnings = [w for w in compat.warnings(bare) if w not in warnings]
    if not which.supported:
        warnings.insert(0, f"vLLM {which.version} is outside the supported range "
                        f"{vllm_versions.OLDEST}–{vllm_versions.NEWEST}: planned as the "
                        "nearest release read")  # fmt: skip
    rows = release_plans.compare(spec, target.profile, target.total_bytes, target.free_bytes)
    mnbt, seqs = compat.serve_defaults(which.version, target.total_bytes, gpu_name)
    return {
        "version": which.version,
        "how": which.how,
        "warnings": warnings,
        "serve_defaults": {
            "max_num_batched_tokens": mnbt,
            "max_num_seqs": seqs,
            "warnings": serve_warnings,
        },
        "reproducible_kv_cache_memory_bytes": plan.kv_cache_bytes if plan.fits else None,
        "other_releases": [r.as_dict() for r in rows],
        "differs_on": release_plans.differences(plan, rows),
    }


def summary(out: dict[str, Any]) -> str:
    """The plan in a few lines (``--json`` prints everything)."""
    v = out["vllm"]
    gib = 1024**3
    lines = [
        f"{out['model']} on {out['gpu']}, profile {out['profile']}, for vLLM {v['version']} "
        f"({v['how']})",
        f"{'Fits' if out['fits'] else 'Does NOT fit'}: max_model_len {out['max_model_len']:,}, "
        f"KV cache {out['kv_cache_bytes'] / gib:.1f} GiB, {out['tokens_per_page']:,} tokens a "
        f"page, {out['pages_in_flight']:,} pages in flight",
    ]
    lines += [f"WARNING: {w}" for w in v["warnings"]]
    lines += [f"  - {a}" for a in out["advice"]]
    if out["fits"]:
        lines += ["", out["serve_command"], ""]
        if v["reproducible_kv_cache_memory_bytes"]:
            lines.append(
                "For the same KV size on every start: --kv-cache-memory-bytes "
                f"{v['reproducible_kv_cache_memory_bytes']} (then utilization is not used)."
            )
    d = v["serve_defaults"]
    lines.append(
        f"vllm serve without these flags would use max_num_batched_tokens "
        f"{d['max_num_batched_tokens']:,} and max_num_seqs {d['max_num_seqs']:,} on this card."
    )
    lines += [f"  and then: {w}" for w in d["warnings"]]
    if v["differs_on"]:
        lines.append("On other vLLM releases this plan changes:")
        lines += [f"  {line}" for line in v["differs_on"]]
    lines.append("Everything, as JSON: add --json")
    return "\n".join(lines)
