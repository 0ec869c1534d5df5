"""What the ``ocr`` command shares between its local run (:mod:`workbench.cli.ocr.cmd`) and
its Ray run (:mod:`workbench.cli.ray_cmd`): the engine the arguments ask for, the lines it
prints and its exit status (contract: :mod:`workbench.cli.ocr.cmd`)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.engines.factory import CpuOptions, EngineOptions, LocalOptions, ServerOptions
from workbench.errors import UsageError, display_name
from workbench.models.registry import get_spec
from workbench.pipeline.process import OnPage
from workbench.pipeline.request import RunRequest
from workbench.pipeline.runner import DocumentPlan, RunJob, RunOutcome
from workbench.schema import PageResult, PageStatus
from workbench.settings import Settings

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_UNCLEAN, EXIT_DISK_FULL = 0, 1, 2, 3, 4


def say(kind: str, text: str) -> None:
    """One line on stderr: ``error: ...``, ``warning: ...`` or a plain progress line."""
    print(f"{kind}: {text}" if kind else text, file=sys.stderr)


#: glibc's mallopt parameter for the size from which a block is its own mapping.
_M_MMAP_THRESHOLD = -3


def return_big_buffers(threshold: int = 1 << 20) -> bool:
    """Give every buffer of ``threshold`` bytes or more its own mapping, returned to the system
    when freed (glibc; elsewhere nothing happens, False). Why: glibc raises that threshold
    each time such a buffer is freed, after which page images and input files (megabytes
    each) are carved from the heap, which does not shrink: the CLI's memory grew with the
    number of inputs (20 → 60 inputs of 8 MB: 377 → 476 MB; with this, 309 → 352 MB)."""
    import ctypes

    try:
        libc = ctypes.CDLL("libc.so.6")
        return bool(libc.mallopt(_M_MMAP_THRESHOLD, threshold))
    except (OSError, AttributeError):
        return False


def run_request(args: argparse.Namespace, settings: Settings) -> RunRequest:
    """The run the ``ocr`` arguments ask for: the one place the namespace is read for it.
    Raises :class:`UsageError` naming the argument that does not apply."""
    if args.max_tokens is not None and args.max_tokens < 1:
        raise UsageError(f"--max-tokens must be 1 or more, not {args.max_tokens}")
    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers must be 1 or more, not {args.workers}")
    cpu = cpu_settings(args)
    if args.engine_arg and args.engine != "vllm":
        raise UsageError("--engine-arg applies to --engine vllm only")
    if args.engine != "cpu" and (args.workers is not None or cpu):
        flags = {"text_layer": "--text-layer", "detect_tables": "--no-tables"}
        first = next(iter(cpu), "")
        given = flags.get(first, "--handwriting-threshold")
        given = "--workers" if args.workers is not None else given
        raise UsageError(f"{given} applies to --engine cpu only")
    options, spec_id = _OPTIONS[args.engine](args, settings)
    return RunRequest(
        options=options,
        spec_id=spec_id,
        max_tokens=args.max_tokens,
        pages=args.pages,
        dpi=args.dpi,
        profile=args.profile,
        settings=settings,
    )


def _cpu_options(args: argparse.Namespace, settings: Settings) -> tuple[EngineOptions, str]:
    return CpuOptions(workers=args.workers or 1, **cpu_settings(args)), "cpu"


def _server_options(
    args: argparse.Namespace, settings: Settings
) -> tuple[EngineOptions, str | None]:
    server = ServerOptions(
        base_url=args.base_url or settings.base_url,
        api_key=args.api_key or settings.api_key,
        model=args.model,
        concurrency=settings.concurrency,
        timeout=settings.timeout,
    )
    return server, args.spec


def _local_options(args: argparse.Namespace, settings: Settings) -> tuple[EngineOptions, str]:
    """Unplanned: the machine that loads it plans it (:meth:`RunRequest.planned`); the
    arguments given here go over the plan."""
    if not args.model:
        raise UsageError("--engine vllm needs --model MODEL_ID")
    spec = get_spec(args.spec or args.model)
    engine_args = extra_engine_args(args.engine_arg)
    if args.max_num_batched_tokens:  # the fix a dead engine names
        engine_args["max_num_batched_tokens"] = args.max_num_batched_tokens
    local = LocalOptions(model=spec.id, engine_args=engine_args, concurrency=args.concurrency)
    return local, spec.id


#: what an ``--engine`` kind's options are read into: the options and the model spec id
#: (None: the one matching the served model)
OptionsFrom = Callable[[argparse.Namespace, Settings], tuple[EngineOptions, str | None]]

#: each ``--engine`` kind's reader (a registry: no if-chain over the kinds)
_OPTIONS: dict[str, OptionsFrom] = {
    "cpu": _cpu_options,
    "vllm-server": _server_options,
    "vllm": _local_options,
}


def extra_engine_args(pairs: list[str]) -> dict[str, Any]:
    """``--engine-arg KEY=VALUE`` pairs as keywords (VALUE parsed as JSON when it is JSON)."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--engine-arg wants KEY=VALUE, not {pair!r}")
        try:
            out[key.strip()] = json.loads(value)
        except ValueError:
            out[key.strip()] = value
    return out


