"""The embedded CPU engine by number of worker processes, side by side in one run (issue 11).

The same real pages (the PDFs in tests/data, cycled to ``--pages``) go through
:func:`workbench.pipeline.process.process_document` with the CPU engine in this process (one
page at a time: ``workers`` 1) and in a pool of worker processes, each holding its models once
(``CpuOptions(workers=N)``). Rounds alternate the settings so a drift of the machine's load
hits all alike; model loading is timed apart. Prints pages/s and the speed-up per setting.

    python benchmarks/throughput_cpu.py [--pages 8] [--workers 1 2] [--rounds 2]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.throughput import build_pdf  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=8)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--text-layer", default="never", choices=["auto", "never", "only"])
    args = parser.parse_args()

    from workbench.documents import open_document
    from workbench.engines.factory import CpuOptions, build_engine
    from workbench.models.registry import CPU_SPEC
    from workbench.pipeline.process import process_document

    pdf = Path(tempfile.mkdtemp(prefix="throughput-cpu-")) / "doc.pdf"
    names = build_pdf(args.pages, pdf)
    doc = open_document(pdf.name, pdf.read_bytes())
    print(
        f"{args.pages} real pages cycled from {len(names)} PDFs in tests/data, "
        f"text layer {args.text_layer!r}, {args.rounds} rounds alternating"
    )
    engines = {}
    for n in args.workers:
        started = time.perf_counter()
        engines[n] = build_engine(CpuOptions(workers=n, text_layer=args.text_layer))
        list(process_document(engines[n], CPU_SPEC, doc, [1]))  # warm: first page loads lazily
        print(f"  workers {n}: models loaded in {time.perf_counter() - started:.1f} s")
    seconds = {n: 0.0 for n in args.workers}
    for _ in range(args.rounds):
        for n in args.workers:
            started = time.perf_counter()
            results = list(process_document(engines[n], CPU_SPEC, doc))
            seconds[n] += time.perf_counter() - started
            bad = [f"{r.result.page}: {r.result.status.value}" for r in results if r.result.error]
            assert len(results) == args.pages, (n, len(results))
            if bad:
                print(f"  workers {n}: pages that failed: {bad}")
    base = seconds[args.workers[0]]
    print(f"{'workers':>8} {'s/round':>8} {'pages/s':>8} {'speed-up':>9}")
    for n in args.workers:
        per_round = seconds[n] / args.rounds
        print(f"{n:>8} {per_round:>8.1f} {args.pages / per_round:>8.2f} {base / seconds[n]:>8.2f}x")
    for engine in engines.values():
        engine.close()


if __name__ == "__main__":
    main()
