"""Client throughput on the server path, side by side in one run (issue 11).

Against the fake OpenAI server (tests/fakes/openai_server.py, a real HTTP server in its own
process) answering at once, the end-to-end CLI (``python -m workbench ocr``, interpreter start
included) next to PDFium's own render rate of the same pages at the same size on one core: the
floor of the work. Then the same pages at 0.5 s per request at concurrency 1 and the default;
the peak memory of the CLI's whole process tree (worker processes included) for a
``--big``-page PDF next to the short one; and the pages/s per core the client sustains.

The document is the PDFs in tests/data cycled to ``--pages`` pages (real born-digital and
scanned pages), sized by ``--spec`` (default LightOnOCR-2-1B: 1540 px long edge).

    python benchmarks/throughput.py [--pages 48] [--big 1000] [--delay 0.5] [--spec ID]

"1 core": the CLI and its workers pinned to core 0 (taskset), the server on another core.
"""

from __future__ import annotations

import argparse
import io
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.throughput_procs import (  # noqa: E402
    SERVERS,
    Timed,
    cores_available,
    cpu_seconds,
    fake_server,
    timed,
)

SPEC = "lightonai/LightOnOCR-2-1B"


def build_pdf(pages: int, path: Path) -> list[str]:
    import pypdfium2 as pdfium

    sources = []
    for file in sorted((ROOT / "tests" / "data").glob("*.pdf")):
        try:
            sources.append((file.name, pdfium.PdfDocument(str(file))))
        except pdfium.PdfiumError:
            continue
    out = pdfium.PdfDocument.new()
    while len(out) < pages:
        for _, src in sources:
            for i in range(len(src)):
                if len(out) < pages:
                    out.import_pages(src, [i])
    out.save(str(path))
    return [name for name, _ in sources]


def _targets(pdf_path: Path, spec_id: str) -> list[tuple[int, float]]:
    """(page index, PDFium scale) giving each page the model's size, as the workbench sizes it."""
    import pypdfium2 as pdfium

    from workbench.models import fit_size
    from workbench.models.registry import get_spec
    from workbench.pipeline.prepare import render_dpi
    from workbench.settings import Settings

    spec, settings = get_spec(spec_id), Settings()
    pdf = pdfium.PdfDocument(str(pdf_path))
    out = []
    for i in range(len(pdf)):
        w_pt, h_pt = pdf[i].get_size()
        scale = render_dpi(spec, settings.dpi) / 72
        if w_pt * h_pt * scale * scale > settings.max_pixels:
            scale = math.sqrt(settings.max_pixels / (w_pt * h_pt))
        want = fit_size(
            math.ceil(w_pt * scale), math.ceil(h_pt * scale), spec.sizing, is_image=False
        )
        out.append((i, want[0] / w_pt))
    return out


def floor_seconds(pdf_path: Path, spec_id: str) -> float:
    """PDFium alone: every page rendered once at the model's size, one after another."""
    import pypdfium2 as pdfium

    targets = _targets(pdf_path, spec_id)
    pdf = pdfium.PdfDocument(str(pdf_path))
    started = time.perf_counter()
    for i, scale in targets:
        pdf[i].render(scale=scale)
    return time.perf_counter() - started


def prepare_seconds(pdf_path: Path, spec_id: str) -> float:
    """The page-preparing worker's whole job, in this process: every page drawn at the model's
    size into PNG scanlines, checked for grey and deflated (what the CLI's workers do)."""
    from workbench.documents import open_document
    from workbench.models.registry import get_spec
    from workbench.pipeline.feed import prepare_pages

    doc = open_document(pdf_path.name, pdf_path.read_bytes())
    spec = get_spec(spec_id)
    started = time.perf_counter()
    for _ in prepare_pages(doc, None, spec, workers=0):
        pass
    return time.perf_counter() - started


