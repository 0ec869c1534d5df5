"""``python -m workbench ocr INPUT... --out DIR``: OCR documents into a run folder.

Output contract (other tools and the benchmarks rely on it), for each input::

    DIR/<input stem>/document.json       the document: name in the run, sha256, kind, pages
    DIR/<input stem>/page-0001.png       the page image the engine saw
    DIR/<input stem>/page-0001.md        the page Markdown
    DIR/<input stem>/page-0001.json      page, width, height, engine, model, regions
                                         (label, native_label, bbox [x0,y0,x1,y1] in pixels
                                         of the PNG, text), markdown, timing, status
    DIR/<input stem>/page-0001.raw.txt   the model's raw output (VLM engines)
    DIR/<input stem>/page-0001-rN.png    crops of figure regions (the Markdown links them)
    DIR/<input stem>/document.md
    DIR/manifest.json                    the run: engine, model, settings, per-page status

The folder is written by :mod:`workbench.pipeline.runner`, as the app writes its runs. Each
page's files are written as soon as that page is done, ``.json`` last, with the user's umask.
``DIR`` is a run folder: run the same command again (same ``--run-name``, default the folder's
name) and an interrupted run resumes; finished pages are neither redone nor rewritten, pages
that failed are tried again, and when nothing is left the command says so and exits 0 without
starting the engine. Documents are recognised by content (sha256), not by name: two inputs
named alike get two folders (``doc``, ``doc-2``), and a changed file is not "already done".
``--workers N`` (``--engine cpu`` only; default 1) runs N pages at once in N worker
processes, each loading the CPU engine's models once (about N times the memory); the page
files are the same as with one worker (only the measured ``seconds`` differ).
``--max-tokens N`` bounds every page's answer (default: the model's own), recorded in the run.
``--engine-arg KEY=VALUE`` (``--engine vllm``, repeatable) passes a ``vllm.LLM`` keyword over
the planned ones (VALUE read as JSON when it parses: ``load_format=dummy``,
``max_num_batched_tokens=4096``, ``enforce_eager=true``).
``--text-layer``, ``--no-tables`` and ``--handwriting-threshold`` (``--engine cpu`` only) are
the sidebar's engine settings, recorded in the manifest. A run keeps one configuration: the
same ``--out`` with another engine, model, DPI or engine setting is refused (exit 2) with the
differences named, before anything is written.
An input directory stands for the supported files directly inside it; the others are listed
in one ``warning:`` line. A bad input prints one ``error:`` line naming it and why; the
others are still processed. File names in messages are escaped when not printable.

Exit status:

    0    every page asked for finished cleanly (or was already done)
    1    some input could not be read, or some page failed (``error``)
    2    usage, engine or run-folder error: nothing was processed
    3    every page finished, but some are ``looped`` or ``truncated`` (a ``warning:``
         line names each); their output is kept
    130  interrupted (Ctrl-C); finished pages are kept, the run is marked cancelled
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from workbench.cli.run_folder import (
    existing_run,
    nothing_left,
    stated_differ,
)
from workbench.documents import Document, open_document, poppler_available, read_input
from workbench.engines.factory import EngineOptions
from workbench.errors import DocumentError, EngineUnavailable, WorkbenchError, display_name
from workbench.models.registry import ModelSpec, get_spec, match_served_model
from workbench.pipeline.process import OnPage, render_dpi
from workbench.pipeline.runner import (
    DocumentPlan,
    RunJob,
    RunOutcome,
    run_documents,
    run_info,
    with_max_tokens,
)
from workbench.schema import PageResult, PageStatus
from workbench.settings import Settings

SUFFIXES = {".pdf", ".png", ".jpg", ".jpeg", ".tif", ".tiff", ".webp", ".bmp"}
EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_UNCLEAN = 0, 1, 2, 3


def register(sub: Any) -> None:
    p = sub.add_parser(
        "ocr",
        help="OCR PDFs and images into a run folder",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("inputs", nargs="+", metavar="INPUT", type=Path)
    p.add_argument("--out", required=True, type=Path, metavar="DIR")
    p.add_argument("--engine", default="cpu", choices=["cpu", "vllm-server", "vllm"])
    p.add_argument("--pages", metavar="SPEC", help="page range such as 1,3-5 (default: all)")
    p.add_argument("--dpi", type=int, help="PDF rendering DPI (default: the model's rule)")
    p.add_argument(
        "--pdf-backend",
        choices=["pdfium", "poppler"],
        help="PDF rasterizer: pdfium (default, built in) or poppler (needs pdftoppm)",
    )
    p.add_argument("--base-url", help="OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1")
    p.add_argument("--api-key")
    p.add_argument("--model", help="served model name (vllm-server) or model id (vllm)")
    p.add_argument("--spec", help="model spec id, when the served name does not match one")
    p.add_argument("--concurrency", type=int, help="pages in flight against the server")
    p.add_argument(
        "--workers",
        type=int,
        metavar="N",
        help="--engine cpu: pages in parallel in N worker processes (default: 1)",
    )
    cpu = p.add_argument_group("--engine cpu settings (recorded in the run; see the sidebar)")
    cpu.add_argument(
        "--text-layer",
        choices=["auto", "never", "only"],
        help="PDF text layer: auto (default: read it where trustworthy, OCR the rest), "
        "never (OCR every page, as a scan), only (the layer alone, no OCR)",
    )
    cpu.add_argument("--no-tables", action="store_true", help="no table detection")
    cpu.add_argument(
        "--handwriting-threshold",
        type=float,
        metavar="CONF",
        help="median Tesseract confidence (0-100) under which a page is read as handwriting "
        "(default: 60)",
    )
    p.add_argument("--timeout", type=float, help="seconds per request")
    p.add_argument(
        "--max-tokens", type=int, metavar="N", help="most tokens a page's answer may have"
    )
    p.add_argument(
        "--engine-arg",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="--engine vllm: a vllm.LLM keyword over the planned ones (VALUE as JSON if it parses)",
    )
    p.add_argument("--profile", help="GPU tuning profile for --engine vllm")
    p.add_argument(
        "--max-num-batched-tokens", type=int, metavar="N",
        help="--engine vllm: tokens vLLM schedules per step (4096: one page per vision-encoder "
        "step, the fix when vLLM ran out of GPU memory in the encoder)",
    )  # fmt: skip
    p.add_argument("--run-name", help="name of the run; the same name resumes it")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    p.add_argument(
        "--ray",
        nargs="?",
        const="auto",
        metavar="ADDRESS",
        help="run on a Ray cluster: auto (default), local, or HOST:PORT (pip install -e '.[ray]')",
    )
    p.set_defaults(func=run)


def say(kind: str, text: str) -> None:
    """One line on stderr: ``error: ...``, ``warning: ...`` or a plain progress line."""
    print(f"{kind}: {text}" if kind else text, file=sys.stderr)


def expand_inputs(inputs: list[Path]) -> tuple[list[Path], list[str]]:
    """Files to read (a folder stands for its supported files) and, per folder, one line
    listing what was left out."""
    files: list[Path] = []
    skipped: list[str] = []
    for path in inputs:
        if not path.is_dir():
            files.append(path)
            continue
        entries = sorted(path.iterdir())
        files.extend(p for p in entries if p.suffix.lower() in SUFFIXES and not p.is_dir())
        left = [
            display_name(p.name + ("/" if p.is_dir() else ""))
            for p in entries
            if p.is_dir() or p.suffix.lower() not in SUFFIXES
        ]
        if left:
            skipped.append(
                f"{display_name(path)}: skipped {len(left)} unsupported file(s): {', '.join(left)}"
            )
    return files, skipped


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
    cpu = _cpu_settings(args)
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
        options = factory.ServerOptions(
            base_url=args.base_url or settings.base_url,
            api_key=args.api_key or settings.api_key,
            model=args.model,
            concurrency=settings.concurrency,
            timeout=settings.timeout,
        )
        return options, args.spec
    if not args.model:
        raise EngineUnavailable("--engine vllm needs --model MODEL_ID")
    spec = get_spec(args.spec or args.model)
    engine_args = local_engine_args(spec, args.profile) if plan_here else {}
    engine_args.update(extra_engine_args(getattr(args, "engine_arg", None) or []))
    if getattr(args, "max_num_batched_tokens", None):  # the fix a dead engine names
        engine_args = {**engine_args, "max_num_batched_tokens": args.max_num_batched_tokens}
    return factory.LocalOptions(model=spec.id, engine_args=engine_args), spec.id


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


def _cpu_settings(args: argparse.Namespace) -> dict[str, Any]:
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


def build_engine(args: argparse.Namespace, settings: Settings) -> tuple[Any, ModelSpec]:
    import workbench.engines.factory as factory

    options, spec_id = engine_options(args, settings)
    engine = factory.build_engine(options)
    spec = get_spec(spec_id) if spec_id else match_served_model(engine.model)
    if spec is None:
        engine.close()
        raise EngineUnavailable(
            f"no model spec matches the served model {engine.model!r}; pass --spec MODEL_ID"
        )
    return engine, with_max_tokens(spec, getattr(args, "max_tokens", None))


def local_engine_args(spec: ModelSpec, profile_name: str | None) -> dict[str, Any]:
    """vllm.LLM keyword arguments for ``spec`` on this machine's first GPU (see
    :mod:`workbench.gpu.launch`); refuses with the planner's advice when a page cannot fit."""
    from workbench.gpu.launch import plan_local_launch

    return plan_local_launch(spec, profile_name).kwargs


