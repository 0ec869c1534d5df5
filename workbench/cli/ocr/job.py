"""What the ``ocr`` command shares between its local run (:mod:`workbench.cli.ocr.cmd`) and
its Ray run (:mod:`workbench.cli.ray_cmd`): the engine the arguments ask for, the lines it
prints and its exit status (contract: :mod:`workbench.cli.ocr.cmd`)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import TYPE_CHECKING, Any

from workbench.engines.factory import EngineOptions
from workbench.errors import EngineUnavailable, display_name
from workbench.models.registry import ModelSpec, get_spec
from workbench.pipeline.process import OnPage
from workbench.pipeline.runner import DocumentPlan, RunJob, RunOutcome
from workbench.schema import PageResult, PageStatus
from workbench.settings import Settings

if TYPE_CHECKING:
    from workbench.gpu.launch import LocalLaunch

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


def engine_options(
    args: argparse.Namespace, settings: Settings, *, plan_here: bool = True
) -> tuple[EngineOptions, str | None]:
    """The engine the arguments ask for, and its model spec id (None: match the served
    model). ``plan_here=False`` leaves the in-process engine's memory plan to the machine
    that loads it (a Ray GPU worker)."""
    import workbench.engines.factory as factory

    workers = getattr(args, "workers", None)  # ray's namespace may lack it
    if workers is not None and workers < 1:
        raise EngineUnavailable(f"--workers must be 1 or more, not {workers}")
    cpu = cpu_settings(args)
    if getattr(args, "engine_arg", None) and args.engine != "vllm":
        raise EngineUnavailable("--engine-arg applies to --engine vllm only")
    if args.engine == "cpu":
        return factory.CpuOptions(workers=workers or 1, **cpu), "cpu"
    if workers is not None or cpu:
        flags = {"text_layer": "--text-layer", "detect_tables": "--no-tables"}
        first = next(iter(cpu), "")
        given = "--workers" if workers is not None else flags.get(first, "--handwriting-threshold")
        raise EngineUnavailable(f"{given} applies to --engine cpu only")
    if args.engine == "vllm-server":
        server = factory.ServerOptions(
            base_url=args.base_url or settings.base_url,
            api_key=args.api_key or settings.api_key,
            model=args.model,
            concurrency=settings.concurrency,
            timeout=settings.timeout,
        )
        return server, args.spec
    if not args.model:
        raise EngineUnavailable("--engine vllm needs --model MODEL_ID")
    spec = get_spec(args.spec or args.model)
    # Planned for the run's own output bound: pages in flight depend on it.
    bounded = spec.with_max_tokens(getattr(args, "max_tokens", None))
    launch = local_launch(bounded, args.profile) if plan_here else None
    engine_args = dict(launch.kwargs) if launch is not None else {}
    engine_args.update(extra_engine_args(getattr(args, "engine_arg", None) or []))
    if getattr(args, "max_num_batched_tokens", None):  # the fix a dead engine names
        engine_args = {**engine_args, "max_num_batched_tokens": args.max_num_batched_tokens}
    # Pages in flight: --concurrency, else what the plan says the KV cache holds at once.
    in_flight = getattr(args, "concurrency", None) or (
        launch.plan.pages_in_flight if launch is not None else None
    )
    local = factory.LocalOptions(model=spec.id, engine_args=engine_args, concurrency=in_flight)
    return local, spec.id


def extra_engine_args(pairs: list[str]) -> dict[str, Any]:
    """``--engine-arg KEY=VALUE`` pairs as keywords (VALUE parsed as JSON when it is JSON)."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise EngineUnavailable(f"--engine-arg wants KEY=VALUE, not {pair!r}")
        try:
            out[key.strip()] = json.loads(value)
        except ValueError:
            out[key.strip()] = value
    return out


def cpu_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The CPU engine settings the arguments give (only those given; ray's namespace may
    lack them)."""
    given: dict[str, Any] = {}
    if getattr(args, "text_layer", None):
        given["text_layer"] = args.text_layer
    if getattr(args, "no_tables", False):
        given["detect_tables"] = False
    threshold = getattr(args, "handwriting_threshold", None)
    if threshold is not None:
        if not 0 <= threshold <= 100:
            raise EngineUnavailable(f"--handwriting-threshold must be 0-100, not {threshold:g}")
        given["handwriting_threshold"] = threshold
    return given


def local_launch(spec: ModelSpec, profile_name: str | None) -> LocalLaunch:
    """The launch for ``spec`` on this machine's first GPU (see :mod:`workbench.gpu.launch`):
    its vllm.LLM keyword arguments and plan; refuses with the planner's advice when a page
    cannot fit."""
    from workbench.gpu.launch import plan_local_launch

    return plan_local_launch(spec, profile_name)


def local_engine_args(spec: ModelSpec, profile_name: str | None) -> dict[str, Any]:
    """vllm.LLM keyword arguments for ``spec`` on this machine's first GPU ("model" included)."""
    return local_launch(spec, profile_name).kwargs


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
            say("warning", f"{name} page {result.page}: low confidence ({result.confidence:.2f})")
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


def report(args: argparse.Namespace, outcome: RunOutcome, failures: int) -> int:
    """The closing line and the exit status (see the module docstring)."""
    if not args.quiet:
        say(
            "",
            f"{display_name(args.out)}: run {outcome.status.value}, {outcome.written} page(s) "
            f"written, {len(outcome.failed)} failed, {len(outcome.unclean)} looped or truncated",
        )
    if failures or outcome.failed:
        return EXIT_FAILED
    return EXIT_UNCLEAN if outcome.unclean else EXIT_OK
