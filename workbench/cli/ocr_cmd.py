"""``python -m workbench ocr INPUT... --out DIR``: OCR documents into a run folder.

Output contract (other tools and the benchmarks rely on it), for each input::

    DIR/<input stem>/page-0001.png       the page image the engine saw
    DIR/<input stem>/page-0001.md        the page Markdown
    DIR/<input stem>/page-0001.json      page, width, height, engine, model, regions
                                         (label, native_label, bbox [x0,y0,x1,y1] in pixels
                                         of the PNG, text), markdown, timing, status
    DIR/<input stem>/page-0001.raw.txt   the model's raw output (VLM engines)
    DIR/<input stem>/page-0001-rN.png    crops of figure regions (the Markdown links them)
    DIR/<input stem>/document.md
    DIR/manifest.json                    the run: engine, model, settings, per-page status

Each page's files are written as soon as that page is done, ``.json`` last. ``DIR`` is a run
folder: run the same command again (same ``--run-name``, default the folder's name) and an
interrupted run resumes; finished pages are neither redone nor rewritten. An input directory
stands for the supported files inside it. A bad input prints one line naming it and why on
stderr, the other inputs are still processed, and the exit status is 1.
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from pathlib import Path
from typing import Any

from workbench import __version__
from workbench.documents import Document, open_document, poppler_available
from workbench.errors import DocumentError, EngineUnavailable, WorkbenchError
from workbench.markdown.assemble import figure_filename
from workbench.models.registry import ModelSpec, get_spec, match_served_model
from workbench.pipeline.process import process, render_dpi
from workbench.runs.folder import RunWriter, atomic_write
from workbench.schema import Label, PageResult, PageStatus, RunInfo, RunStatus
from workbench.settings import Settings

SUFFIXES = {".pdf", ".png", ".jpg", ".jpeg", ".tif", ".tiff", ".webp", ".bmp"}


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
    p.add_argument("--timeout", type=float, help="seconds per request")
    p.add_argument("--profile", help="GPU tuning profile for --engine vllm")
    p.add_argument("--run-name", help="name of the run; the same name resumes it")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    p.set_defaults(func=run)


def expand_inputs(inputs: list[Path]) -> list[Path]:
    files: list[Path] = []
    for path in inputs:
        if path.is_dir():
            files.extend(sorted(p for p in path.iterdir() if p.suffix.lower() in SUFFIXES))
        else:
            files.append(path)
    return files


def build_engine(args: argparse.Namespace, settings: Settings) -> tuple[Any, ModelSpec]:
    import workbench.engines.factory as factory

    if args.engine == "cpu":
        return factory.build_engine(factory.CpuOptions()), get_spec("cpu")
    if args.engine == "vllm-server":
        options = factory.ServerOptions(
            base_url=args.base_url or settings.base_url,
            api_key=args.api_key or settings.api_key,
            model=args.model,
            concurrency=settings.concurrency,
            timeout=settings.timeout,
        )
        engine = factory.build_engine(options)
        spec = get_spec(args.spec) if args.spec else match_served_model(engine.model)
        if spec is None:
            raise EngineUnavailable(
                f"no model spec matches the served model {engine.model!r}; pass --spec MODEL_ID"
            )
        return engine, spec
    if not args.model:
        raise EngineUnavailable("--engine vllm needs --model MODEL_ID")
    spec = get_spec(args.spec or args.model)
    engine_args = local_engine_args(spec, args.profile)
    return factory.build_engine(factory.LocalOptions(model=spec.id, engine_args=engine_args)), spec


def local_engine_args(spec: ModelSpec, profile_name: str | None) -> dict[str, Any]:
    """vllm.LLM keyword arguments for ``spec`` on this machine's first GPU (see
    :mod:`workbench.gpu.launch`); refuses with the planner's advice when a page cannot fit."""
    from workbench.gpu.launch import plan_local_launch

    return plan_local_launch(spec, profile_name).kwargs


