"""The workbench pipeline against the raw OCR engine, on the same real pages, in one run.

    python benchmarks/cpu_pipeline.py [PDF ...] [--dpi 200] [--rounds 2]

"raw engine": Tesseract (tesserocr, the same traineddata) reading each pre-rendered page
image whole with ``GetUTF8Text`` — what a bare OCR call costs and gives.
"pipeline": the workbench path a user gets: rasterize the PDF page, the embedded CPU engine
(Tesseract + CDLA layout + RapidOCR on tables/handwriting + signatures), reading order,
Markdown assembly.

The two alternate page by page (raw, pipeline, raw, pipeline…) so machine drift hits both,
and each figure is the median over ``--rounds``. Character error rate (CER) and word F1 are
measured against each PDF's own text layer with :mod:`workbench.evaluate.metrics` (the
pipeline's Markdown read as plain text first; pooled CER sums the pages' edits and reference
characters). Prints the overhead ratio (pipeline s/page ÷ raw s/page) and pages per second.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from workbench.documents import open_document  # noqa: E402
from workbench.documents.textlayer import pdf_text_layer  # noqa: E402
from workbench.engines.cpu.engine import get_cpu_engine  # noqa: E402
from workbench.evaluate.metrics import CharErrors, char_errors, plain_text, word_f1  # noqa: E402
from workbench.logs import quiet_libraries  # noqa: E402
from workbench.models.registry import CPU_SPEC  # noqa: E402
from workbench.pipeline.process import process  # noqa: E402

DEFAULT_PDFS = ["sf424_page2.pdf", "census_12s0324.pdf", "pdflatex_outline.pdf", "va210966_p1.pdf"]


def raw_tesseract(images: list) -> tuple[list[str], list[float]]:
    import tesserocr

    from workbench.engines.cpu.readers.ocr import tessdata_dir

    texts, times = [], []
    with tesserocr.PyTessBaseAPI(path=str(tessdata_dir()) + "/", lang="eng") as api:
        for image in images:
            t0 = time.perf_counter()
            api.SetImage(image)
            texts.append(api.GetUTF8Text())
            times.append(time.perf_counter() - t0)
    return texts, times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("pdfs", nargs="*", type=Path)
    parser.add_argument("--dpi", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    quiet_libraries()
    pdfs = args.pdfs or [ROOT / "tests" / "data" / n for n in DEFAULT_PDFS]
    pdfs = [p for p in pdfs if p.exists()]
    if not pdfs:
        print("no PDFs found; pass some", file=sys.stderr)
        return 2

    engine = get_cpu_engine()
    warm = open_document(pdfs[0].name, pdfs[0].read_bytes()).page(1, dpi=72)
    list(process(engine, CPU_SPEC, [warm]))  # load models before timing

    rows = []
    for pdf in pdfs:
        data = pdf.read_bytes()
        doc = open_document(pdf.name, data)
        for n in range(1, doc.page_count + 1):
            ref = pdf_text_layer(data, n)
            image = doc.page(n, dpi=args.dpi).image
            raw_t, pipe_t = [], []
            raw_text = pipe_text = ""
            for _ in range(args.rounds):
                texts, times = raw_tesseract([image])
                raw_text, raw_t = texts[0], [*raw_t, times[0]]
                t0 = time.perf_counter()
                fresh = open_document(pdf.name, data)  # rasterize inside the timed span
                [item] = list(process(engine, CPU_SPEC, [fresh.page(n, dpi=args.dpi)]))
                pipe_t.append(time.perf_counter() - t0)
                pipe_text = plain_text(item.result.markdown)
            rows.append(
                (
                    f"{pdf.name} p{n}",
                    statistics.median(raw_t),
                    statistics.median(pipe_t),
                    ref,
                    raw_text,
                    pipe_text,
                )
            )

    print(
        f"{'page':34} {'raw s':>7} {'pipe s':>7} {'ratio':>6} {'CER raw':>8} "
        f"{'CER pipe':>8} {'F1 raw':>7} {'F1 pipe':>7}"
    )
    raw_errors, pipe_errors = [], []
    for name, rt, pt, ref, raw_text, pipe_text in rows:
        raw_errors.append(char_errors(raw_text, ref))
        pipe_errors.append(char_errors(pipe_text, ref))
        print(
            f"{name:34} {rt:7.2f} {pt:7.2f} {pt / rt:6.2f} {raw_errors[-1].cer:8.3f} "
            f"{pipe_errors[-1].cer:8.3f} {word_f1(raw_text, ref).f1:7.3f} "
            f"{word_f1(pipe_text, ref).f1:7.3f}"
        )
    raw_total = sum(r[1] for r in rows)
    pipe_total = sum(r[2] for r in rows)
    print(
        f"\n{len(rows)} pages at {args.dpi} DPI, median of {args.rounds} rounds per page\n"
        f"raw engine: {raw_total / len(rows):.2f} s/page ({len(rows) / raw_total:.2f} pages/s)\n"
        f"pipeline:   {pipe_total / len(rows):.2f} s/page ({len(rows) / pipe_total:.2f} pages/s)\n"
        f"overhead ratio (pipeline / raw): {pipe_total / raw_total:.2f}\n"
        f"pooled CER vs text layer: raw {_pooled(raw_errors):.3f}, "
        f"pipeline {_pooled(pipe_errors):.3f}"
    )
    return 0


def _pooled(errors: list[CharErrors]) -> float:
    """Summed edits over summed reference characters (joining the texts would be cut at
    MAX_CER_CHARS and would let one page's text align with another's)."""
    return sum(e.edits for e in errors) / max(sum(e.reference_chars for e in errors), 1)


if __name__ == "__main__":
    raise SystemExit(main())