def _open_inputs(paths: list[Path], settings: Settings) -> tuple[list[Document], int]:
    """Open every input; one ``error:`` line per bad one. Same content twice: kept once."""
    documents: list[Document] = []
    seen: dict[str, Path] = {}
    failures = 0
    for path in paths:
        try:  # read_input refuses FIFOs/devices without blocking
            doc = open_document(path.name, read_input(path, settings), settings)
        except DocumentError as exc:
            say("error", f"{display_name(path)}: {exc.reason}")
            failures += 1
            continue
        if doc.sha256 in seen:
            first = display_name(seen[doc.sha256])
            say("", f"{display_name(path)}: same content as {first}, done once")
            doc.close()
            continue
        seen[doc.sha256] = path
        documents.append(doc)
    return documents, failures


def run(args: argparse.Namespace) -> int:
    settings = Settings.from_env(
        concurrency=args.concurrency, timeout=args.timeout, pdf_backend=args.pdf_backend
    )
    if args.max_tokens is not None and args.max_tokens < 1:
        raise EngineUnavailable(f"--max-tokens must be 1 or more, not {args.max_tokens}")
    if settings.pdf_backend == "poppler" and not poppler_available():
        raise EngineUnavailable(
            "--pdf-backend poppler needs poppler-utils (pdftoppm) and pdf2image: "
            "apt-get install poppler-utils; pip install pdf2image"
        )
    paths, skipped = expand_inputs(args.inputs)
    for line in skipped:
        say("warning", line)
    documents, failures = _open_inputs(paths, settings)
    wanted: list[tuple[Document, list[int]]] = []
    for doc in documents:
        try:
            wanted.append((doc, doc.select(args.pages)))
        except WorkbenchError as exc:
            say("error", f"{display_name(doc.name)}: {exc}")
            failures += 1
    if not wanted:
        say("error", "no readable input")
        return EXIT_FAILED
    run_name = args.run_name or args.out.resolve().name
    existing = existing_run(args.out, run_name)
    stated = existing is not None and stated_differ(args, _cpu_settings(args), existing.info)
    if existing is not None and not stated and nothing_left(args.out, wanted):
        pages = sum(len(w) for _, w in wanted)
        say("", f"{display_name(args.out)}: nothing left to do, all {pages} page(s) are done")
        return EXIT_FAILED if failures else EXIT_OK
    if args.ray is not None:
        from workbench.cli.ray_cmd import run_ray

        return run_ray(args, settings, wanted, run_name, failures)
    started = time.monotonic()
    engine, spec = build_engine(args, settings)
    if not args.quiet:  # the line a benchmark times the engine's start-up by
        took = time.monotonic() - started
        say("", f"engine {engine.name} {display_name(engine.model)} ready in {took:.1f} s")
    try:
        return _run_job(args, engine, spec, settings, wanted, run_name, failures)
    finally:
        engine.close()
        for doc in documents:
            doc.close()