def encoders(pdf_path: Path, spec_id: str, limit: int = 12) -> tuple[float, float, int, int]:
    """Seconds per page and bytes: Pillow's PNG (level 1) against workbench.engines.png."""
    from workbench.documents import open_document
    from workbench.engines.png import encode_png
    from workbench.models.registry import get_spec
    from workbench.pipeline.feed import prepare_pages

    doc = open_document(pdf_path.name, pdf_path.read_bytes())
    pages = [
        p.image.copy()
        for p in prepare_pages(doc, range(1, limit + 1), get_spec(spec_id), workers=0)
    ]
    t_pil = t_ours = 0.0
    n_pil = n_ours = 0
    for image in pages:
        image = image.convert("RGB")
        started = time.perf_counter()
        buf = io.BytesIO()
        image.save(buf, format="PNG", compress_level=1)
        t_pil += time.perf_counter() - started
        started = time.perf_counter()
        ours = encode_png(image)
        t_ours += time.perf_counter() - started
        n_pil, n_ours = n_pil + len(buf.getvalue()), n_ours + len(ours)
    return t_pil / len(pages), t_ours / len(pages), n_pil // len(pages), n_ours // len(pages)


def cli(pdf: Path, base_url: str, spec_id: str, cores: str | None, *extra: str) -> Timed:
    with tempfile.TemporaryDirectory() as out:
        command = [sys.executable, "-m", "workbench", "ocr", str(pdf), "--out", out]
        command += ["--engine", "vllm-server", "--base-url", base_url, "--spec", spec_id]
        result = timed([*command, "--quiet", *extra], cores=cores)
        written = len(list(Path(out).glob("*/page-*.png")))
    if result.returncode != 0:
        raise SystemExit(f"the CLI failed ({result.returncode}): {result.stderr}")
    result.stderr = str(written)
    return result


def in_process(pdf: Path, base_url: str, spec_id: str, concurrency: int) -> float:
    """Seconds for process_document over every page (no interpreter start, nothing written)."""
    from workbench.documents import open_document
    from workbench.engines.server.engine import VllmServerEngine
    from workbench.models.registry import get_spec
    from workbench.pipeline.process import process_document

    doc = open_document(pdf.name, pdf.read_bytes())
    engine = VllmServerEngine(base_url, concurrency=concurrency)
    started = time.perf_counter()
    done = sum(1 for _ in process_document(engine, get_spec(spec_id), doc))
    wall = time.perf_counter() - started
    engine.close()
    assert done == doc.page_count
    return wall


def floor_on_core(pdf: Path, spec_id: str, core: str, what: str = "--floor") -> float:
    command = ["taskset", "-c", core, sys.executable, __file__, what, str(pdf)]
    done = subprocess.run(
        [*command, "--spec", spec_id], capture_output=True, text=True, check=True, cwd=ROOT
    )
    return float(done.stdout)


def sweep(pdf: Path, pages: int, spec_id: str, counts: list[int], floor_rate: float) -> dict:
    """The CLI pinned to 1, 2, 4... cores (the server on the cores left, if any)."""
    cores = cores_available()
    print(f"\nCLI end-to-end, {pages} pages, zero-latency server (interpreter start included;")
    print("steady = pages after the first over the time after a 1-page run's):")
    print(
        f"{'client cores':>12} {'wall s':>7} {'1-page s':>8} {'pages/s':>8} {'steady p/s':>10} "
        f"{'vs floor':>9} {'peak MB main':>12} {'tree':>6} {'CPU s: main':>6} {'workers':>6} "
        f"{'server':>6}"
    )
    rates = {}
    for k in counts:
        client = ",".join(map(str, cores[:k]))
        rest = ",".join(map(str, cores[k:])) or None
        with fake_server(0.0, cores=rest) as url:
            start = cli(pdf, url, spec_id, client, "--pages", "1")
            server_before = cpu_seconds(SERVERS[url])
            run = cli(pdf, url, spec_id, client)
            server = cpu_seconds(SERVERS[url]) - server_before
        steady = (pages - 1) / max(run.wall - start.wall, 1e-6)
        rates[k] = steady
        print(
            f"{k:>12} {run.wall:>7.2f} {start.wall:>8.2f} {pages / run.wall:>8.1f} "
            f"{steady:>10.1f} {floor_rate / steady:>8.2f}x {run.peak_main_mb:>12.0f} "
            f"{run.peak_tree_mb:>6.0f} {run.cpu_main:>6.1f} {run.cpu_others:>6.1f} {server:>6.1f}"
        )
    return rates


