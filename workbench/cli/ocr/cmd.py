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
    4    the disk of ``DIR`` is full: one ``error:`` line names it, what is free and about
         what the pages left need; finished pages are kept, the run is marked cancelled,
         the same command resumes it once there is room
    130  interrupted (Ctrl-C); finished pages are kept, the run is marked cancelled
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from workbench.cli import plain_help
from workbench.cli.ocr.job import (
    EXIT_DISK_FULL,
    EXIT_FAILED,
    EXIT_OK,
    EXIT_UNCLEAN,
    EXIT_USAGE,
    Output,
    announce,
    progress_printer,
    report,
    return_big_buffers,
    run_request,
    say,
)
from workbench.cli.run_folder import existing_run, nothing_left
from workbench.documents import DocumentSource, poppler_available, probe_input, supported
from workbench.errors import (
    DiskFull,
    DocumentError,
    EngineUnavailable,
    WorkbenchError,
    display_name,
)
from workbench.gpu.engine_watch import watching
from workbench.models.registry import ModelSpec
from workbench.pipeline.request import RunRequest, RunShape
from workbench.pipeline.runner import DocumentPlan, RunJob, run_documents
from workbench.runs.lock import check_free
from workbench.settings import Settings

#: Seconds between reads of vLLM's numbers during a run (a read costs ~1 ms: metrics_parser.py)
WATCH_S = 0.5


