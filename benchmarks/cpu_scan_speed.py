"""Seconds per scanned page through the CPU engine's OCR path (issue 12: "scanned pages no
slower than today, median ≈ 3 s on 2 cores").

Pages: the two image-only scans in tests/data and rasterized copies of the born-digital pages
(rendered at ``--dpi``, their text layer withheld, so the engine OCRs them as it would a scan).
Each page runs ``--repeat`` times after one warm-up page; per run the wall clock and the CPU
time of this process (all threads: ONNX Runtime uses up to 4, Tesseract 1) are recorded. The
machine is shared: CPU seconds are the steadier number, wall seconds what a user waits. The
CPU time spent assembling regions (``compose``: boxes, figures, headings, tables, order) is
reported on its own, since that is where layout rules add work.

``--root DIR`` imports ``workbench`` from another checkout (e.g. ``git archive`` of an earlier
commit unpacked in /tmp) so two versions can be timed alternately in one session:

    python benchmarks/cpu_scan_speed.py [--dpi 200] [--repeat 2] [--root DIR]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
DATA = HERE / "tests" / "data"

#: (file, 0-based page): two real scans, then born-digital pages rasterized
PAGES = [
    ("scan_huckfinn_c03-29.pdf", 0),
    ("scan_two_columns.pdf", 0),
    ("financial_statement.pdf", 0),
    ("two_column_article.pdf", 0),
    ("census_12s0324.pdf", 0),
    ("pdflatex_outline.pdf", 1),
    ("dd0293_p1-2.pdf", 1),
    ("sf424_page2.pdf", 0),
    ("va210966_p1.pdf", 0),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dpi", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--root", type=Path, default=HERE, help="checkout to import from")
    args = parser.parse_args()
    sys.path.insert(0, str(args.root.resolve()))
    import pypdfium2 as pdfium

    from workbench.engines.base import PageRequest
    from workbench.engines.cpu import engine as cpu_engine

    composing: list[float] = []  # CPU s in compose (regions from lines), per call
    compose = cpu_engine.compose

    def timed_compose(*a, **k):  # type: ignore[no-untyped-def]
        cpu = time.process_time()
        try:
            return compose(*a, **k)
        finally:
            composing.append(time.process_time() - cpu)

    cpu_engine.compose = timed_compose  # type: ignore[assignment]
    engine = cpu_engine.get_cpu_engine().configured(text_layer="never")
    images = {
        f"{name}#{index + 1}": pdfium.PdfDocument(DATA / name)[index]
        .render(scale=args.dpi / 72)
        .to_pil()
        .convert("RGB")
        for name, index in PAGES
    }

    def once(image) -> tuple[float, float]:  # type: ignore[no-untyped-def]
        start, cpu = time.perf_counter(), time.process_time()
        out = next(iter(engine.run([PageRequest(key="p", image=image)])))
        if out.error:
            raise RuntimeError(out.error)
        return time.perf_counter() - start, time.process_time() - cpu

    once(next(iter(images.values())))  # warm-up: first ONNX runs allocate
    composing.clear()
    walls: list[float] = []
    cpus: list[float] = []
    print(f"root {args.root.resolve()}; {len(images)} pages at {args.dpi} DPI, OCR path")
    for key, image in images.items():
        runs = [once(image) for _ in range(args.repeat)]
        w = statistics.median(r[0] for r in runs)
        c = statistics.median(r[1] for r in runs)
        walls.append(w)
        cpus.append(c)
        print(f"{key:32s} wall {w:5.2f} s  cpu {c:5.2f} s")
    print(
        f"median per page: wall {statistics.median(walls):.2f} s, "
        f"cpu {statistics.median(cpus):.2f} s  (total wall {sum(walls):.1f} s); "
        f"compose (region assembly) cpu {1000 * statistics.median(composing):.1f} ms"
    )


if __name__ == "__main__":
    main()