def one_core(pdf: Path, pages: int, spec_id: str, rounds: int = 3) -> None:
    """The one-core ratio, robust to a noisy host: the floor (on the same pages) and the CLI's
    steady rate measured back to back on core 0, ``rounds`` times; each round's ratio, then
    the median."""
    import statistics

    cores = cores_available()
    core, rest = str(cores[0]), ",".join(map(str, cores[1:])) or None
    print(f"\nOne core, floor and CLI back to back on core {core}, {pages} pages, {rounds} rounds:")
    ratios = []
    with fake_server(0.0, cores=rest) as url:
        for n in range(1, rounds + 1):
            floor_rate = pages / floor_on_core(pdf, spec_id, core)
            start = cli(pdf, url, spec_id, core, "--pages", "1")
            run = cli(pdf, url, spec_id, core)
            steady = (pages - 1) / max(run.wall - start.wall, 1e-6)
            ratios.append(floor_rate / steady)
            print(
                f"  round {n}: floor {floor_rate:6.1f} pages/s, CLI steady {steady:6.1f} pages/s: "
                f"{ratios[-1]:.2f}x"
            )
    print(f"  median: the CLI takes {statistics.median(ratios):.2f}x the floor's time on one core")


def answer_text(chars: int = 6000) -> str:
    """A page's worth of Markdown-like text that no repetition check calls a loop."""
    import random

    rng = random.Random(7)
    words = [
        "revenue",
        "cost",
        "income",
        "tax",
        "assets",
        "equity",
        "cash",
        "net",
        "total",
        "year",
        "ended",
        "notes",
    ]
    return " ".join(f"{rng.choice(words)}{rng.randint(0, 999)}" for _ in range(chars // 5))[:chars]


def stream_cost(pdf: Path, pages: int, spec_id: str, core: str, rest: str | None) -> None:
    """Main-process CPU per page against a server streaming each page's answer (6000
    characters, 1500 tokens of 4): as one event; as vLLM 0.33 does when asked for the
    workbench's ``stream_interval`` of 16 tokens an event (94 events); and an event a token
    (1500 events: a server that ignores ``stream_interval``, as vLLM's default does)."""
    with tempfile.TemporaryDirectory() as folder:
        text = Path(folder) / "answer.md"
        text.write_text(answer_text())
        print(f"\nStreamed answers, {pages} pages of 1500 tokens each, CLI on 1 core:")
        base = None
        cases = (
            ("one event a page", ("--chunk-chars", "6000")),
            ("16 tokens an event (vLLM, asked)", ("--chunk-chars", "4", "--vllm-streaming")),
            ("an event a token", ("--chunk-chars", "4")),
        )
        for label, flags in cases:
            with fake_server(0.0, rest, "--replay", str(text), *flags) as url:
                run = cli(pdf, url, spec_id, core)
            per_page = run.cpu_main / pages * 1000
            base = per_page if base is None else base
            print(
                f"  {label:<34} main process {per_page:6.1f} ms CPU a page "
                f"(+{per_page - base:5.1f}), {pages / run.wall:6.1f} pages/s"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=48)
    parser.add_argument("--big", type=int, default=1000, help="pages of the memory run (0: skip)")
    parser.add_argument("--delay", type=float, default=0.5)
    parser.add_argument("--spec", default=SPEC)
    parser.add_argument("--cores", type=int, nargs="+", help="client core counts (default 1, all)")
    parser.add_argument(
        "--sweep-pages", type=int, help="pages for the core sweep (default --pages)"
    )
    parser.add_argument("--floor", type=Path, help=argparse.SUPPRESS)  # internal: one pinned run
    parser.add_argument("--prepare", type=Path, help=argparse.SUPPRESS)  # internal: one pinned run
    args = parser.parse_args()
    if args.floor:
        print(f"{floor_seconds(args.floor, args.spec):.4f}")
        return
    if args.prepare:
        print(f"{prepare_seconds(args.prepare, args.spec):.4f}")
        return

    cores = cores_available()
    work = Path(tempfile.mkdtemp(prefix="throughput-"))
    pdf = work / f"doc{args.pages}.pdf"
    names = build_pdf(args.pages, pdf)
    print(
        f"{args.pages} pages cycled from tests/data ({len(names)} PDFs), spec {args.spec}, "
        f"{len(cores)} cores"
    )
    floor_s = min(floor_on_core(pdf, args.spec, str(cores[0])) for _ in range(3))  # best of 3
    floor_rate = args.pages / floor_s
    print(
        f"\nPDFium render alone at the model's size, 1 core (the floor): {floor_s:.2f} s, "
        f"{floor_rate:.1f} pages/s"
    )
    prep_s = min(floor_on_core(pdf, args.spec, str(cores[0]), "--prepare") for _ in range(3))
    print(
        f"Page preparation alone, 1 core, in one process (drawn into PNG scanlines, grey check, "
        f"deflate): {prep_s:.2f} s, {args.pages / prep_s:.1f} pages/s, {prep_s / floor_s:.2f}x "
        "the floor"
    )
    pil, ours, pil_b, ours_b = encoders(pdf, args.spec)
    print(
        f"PNG encode per page: Pillow level 1 {pil * 1000:.0f} ms ({pil_b // 1024} KB), "
        f"workbench.engines.png {ours * 1000:.0f} ms ({ours_b // 1024} KB): {pil / ours:.1f}x"
    )

    sweep_pdf, sweep_pages = pdf, args.sweep_pages or args.pages
    if sweep_pages != args.pages:
        sweep_pdf = work / f"doc{sweep_pages}.pdf"
        build_pdf(sweep_pages, sweep_pdf)
    counts = args.cores or sorted({1, len(cores)})
    rates = sweep(sweep_pdf, sweep_pages, args.spec, counts, floor_rate)
    one_core(sweep_pdf, sweep_pages, args.spec)

    stream_cost(pdf, args.pages, args.spec, str(cores[0]), ",".join(map(str, cores[1:])) or None)

    print(f"\nServer answering in {args.delay:g} s, {args.pages} pages, all cores:")
    walls = {}
    with fake_server(args.delay) as url:
        for concurrency in (1, 32):
            walls[concurrency] = cli(
                pdf, url, args.spec, None, "--concurrency", str(concurrency)
            ).wall
            print(f"  concurrency {concurrency:>2}: {walls[concurrency]:.2f} s")
        inside = {c: in_process(pdf, url, args.spec, c) for c in (1, 32)}
    print(
        f"  CLI: default (32) / concurrency 1 = {walls[32] / walls[1]:.3f} (target < 0.10; "
        f"ideal {math.ceil(args.pages / 32) * args.delay:.1f} s + interpreter start)"
    )
    print(
        f"  in one process (pipeline only, pages prepared and sent): concurrency 1 "
        f"{inside[1]:.2f} s, 32 {inside[32]:.2f} s: {inside[32] / inside[1]:.3f}"
    )

    if args.big:
        big = work / f"doc{args.big}.pdf"
        build_pdf(args.big, big)
        with fake_server(0.0) as url:
            small = cli(pdf, url, args.spec, None)
            large = cli(big, url, args.spec, None)
        print(
            "\nPeak memory (PSS: pages shared after fork counted once), --pages all, "
            "zero-latency server, all cores (main process / whole tree with workers):"
        )
        for n, r, path in ((args.pages, small, pdf), (args.big, large, big)):
            print(
                f"  {n:>5} pages ({path.stat().st_size / 1e6:.0f} MB file): {r.wall:6.1f} s, "
                f"{n / r.wall:5.1f} pages/s, peak "
                f"{r.peak_main_mb:.0f} MB / {r.peak_tree_mb:.0f} MB, {r.stderr} PNGs written"
            )

    print(
        "\nClient sizing (steady pages/s by client cores): "
        + ", ".join(f"{k}: {rate:.0f}" for k, rate in rates.items())
    )


if __name__ == "__main__":
    main()