def register(sub: Any) -> None:
    p = sub.add_parser(
        "ocr",
        help="OCR PDFs and images into a run folder",
        description=plain_help(__doc__ or ""),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("inputs", nargs="+", metavar="INPUT", type=Path)
    p.add_argument(
        "--password",
        help="opens password-protected PDFs among the inputs (never written anywhere)",
    )
    p.add_argument("--out", required=True, type=Path, metavar="DIR")
    p.add_argument("--pages", metavar="SPEC", help="page range such as 1,3-5 (default: all)")
    p.add_argument(
        "--pdf-backend",
        choices=["pdfium", "poppler"],
        help="PDF rasterizer: pdfium (default, built in) or poppler (needs pdftoppm)",
    )
    add_engine_arguments(p)
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


def add_engine_arguments(p: Any, *, server_key_flag: str = "--api-key") -> None:
    """The flags that choose and set up the engine, read by :func:`run_request`: the ``ocr``
    command's and the service's (``python -m workbench serve``, whose own ``--api-key`` is
    its clients' key, so it names the server's ``--server-api-key``)."""
    p.add_argument("--engine", default="cpu", choices=["cpu", "vllm-server", "vllm"])
    p.add_argument("--dpi", type=int, help="PDF rendering DPI (default: the model's rule)")
    p.add_argument("--base-url", help="OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1")
    p.add_argument(server_key_flag, dest="api_key", help="the server's key (WORKBENCH_API_KEY)")
    p.add_argument("--model", help="served model name (vllm-server) or model id (vllm)")
    p.add_argument("--spec", help="model spec id, when the served name does not match one")
    p.add_argument(
        "--concurrency",
        type=int,
        help="pages in flight (default: as many as the server's KV cache holds; for --engine "
        "vllm, as many as the plan's)",
    )
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
        files.extend(p for p in entries if supported(p) and not p.is_dir())
        left = [
            display_name(p.name + ("/" if p.is_dir() else ""))
            for p in entries
            if p.is_dir() or not supported(p)
        ]
        if left:
            skipped.append(
                f"{display_name(path)}: skipped {len(left)} unsupported file(s): {', '.join(left)}"
            )
    return files, skipped


def _open_inputs(
    paths: list[Path], settings: Settings, password: str | None = None
) -> tuple[list[DocumentSource], int]:
    """Read every input once for its facts (an encrypted PDF with ``password``); one
    ``error:`` line per bad one. Same content twice: kept once. Their bytes are let go: each
    is read again at its turn (issue 31.5)."""
    documents: list[DocumentSource] = []
    seen: dict[str, Path] = {}
    failures = 0
    for path in paths:
        try:
            doc = probe_input(path, settings, password)
        except DocumentError as exc:
            say("error", f"{display_name(path)}: {exc.reason}")
            failures += 1
            continue
        if doc.sha256 in seen:
            first = display_name(seen[doc.sha256])
            say("", f"{display_name(path)}: same content as {first}, done once")
            continue
        seen[doc.sha256] = path
        documents.append(doc)
    return documents, failures


def run(args: argparse.Namespace) -> int:
    settings = Settings.from_env(
        concurrency=args.concurrency, timeout=args.timeout, pdf_backend=args.pdf_backend
    )
    request = run_request(args, settings)  # the namespace stops here
    if settings.pdf_backend == "poppler" and not poppler_available():
        raise EngineUnavailable(
            "--pdf-backend poppler needs poppler-utils (pdftoppm) and pdf2image: "
            "apt-get install poppler-utils; pip install pdf2image"
        )
    return_big_buffers()  # memory flat in the number of inputs (see there)
    paths, skipped = expand_inputs(args.inputs)
    for line in skipped:
        say("warning", line)
    documents, failures = _open_inputs(paths, settings, args.password)
    wanted: list[tuple[DocumentSource, list[int]]] = []
    for doc in documents:
        try:
            wanted.append((doc, doc.select(request.pages)))
        except WorkbenchError as exc:
            say("error", f"{display_name(doc.name)}: {exc}")
            failures += 1
    if not wanted:
        say("error", "no readable input")
        return EXIT_FAILED
    out = Output(args.out, args.run_name or args.out.resolve().name, args.quiet)
    check_free(out.folder)  # another process writing it: refused before an engine starts
    existing = existing_run(out.folder, out.run_name)
    stated = existing is not None and bool(
        RunShape.of(existing.info).differences(RunShape.stated(request))
    )
    if existing is not None and not stated and nothing_left(out.folder, wanted):
        pages = sum(len(w) for _, w in wanted)
        say("", f"{display_name(out.folder)}: nothing left to do, all {pages} page(s) are done")
        return EXIT_FAILED if failures else EXIT_OK
    if args.ray is not None:
        from workbench.cli.ray_cmd import run_ray

        opened = [(doc.open(), pages) for doc, pages in wanted]  # Ray ships their bytes
        return run_ray(args.ray, request, out, opened, failures)
    started = time.monotonic()
    engine, spec = request.open()
    if not out.quiet:  # the line a benchmark times the engine's start-up by
        took = time.monotonic() - started
        say("", f"engine {engine.name} {display_name(engine.model)} ready in {took:.1f} s")
    try:
        return _run_job(request, out, engine, spec, wanted, failures)
    except DiskFull as exc:  # one line, never a traceback (the run is marked cancelled)
        say("error", str(exc))
        return EXIT_DISK_FULL
    finally:
        engine.close()


def _run_job(
    request: RunRequest,
    out: Output,
    engine: Any,
    spec: ModelSpec,
    wanted: list[tuple[DocumentSource, list[int]]],
    failures: int,
) -> int:
    info = request.run_info(
        engine,
        spec,
        name=out.run_name,
        run_id=out.run_name,
        documents=[d.info() for d, _ in wanted],
        source="cli",
    )
    job = RunJob.start(out.folder, engine, spec, info)
    job.failed_inputs = failures
    plans: list[DocumentPlan] = []
    for doc, pages in wanted:
        plan = job.plan(doc, pages)
        plans.append(plan)
        announce(plan, job, out.quiet)
    with watching(engine, WATCH_S) as watcher:  # vLLM's own numbers (None: not vLLM)
        outcome = run_documents(job, plans, on_page=progress_printer(out.quiet, engine))
        summary = watcher.stop() if watcher is not None else None
    if summary is not None and not out.quiet:
        say("", summary.line())
    return report(out, outcome, failures)


__all__ = [
    "EXIT_DISK_FULL",
    "EXIT_FAILED",
    "EXIT_OK",
    "EXIT_UNCLEAN",
    "EXIT_USAGE",
    "announce",
    "progress_printer",
    "register",
    "report",
    "run",
    "run_request",
    "say",
]
