"""What ruled tables cost per born-digital page of the corpus (issue 35): reading the page's
ruling lines (:mod:`workbench.documents.ruling`, part of the text layer) and pdfplumber's grid
finding on them (:mod:`workbench.engines.cpu.tables.ruled`), beside the rest of the text layer.

    python benchmarks/corpus/ruled_cost.py      # corpus built by build.py (README.md here)
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import pypdfium2 as pdfium

from workbench.documents import ruling, textlayer
from workbench.engines.cpu.tables import ruled

CACHE = Path.home() / ".cache/ocr-workbench/corpus"


def _q(xs: list[float]) -> str:
    p90 = sorted(xs)[int(0.9 * len(xs))]
    mid, top = 1000 * statistics.median(xs), 1000 * max(xs)
    return f"median {mid:.1f} ms, p90 {1000 * p90:.1f}, max {top:.1f}"


def main() -> int:
    import pdfplumber  # noqa: F401  (imported once per process, as in the engine)

    index = json.loads((CACHE / "index.json").read_text())
    rest, lines, grids = [], [], []
    for r in index:
        if "scan" in r["classes"]:
            continue
        pdf = pdfium.PdfDocument(str(CACHE / "pages" / f"{r['id']}.pdf"))
        page = pdf[0]
        to_pt = textlayer._transform(page, *page.get_size())
        t0 = time.perf_counter()
        textlayer.extract(page)  # reads the ruling lines too
        t1 = time.perf_counter()
        edges = ruling.edges(page, to_pt)
        t2 = time.perf_counter()
        ruled.grids(edges, 200 / 72, 200 / 72)
        t3 = time.perf_counter()
        rest.append(t1 - t0 - (t2 - t1))
        lines.append(t2 - t1)
        grids.append(t3 - t2)
        page.close()
        pdf.close()
    print(f"{len(rest)} born-digital pages")
    print("text layer, without its ruling lines:", _q(rest))
    print("ruling lines (documents/ruling.py):", _q(lines))
    print("pdfplumber's grids (tables/ruled.py):", _q(grids))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