def cpu_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The CPU engine settings the arguments give (only those given)."""
    given: dict[str, Any] = {}
    if args.text_layer:
        given["text_layer"] = args.text_layer
    if args.no_tables:
        given["detect_tables"] = False
    threshold = args.handwriting_threshold
    if threshold is not None:
        if not 0 <= threshold <= 100:
            raise UsageError(f"--handwriting-threshold must be 0-100, not {threshold:g}")
        given["handwriting_threshold"] = threshold
    return given


def announce(plan: DocumentPlan, job: RunJob, quiet: bool) -> None:
    """The lines a document's plan deserves: a renamed twin, pages already done."""
    if plan.name != plan.document.name:
        say(
            "",
            f"{display_name(plan.document.name)}: another document in this run has that name; "
            f"this one is {display_name(plan.name)} in {job.writer.folder_name(plan.name)}/",
        )
    if plan.already_done and not quiet:
        say("", f"{display_name(plan.name)}: {plan.already_done} page(s) already done, skipped")


def progress_printer(quiet: bool, engine: Any = None) -> OnPage:
    """Per page: ``error:``/``warning:`` for pages that did not finish cleanly, then (unless
    quiet) ``name: page P (i/n) status seconds, pages/s, time left``. A dead engine (its
    ``dead`` attribute set, :mod:`workbench.engines.dead`) is said once, at the first page it
    failed, not once per page left: nothing more is sent to it, the rest fail at once."""
    start = time.monotonic()
    dead_said = False

    def progress(i: int, n: int, result: PageResult) -> None:
        nonlocal dead_said
        name = display_name(result.document)
        dead = getattr(engine, "dead", None)
        if result.status is PageStatus.ERROR and dead is not None and result.error == str(dead):
            if not dead_said:
                dead_said = True
                say("error", f"the engine died (at {name} page {result.page}): {dead}")
            return  # its pages were not processed: no line each
        if result.status is PageStatus.ERROR:
            say("error", f"{name} page {result.page}: {result.error}")
        elif result.status in (PageStatus.LOOPED, PageStatus.TRUNCATED):
            note = result.notes[-1] if result.notes else ""
            say("warning", f"{name} page {result.page} is {result.status.value}: {note}")
        elif result.low_confidence:  # the CPU engine's readers were unsure (schema.LOW_CONFIDENCE)
            why = f": {result.notes[-1]}" if result.notes else ""  # e.g. its writing went unread
            say(
                "warning",
                f"{name} page {result.page}: low confidence ({result.confidence:.2f}){why}",
            )
        if quiet:
            return
        rate = i / max(time.monotonic() - start, 1e-6)
        eta = (n - i) / rate if rate else 0.0
        say(
            "",
            f"{name}: page {result.page} ({i}/{n}) {result.status.value} "
            f"{result.seconds:.1f}s  {rate:.2f} pages/s, {eta:.0f}s left",
        )

    return progress


@dataclass(frozen=True)
class Output:
    """Where the run goes and how much is said: the run folder (``--out``), the run's name
    there and ``--quiet``."""

    folder: Path
    run_name: str
    quiet: bool = False


def report(out: Output, outcome: RunOutcome, failures: int) -> int:
    """The closing line and the exit status (see the module docstring)."""
    if not out.quiet:
        say(
            "",
            f"{display_name(out.folder)}: run {outcome.status.value}, {outcome.written} page(s) "
            f"written, {len(outcome.failed)} failed, {len(outcome.unclean)} looped or truncated",
        )
    if failures or outcome.failed:
        return EXIT_FAILED
    return EXIT_UNCLEAN if outcome.unclean else EXIT_OK
