"""Read every corpus page with the workbench (the user path, as heldout.py's runner) and keep
each page's whole :class:`~workbench.schema.PageResult` (regions with labels, boxes, sources
and confidences; the engine's trace) as JSON, one file a page: what ``confidence.py`` refits and
re-scores page confidence from without reading the pages again. The regions keep their
characters' confidence: the run sets ``confidence.TABLE_TRUST`` to 1 (tables weighed as any
other region), which changes no text.

    nice python benchmarks/corpus/dump_pages.py DIR [--half tuning]   # resumable: skips done pages
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

CACHE = Path.home() / ".cache/ocr-workbench/corpus"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("out", type=Path)
    ap.add_argument("--half", choices=("tuning", "checking"))
    args = ap.parse_args()
    from workbench.documents import open_document
    from workbench.engines.cpu import confidence, get_cpu_engine
    from workbench.logs import quiet_libraries
    from workbench.models.registry import CPU_SPEC
    from workbench.pipeline.process import process_document

    quiet_libraries()
    confidence.TABLE_TRUST = 1.0  # the characters' confidence: confidence.py weighs tables
    args.out.mkdir(parents=True, exist_ok=True)
    index = json.loads((CACHE / "index.json").read_text())
    index = [p for p in index if not args.half or p["half"] == args.half]
    engine = get_cpu_engine()
    for p in index:
        dest = args.out / f"{p['id']}.json"
        if dest.exists():
            continue
        pdf = CACHE / "pages" / f"{p['id']}.pdf"
        t0 = time.perf_counter()
        doc = open_document(pdf.name, pdf.read_bytes())
        [item] = list(process_document(engine, CPU_SPEC, doc, [1], workers=0))
        seconds = time.perf_counter() - t0
        body = {"page": p, "seconds": seconds, "result": item.result.model_dump(mode="json")}
        dest.write_text(json.dumps(body))
        print(f"{p['id']}: {seconds:.2f}s", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