def _run_job(
    args: argparse.Namespace,
    engine: Any,
    spec: ModelSpec,
    settings: Settings,
    wanted: list[tuple[Document, list[int]]],
    run_name: str,
    failures: int,
) -> int:
    dpi = args.dpi or render_dpi(spec, settings.dpi)
    info = run_info(
        engine,
        spec,
        name=run_name,
        run_id=run_name,
        documents=[d.info() for d, _ in wanted],
        dpi=dpi,
        source="cli",
        profile=args.profile,
    )
    if args.max_tokens:
        info.settings["max_tokens"] = args.max_tokens
    job = RunJob.start(args.out, engine, spec, info)
    job.failed_inputs = failures
    plans: list[DocumentPlan] = []
    for doc, pages in wanted:
        plan = job.plan(doc, pages)
        plans.append(plan)
        announce(plan, job, args.quiet)
    outcome = run_documents(job, plans, on_page=progress_printer(args.quiet))
    return report(args, outcome, failures)


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


def progress_printer(quiet: bool) -> OnPage:
    """Per page: ``error:``/``warning:`` for pages that did not finish cleanly, then (unless
    quiet) ``name: page P (i/n) status seconds, pages/s, time left``."""
    start = time.monotonic()

    def progress(i: int, n: int, result: PageResult) -> None:
        name = display_name(result.document)
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