def _write_figures(json_path: Path, result: PageResult, image: Any) -> None:
    for region in result.regions:
        if region.label is Label.FIGURE and region.bbox is not None:
            b = region.bbox
            buf = io.BytesIO()
            image.crop((int(b.x0), int(b.y0), int(b.x1), int(b.y1))).save(buf, "PNG")
            atomic_write(json_path.parent / figure_filename(result.page, region.id), buf.getvalue())


def run(args: argparse.Namespace) -> int:
    settings = Settings.from_env(
        concurrency=args.concurrency, timeout=args.timeout, pdf_backend=args.pdf_backend
    )
    if settings.pdf_backend == "poppler" and not poppler_available():
        raise EngineUnavailable(
            "--pdf-backend poppler needs poppler-utils (pdftoppm) and pdf2image: "
            "apt-get install poppler-utils; pip install pdf2image"
        )
    files = expand_inputs(args.inputs)
    failures = 0
    documents: list[Document] = []
    for path in files:
        try:
            data = path.read_bytes()
        except OSError as exc:
            print(f"error: {path}: cannot read it ({exc.strerror})", file=sys.stderr)
            failures += 1
            continue
        try:
            documents.append(open_document(path.name, data, settings))
        except DocumentError as exc:
            print(f"error: {path}: {exc.reason}", file=sys.stderr)
            failures += 1
    if not documents:
        print("error: no readable input", file=sys.stderr)
        return 1
    engine, spec = build_engine(args, settings)
    run_name = args.run_name or args.out.resolve().name
    info = RunInfo(
        id=run_name,
        name=run_name,
        engine=engine.name,
        model=engine.model,
        profile=args.profile,
        settings={"pages": args.pages, "dpi": args.dpi, "spec": spec.id},
        versions={"workbench": __version__},
        documents=[d.info() for d in documents],
    )
    writer = RunWriter.open(args.out, info)
    if writer.info.name != run_name:
        raise WorkbenchError(
            f"{args.out} holds the run {writer.info.name!r}; pass --run-name "
            f"{writer.info.name} to resume it, or choose another --out"
        )
    bad_pages = 0
    try:
        for doc in documents:
            bad_pages += _run_document(args, engine, spec, writer, doc, settings)
            writer.finish_document(doc.name)
    except KeyboardInterrupt:
        writer.finish(RunStatus.CANCELLED)
        raise
    finally:
        engine.close()
    status = RunStatus.PARTIAL if bad_pages or failures else RunStatus.DONE
    writer.finish(status)
    return 1 if failures or bad_pages else 0


def _run_document(
    args: argparse.Namespace,
    engine: Any,
    spec: ModelSpec,
    writer: RunWriter,
    doc: Document,
    settings: Settings,
) -> int:
    try:
        wanted = doc.select(args.pages)
    except WorkbenchError as exc:
        print(f"error: {doc.name}: {exc}", file=sys.stderr)
        return 1
    done = writer.done_pages(doc.name)
    todo = [n for n in wanted if n not in done]
    if done and not args.quiet:
        print(
            f"{doc.name}: {len(wanted) - len(todo)} page(s) already done, skipped", file=sys.stderr
        )
    dpi = args.dpi or render_dpi(spec, settings.dpi)
    start = time.monotonic()
    bad = 0

    def progress(i: int, n: int, result: PageResult) -> None:
        if args.quiet:
            return
        rate = i / max(time.monotonic() - start, 1e-6)
        eta = (n - i) / rate if rate else 0.0
        print(
            f"{doc.name}: page {result.page} ({i}/{n}) {result.status.value} "
            f"{result.seconds:.1f}s  {rate:.2f} pages/s, {eta:.0f}s left",
            file=sys.stderr,
        )

    for item in process(engine, spec, doc.pages(todo, dpi), total=len(todo), on_page=progress):
        json_path = writer.write_page(item.result, item.image)
        _write_figures(json_path, item.result, item.image)
        if item.result.status is PageStatus.ERROR:
            bad += 1
            print(
                f"error: {doc.name} page {item.result.page}: {item.result.error}", file=sys.stderr
            )
    return bad
