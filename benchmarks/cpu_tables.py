"""TEDS of the CPU engine's tables against ground truth, per table, through the text layer
(``auto``) and through OCR of the rendered page (``never``: what a scan gets).

Ground truth: ``tests/data/tables_truth/<pdf stem>.p<page>.<k>.html``, the k-th table of
that page (its source or its text layer, see tests/data/SOURCES.md). Each truth table is
scored against the best-matching table of the page's Markdown (a truth table the engine did
not find scores 0). TEDS: ``workbench/evaluate/structure.py``, through
``tests/engines/cpu/tables/teds.py``.

    PYTHONPATH=. python3 benchmarks/cpu_tables.py [--root DIR] [--modes auto,never]

``--root`` runs another checkout's engine (``/work/main``: the numbers before a change) on
this checkout's pages and truth.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
DATA = HERE / "tests" / "data"
TRUTH = DATA / "tables_truth"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=str(HERE))
    ap.add_argument("--modes", default="auto,never")
    ap.add_argument("--only", default="", help="a substring of the truth file names")
    args = ap.parse_args()
    sys.path.insert(0, str(HERE / "tests" / "engines" / "cpu" / "tables"))
    sys.path.insert(0, args.root)
    from teds import Node, parse_tables, teds  # type: ignore[import-not-found]

    from workbench.documents import open_document
    from workbench.engines.base import PageRequest
    from workbench.engines.cpu.engine import get_cpu_engine
    from workbench.markdown.assemble import assemble_page

    pages: dict[tuple[str, int], list[Path]] = defaultdict(list)
    for f in sorted(TRUTH.glob("*.html")):
        m = re.match(r"^(.+)\.p(\d+)\.(\d+)\.html$", f.name)
        if m and args.only in f.name:
            pages[(m.group(1), int(m.group(2)))].append(f)
    base = get_cpu_engine()
    print(f"engine: {args.root}")
    for mode in args.modes.split(","):
        engine = base.configured(text_layer=mode)
        scores: list[float] = []
        for (stem, index), truths in pages.items():
            pdf = DATA / f"{stem}.pdf"
            doc = open_document(pdf.name, pdf.read_bytes())
            page = doc.page(index, dpi=200)
            req = PageRequest(key="p", image=page.image, text_layer=page.text_layer)
            out = next(iter(engine.run([req])))
            found = parse_tables(assemble_page(out.regions or [], include_furniture=True))
            for t in truths:
                truth: Node = parse_tables(t.read_text())[0]
                best = max((teds(p, truth) for p in found), default=0.0)
                scores.append(best)
                print(f"  {mode:5} {t.name:40} TEDS {100 * best:5.1f}  ({len(found)} found)")
        mean = 100 * sum(scores) / max(len(scores), 1)
        print(f"{mode}: mean TEDS {mean:.1f} over {len(scores)} tables")


if __name__ == "__main__":
    main()
