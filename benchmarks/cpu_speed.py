"""Seconds per page of the embedded CPU engine on the development set (issue 23: born-digital
pages ≤ 0.5 s and scans ≤ 2.5 s median on 2 cores), two checkouts side by side in one run.

The user path, as ``benchmarks/heldout.py`` times it: the single-page PDF opened, rendered at
the CPU spec's resolution and run through ``process_document`` with the process-wide engine
(models loaded before the first timed page). Per page: wall seconds and the CPU seconds of the
process (all threads: Tesseract's worker, ONNX Runtime's pool). Beside it, the floor: Tesseract
alone reading the same rendered page (``GetUTF8Text``), the one reading every scan needs.

Each checkout runs in its own process, in turns (``--repeat`` rounds, A B A B ...), so both
see the same load on a shared machine; per page the fastest of the rounds counts. CPU seconds
are the steadier number there, wall seconds what a user waits on an idle machine.

    git archive main workbench | tar -x -C /tmp/base      # an earlier checkout to compare
    nice python benchmarks/cpu_speed.py --root /tmp/base . [--repeat 2] [--ids ID ...]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
DEVSET = HERE / "benchmarks" / "devset"


def _pages(ids: list[str] | None) -> list[dict]:
    pages = json.loads((DEVSET / "manifest.json").read_text())["pages"]
    return [p for p in pages if not ids or p["id"] in ids]


def worker(root: Path, ids: list[str] | None, floor: bool) -> None:
    """In a child process: one JSON row per page on stdout."""
    sys.path.insert(0, str(root.resolve()))
    from workbench.documents import open_document
    from workbench.logs import quiet_libraries
    from workbench.models.registry import CPU_SPEC

    quiet_libraries()
    pages = _pages(ids)
    pdfs = [DEVSET / "cache" / "pages" / f"{p['id']}.pdf" for p in pages]
    if floor:
        import tesserocr

        from workbench.engines.cpu.readers.ocr import tessdata_dir
        from workbench.pipeline.prepare import render_dpi

        api = tesserocr.PyTessBaseAPI(path=str(tessdata_dir()) + "/", lang="eng")

        def run(pdf: Path) -> None:
            doc = open_document(pdf.name, pdf.read_bytes())
            api.SetImage(doc.page(1, dpi=render_dpi(CPU_SPEC, doc.settings.dpi)).image)
            api.GetUTF8Text()
    else:
        from workbench.engines.cpu import get_cpu_engine
        from workbench.pipeline.process import process_document

        engine = get_cpu_engine()

        def run(pdf: Path) -> None:
            doc = open_document(pdf.name, pdf.read_bytes())
            [item] = list(process_document(engine, CPU_SPEC, doc, [1], workers=0))
            assert item.result.error is None, item.result.error

    run(pdfs[0])  # models loaded, caches warm
    for page, pdf in zip(pages, pdfs, strict=True):
        wall, cpu = time.perf_counter(), time.process_time()
        run(pdf)
        row = {"id": page["id"], "classes": page["classes"]}
        row |= {"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu}
        print(json.dumps(row), flush=True)


def _child(root: Path, ids: list[str] | None, floor: bool) -> dict[str, dict]:
    cmd = [sys.executable, __file__, "--worker", str(root), *(["--floor"] if floor else [])]
    cmd += ["--ids", *ids] if ids else []
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True).stdout
    return {r["id"]: r for r in map(json.loads, out.splitlines())}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("roots", nargs="*", type=Path, help="checkouts to compare (first: baseline)")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--ids", nargs="*")
    ap.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--floor", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args.worker, args.ids, args.floor)
        return 0
    if not args.roots:
        ap.error("name at least one checkout")
    runs: dict[str, list[dict[str, dict]]] = {}
    for _ in range(args.repeat):
        for root in args.roots:
            runs.setdefault(str(root), []).append(_child(root, args.ids, floor=False))
    floor = _child(args.roots[-1], args.ids, floor=True)
    pages = _pages(args.ids)
    best = {  # per checkout, per page: the fastest round (wall and CPU each)
        root: {
            p["id"]: {k: min(r[p["id"]][k] for r in rounds) for k in ("wall", "cpu")} for p in pages
        }
        for root, rounds in runs.items()
    }
    print("| class | pages | " + " | ".join(f"`{r}` wall / CPU s" for r in best) + " | "
          + " | ".join(f"CPU ratio `{r}`/`{args.roots[0]}`" for r in list(best)[1:])
          + " | Tesseract alone CPU s |")  # fmt: skip
    print("|---|---|" + "---|" * (2 * len(best)))
    for cls in ("born-digital", "scanned"):
        ids = [p["id"] for p in pages if ("scanned" in p["classes"]) == (cls == "scanned")]
        if not ids:
            continue
        cells = []
        for root in best:
            wall = statistics.median(best[root][i]["wall"] for i in ids)
            cpu = statistics.median(best[root][i]["cpu"] for i in ids)
            cells.append(f"{wall:.2f} / {cpu:.2f}")
        base = best[str(args.roots[0])]
        ratios = [
            statistics.median(best[r][i]["cpu"] / base[i]["cpu"] for i in ids)
            for r in list(best)[1:]
        ]
        tess = statistics.median(floor[i]["cpu"] for i in ids)
        print(f"| {cls} | {len(ids)} | " + " | ".join(cells) + " | "
              + " | ".join(f"{x:.2f}" for x in ratios) + f" | {tess:.2f} |")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
