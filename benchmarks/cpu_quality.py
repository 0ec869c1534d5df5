"""CPU engine quality on real pages: Tesseract alone vs RapidOCR alone vs the combined engine.

Ground truth is each PDF page's own text layer
(:func:`workbench.documents.textlayer.pdf_text_layer`),
scored with :mod:`workbench.evaluate.metrics` (the engine's Markdown read as plain text
first). Pages: the born-digital PDFs in tests/data, plus any PDFs in ``--extra DIR``
(held-out pages, e.g. extracted sdists). Prints, per variant: CER pooled over all pages,
median page CER, mean word-F1, seconds per page.

    python benchmarks/cpu_quality.py [--extra DIR] [--dpi 200] [--max-pages 20]

Each variant runs in this one process, page by page, side by side. The combined engine's
Markdown includes furniture (headers, footers, page numbers) here, since the text layer has it.
"cpu engine, tesseract-first only" is the engine with its RapidOCR second readings off (no
weak-line or missed-text reading, forms called tables kept as tables): what they add.

CER depends on the text layer's order. The VA 21-0966 form's text layer is in the order the
form was authored (item 7 before item 1, the header in the middle), so every reader scores
about 0.74 there however well it reads; its word-F1 (0.99) is the number to watch.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workbench.documents import open_document
from workbench.documents.textlayer import pdf_text_layer
from workbench.engines.cpu.engine import CpuEngine
from workbench.errors import WorkbenchError
from workbench.evaluate.metrics import char_errors, plain_text, word_f1
from workbench.logs import quiet_libraries
from workbench.markdown.assemble import assemble_page

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"
BORN_DIGITAL = [
    "sf424_page2.pdf",
    "dd0293_p1-2.pdf",
    "va210966_p1.pdf",
    "census_12s0324.pdf",
    "pdflatex_outline.pdf",
]


def pages(extra: Path | None, dpi: int, max_pages: int):
    files = [DATA / f for f in BORN_DIGITAL]
    if extra is not None:
        files += sorted(extra.rglob("*.pdf"))
    for f in files:
        data = f.read_bytes()
        try:
            doc = open_document(f.name, data)
        except WorkbenchError:
            continue
        for n in range(1, min(doc.page_count, 3) + 1):
            ref = pdf_text_layer(data, n, f.name)
            if len(ref.strip()) < 50:
                continue
            yield f"{f.name}#{n}", doc.page(n, dpi=dpi).image, ref
            max_pages -= 1
            if max_pages <= 0:
                doc.close()
                return
        doc.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--extra", type=Path)
    ap.add_argument("--dpi", type=int, default=200)
    ap.add_argument("--max-pages", type=int, default=20)
    args = ap.parse_args()
    quiet_libraries()

    engine = CpuEngine()
    bare = CpuEngine(read_missed=False, dissolve_forms=False, weak_conf=0)
    assert engine.tess is not None and engine.rapid is not None

    def tesseract(im):
        return "\n".join(ln.text for ln in engine.tess.read(im)[0])

    def rapid(im):
        return "\n".join(ln.text for ln in engine.rapid.read(im, latin=False))

    def rapid_latin(im):
        return "\n".join(ln.text for ln in engine.rapid.read(im))

    def combined(im, eng=engine):
        regions, _ = eng.analyze(im)
        return plain_text(assemble_page(regions, include_furniture=True))

    variants = {
        "tesseract": tesseract,
        "rapidocr": rapid,
        "rapidocr+cjk-filter": rapid_latin,
        "cpu engine": combined,
        "cpu engine, tesseract-first only": lambda im: combined(im, bare),
    }
    stats: dict[str, dict[str, list[float]]] = {
        v: {"d": [], "n": [], "f1": [], "s": []} for v in variants
    }
    from PIL import Image

    for eng in (engine, bare):  # first-call costs out of the timings
        eng.analyze(Image.new("RGB", (600, 800), "white"))
    for key, image, ref in pages(args.extra, args.dpi, args.max_pages):
        row = []
        for name, fn in variants.items():
            t = time.perf_counter()
            hyp = fn(image)
            secs = time.perf_counter() - t
            errors = char_errors(hyp, ref)
            d, n = errors.edits, errors.reference_chars
            s = stats[name]
            s["d"].append(d)
            s["n"].append(n)
            s["f1"].append(word_f1(hyp, ref).f1)
            s["s"].append(secs)
            row.append(f"{name.split(',')[0] if ',' not in name else 'bare'}={d / max(n, 1):.3f}")
        print(f"{key:26s} " + "  ".join(row), flush=True)
    print()
    print(
        f"{'variant':34s} {'CER pooled':>10s} {'CER median':>10s} {'word-F1':>8s} "
        f"{'s/page':>7s} {'s max':>6s} {'ratio':>6s}"
    )
    base = sum(stats["cpu engine"]["s"]) or 1.0
    for name, s in stats.items():
        if not s["n"]:
            continue
        pooled = sum(s["d"]) / max(sum(s["n"]), 1)
        med = statistics.median(d / max(n, 1) for d, n in zip(s["d"], s["n"], strict=True))
        print(
            f"{name:34s} {pooled:10.3f} {med:10.3f} {float(np.mean(s['f1'])):8.3f} "
            f"{statistics.median(s['s']):7.2f} {max(s['s']):6.2f} {sum(s['s']) / base:6.2f}"
        )


if __name__ == "__main__":
    main()
