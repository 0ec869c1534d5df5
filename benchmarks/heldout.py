"""The development set of issue 23, scored side by side: workbench | pymupdf4llm | Tesseract
alone | raw text layer, per page and per class, in one run.

    python benchmarks/devset/build.py            # once: pages into benchmarks/devset/cache/
    bash benchmarks/devset/peers.sh              # once: pymupdf4llm in benchmarks/.venv-peers
    nice python benchmarks/heldout.py [--classes tables math] [--pages N]
        [--only workbench|pymupdf4llm|tesseract|textlayer] [--json out.json]
    python benchmarks/heldout.py --from-json a.json [b.json]   # re-score saved outputs

Engines (each page is the single-page PDF ``cache/pages/<id>.pdf``):

workbench
    The user path: the document opened as the app opens it, the page rendered at the CPU
    spec's resolution and run through :func:`workbench.pipeline.process.process_document`
    with the process-wide :func:`~workbench.engines.cpu.get_cpu_engine`; the page result's
    Markdown (what the app shows and exports) and its ``confidence`` (what the app flags
    under ``LOW_CONFIDENCE``). Seconds include opening and rendering.
pymupdf4llm
    ``pymupdf4llm.to_markdown(pdf)`` with pymupdf-layout, in its own venv, as a subprocess
    (AGPL: never imported here); given the PDF, scans included, as a user would.
tesseract
    Tesseract alone (tesserocr, the engine's own traineddata) on the page rendered as the
    workbench renders it: ``GetUTF8Text`` of the whole page.
textlayer
    :func:`workbench.documents.textlayer.pdf_text_layer`: the PDF's own text, no structure.

Metrics (:mod:`workbench.evaluate.metrics`, :mod:`workbench.evaluate.structure`): text
similarity and word F1 on plain text (Markdown rendered and stripped; quotes, dashes,
bullets folded on both sides, leader dots dropped), reading order, TEDS on the truth's
tables, heading precision/recall, formula-token recall. A page's **score** is the mean of
those that apply (similarity and word F1 always; order where two words are each once on
both sides; TEDS when the truth has a table;
heading F1 when either side has headings; formula recall when the truth has formulas),
times 100; a class's score is the mean over its pages. Heading precision/recall are pooled
over pages (summed counts).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from workbench.evaluate.metrics import plain_text, similarity, word_f1  # noqa: E402
from workbench.evaluate.structure import (  # noqa: E402
    control_chars,
    heading_match,
    math_token_recall,
    page_teds,
    reading_order,
)

DEVSET = ROOT / "benchmarks" / "devset"
PEER_PYTHON = ROOT / "benchmarks" / ".venv-peers" / "bin" / "python"
ENGINES = ("workbench", "pymupdf4llm", "tesseract", "textlayer")
LABELS = {
    "workbench": "workbench",
    "pymupdf4llm": "pymupdf4llm",
    "tesseract": "Tesseract alone",
    "textlayer": "raw text layer",
}
_FOLD = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-",
    "\u2212": "-", "\u2022": " ", "\u25e6": " ", "\u25aa": " ", "\u00a0": " ", "\u00ad": "",
})  # fmt: skip


@dataclass
class Output:
    markdown: str
    seconds: float
    confidence: float | None = None
    error: str | None = None


@dataclass
class Score:
    page: str
    engine: str
    classes: list[str]
    score: float
    similarity: float
    word_f1: float
    order: float | None
    teds: float | None
    headings: list[int]  # matched, hypothesis, truth
    heading_f1: float | None
    math: float | None
    control: int
    seconds: float
    confidence: float | None
    error: str | None = None
    parts: dict[str, float] = field(default_factory=dict)


_LEADERS = re.compile(r"(?:\. ?){3,}")  # dot leaders (and "..."): layout, not text


def fold(text: str) -> str:
    """Both sides, before any metric: typographic quotes, dashes and bullets to ASCII, runs of
    leader dots to one space (a dot-leader table's dots are not content)."""
    return _LEADERS.sub(" ", text.translate(_FOLD))


def text_parts(hyp: str, ref: str) -> dict[str, float]:
    """Similarity, word F1 and reading order of a page's plain text against its truth's.
    Order is left out where no two words are each once on both sides (a page of lorem ipsum
    repeats every word): it cannot be measured there, and counting it 0 scored a perfect
    page 66.7 for both engines; a wrong text is already low on the other two."""
    parts = {"similarity": similarity(hyp, ref), "word_f1": word_f1(hyp, ref).f1}
    order = reading_order(hyp, ref)
    if order is not None:
        parts["order"] = order
    return parts


def score_page(page: dict, engine: str, out: Output, truth: str) -> Score:
    hyp_md = fold(out.markdown)
    truth_md = fold(truth)
    hyp, ref = plain_text(hyp_md), plain_text(truth_md)
    heads = heading_match(hyp_md, truth_md)
    parts = text_parts(hyp, ref)
    order = parts.get("order")
    teds = page_teds(hyp_md, truth_md)
    if teds is not None:
        parts["teds"] = teds
    if heads.f1 is not None:
        parts["headings"] = heads.f1
    math = math_token_recall(hyp_md, truth_md)
    if math is not None:
        parts["math"] = math
    return Score(
        page=page["id"], engine=engine, classes=page["classes"],
        score=100 * sum(parts.values()) / len(parts),
        similarity=parts["similarity"], word_f1=parts["word_f1"], order=order, teds=teds,
        headings=[heads.matched, heads.hypothesis, heads.truth], heading_f1=heads.f1,
        math=math, control=control_chars(out.markdown), seconds=out.seconds,
        confidence=out.confidence, error=out.error, parts=parts,
    )  # fmt: skip


def run_workbench(pdfs: list[Path]) -> dict[Path, Output]:
    from workbench.documents import open_document
    from workbench.engines.cpu import get_cpu_engine
    from workbench.models.registry import CPU_SPEC
    from workbench.pipeline.process import process_document

    engine = get_cpu_engine()
    if off := os.environ.get("WORKBENCH_PASSES_OFF"):  # a pass's worth: the engine without it
        engine = engine.without(*off.split(","))
    if pdfs:  # models loaded before the first timed page
        list(
            process_document(
                engine, CPU_SPEC, open_document("w.pdf", pdfs[0].read_bytes()), [1], workers=0
            )
        )
    outs = {}
    for pdf in pdfs:
        t0 = time.perf_counter()
        try:
            doc = open_document(pdf.name, pdf.read_bytes())
            [item] = list(process_document(engine, CPU_SPEC, doc, [1], workers=0))
            result = item.result
            outs[pdf] = Output(
                result.markdown, time.perf_counter() - t0, result.confidence, result.error
            )
        except Exception as exc:
            outs[pdf] = Output("", time.perf_counter() - t0, None, f"{type(exc).__name__}: {exc}")
        print(f"  workbench {pdf.stem}: {outs[pdf].seconds:.2f}s", file=sys.stderr, flush=True)
    return outs


def run_tesseract(pdfs: list[Path]) -> dict[Path, Output]:
    import tesserocr

    from workbench.documents import open_document
    from workbench.engines.cpu.readers.ocr import tessdata_dir
    from workbench.models.registry import CPU_SPEC
    from workbench.pipeline.prepare import render_dpi

    outs = {}
    with tesserocr.PyTessBaseAPI(path=str(tessdata_dir()) + "/", lang="eng") as api:
        for pdf in pdfs:
            t0 = time.perf_counter()
            doc = open_document(pdf.name, pdf.read_bytes())
            image = doc.page(1, dpi=render_dpi(CPU_SPEC, doc.settings.dpi)).image
            api.SetImage(image)
            outs[pdf] = Output(api.GetUTF8Text(), time.perf_counter() - t0)
    return outs


def run_textlayer(pdfs: list[Path]) -> dict[Path, Output]:
    from workbench.documents.textlayer import pdf_text_layer

    outs = {}
    for pdf in pdfs:
        t0 = time.perf_counter()
        text = pdf_text_layer(pdf.read_bytes(), 1, pdf.name)
        outs[pdf] = Output(text, time.perf_counter() - t0)
    return outs


def run_pymupdf4llm(pdfs: list[Path]) -> dict[Path, Output]:
    if not PEER_PYTHON.exists():
        raise SystemExit(f"{PEER_PYTHON} missing: run bash benchmarks/devset/peers.sh")
    from workbench.engines.cpu.readers.ocr import tessdata_dir

    env = {**os.environ, "TESSDATA_PREFIX": str(tessdata_dir() or "")}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "peer.json"
        subprocess.run(
            [str(PEER_PYTHON), str(DEVSET / "peer_pymupdf4llm.py"), str(out), *map(str, pdfs)],
            check=True, env=env, stdout=sys.stderr,
        )  # fmt: skip
        data = json.loads(out.read_text())
    return {
        p: Output(data[str(p)]["markdown"], data[str(p)]["seconds"], None, data[str(p)]["error"])
        for p in pdfs
    }


RUNNERS = {
    "workbench": run_workbench,
    "pymupdf4llm": run_pymupdf4llm,
    "tesseract": run_tesseract,
    "textlayer": run_textlayer,
}


def _mean(xs: list[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def _fmt(x: float | None, pct: bool = False) -> str:
    return "–" if x is None else (f"{100 * x:.0f} %" if pct else f"{x:.1f}")


def summary(scores: list[Score], engines: list[str], classes: list[str]) -> str:
    """The Markdown tables: score by class, then metric rows, then per page."""
    by = {(s.page, s.engine): s for s in scores}
    pages = list(dict.fromkeys(s.page for s in scores))
    head = "| | " + " | ".join(LABELS[e] for e in engines) + " |\n|---|" + "---|" * len(engines)
    lines = ["### Score by class (mean page score, 0–100)", "", head]

    def row(name: str, pick) -> None:
        cells = []
        for e in engines:
            vals = [v for p in pages if (s := by.get((p, e))) and (v := pick(s)) is not None]
            cells.append(_fmt(_mean(vals)) + (f" ({len(vals)})" if name.startswith("all") else ""))
        lines.append(f"| {name} | " + " | ".join(cells) + " |")

    row("all pages, mean", lambda s: s.score)
    for c in classes:
        row(c, lambda s, c=c: s.score if c in s.classes else None)
    lines += ["", "### Metrics (page means; headings pooled)", "", head]
    row("text similarity", lambda s: 100 * s.similarity)
    row(
        "born-digital text similarity",
        lambda s: 100 * s.similarity if "born-digital" in s.classes else None,
    )
    row("scanned text similarity", lambda s: 100 * s.similarity if "scanned" in s.classes else None)
    row("word F1", lambda s: 100 * s.word_f1)
    row("reading order", lambda s: None if s.order is None else 100 * s.order)
    row("table structure (TEDS)", lambda s: None if s.teds is None else 100 * s.teds)
    row("formula tokens recall", lambda s: None if s.math is None else 100 * s.math)
    for label, idx in (("heading precision", 1), ("heading recall", 2)):
        cells = []
        for e in engines:
            mine = [by[(p, e)] for p in pages if (p, e) in by]
            matched = sum(s.headings[0] for s in mine)
            total = sum(s.headings[idx] for s in mine)
            cells.append(_fmt(matched / total if total else None, pct=True))
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    cells = []
    for e in engines:
        mine = [by[(p, e)] for p in pages if (p, e) in by]
        cells.append(f"{sum(s.control for s in mine)} in {sum(s.control > 0 for s in mine)} pages")
    lines.append("| NUL/control characters | " + " | ".join(cells) + " |")
    for label, cls in (
        ("median s/page, born-digital", "born-digital"),
        ("median s/page, scanned", "scanned"),
    ):
        cells = []
        for e in engines:
            secs = [by[(p, e)].seconds for p in pages if (p, e) in by and cls in by[(p, e)].classes]
            cells.append(f"{statistics.median(secs):.2f}" if secs else "–")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    lines += ["", "### Per page (score; workbench confidence and seconds)", ""]
    lines.append(
        "| page | classes | " + " | ".join(LABELS[e] for e in engines) + " | wb conf | wb s |"
    )
    lines.append("|---|---|" + "---|" * len(engines) + "---|---|")
    for p in pages:
        first = next(by[(p, e)] for e in engines if (p, e) in by)
        wb = by.get((p, "workbench"))
        cells = [_fmt(by[(p, e)].score) if (p, e) in by else "–" for e in engines]
        conf = _fmt(wb.confidence, pct=True) if wb and wb.confidence is not None else "–"
        lines.append(
            f"| {p} | {', '.join(first.classes)} | " + " | ".join(cells)
            + f" | {conf} | {wb.seconds:.2f} |" if wb else f"| {p} | {', '.join(first.classes)} | "
            + " | ".join(cells) + " | – | – |"
        )  # fmt: skip
    return "\n".join(lines)


def saved_outputs(paths: list[Path], pdfs: list[Path]) -> dict[str, dict[Path, Output]]:
    """The outputs earlier ``--json`` runs saved (a later file's page wins), for the pages
    asked for; an engine missing any of them is left out."""
    rows = [r for path in paths for r in json.loads(path.read_text())["scores"]]
    wanted = {pdf.stem: pdf for pdf in pdfs}
    outputs: dict[str, dict[Path, Output]] = {}
    for r in rows:
        if r["page"] in wanted:
            out = Output(r["markdown"], r["seconds"], r["confidence"], r["error"])
            outputs.setdefault(r["engine"], {})[wanted[r["page"]]] = out
    return {e: o for e, o in outputs.items() if len(o) == len(pdfs)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--classes", nargs="*", help="only pages of these classes")
    ap.add_argument("--pages", type=int, help="only the first N pages (after --classes)")
    ap.add_argument("--only", nargs="*", choices=ENGINES, help="only these engines")
    ap.add_argument("--ids", nargs="*", help="only these page ids")
    ap.add_argument("--json", type=Path, help="write every page's scores and outputs here")
    ap.add_argument(
        "--from-json",
        type=Path,
        nargs="*",
        help="score the outputs saved by earlier --json runs instead (a later file wins)",
    )
    args = ap.parse_args()
    from workbench.logs import quiet_libraries

    quiet_libraries()
    manifest = json.loads((DEVSET / "manifest.json").read_text())
    pages = manifest["pages"]
    if args.classes:
        pages = [p for p in pages if set(p["classes"]) & set(args.classes)]
    if args.ids:
        pages = [p for p in pages if p["id"] in args.ids]
    if args.pages:
        pages = pages[: args.pages]
    missing = [
        p["id"] for p in pages if not (DEVSET / "cache" / "pages" / f"{p['id']}.pdf").exists()
    ]
    if missing:
        raise SystemExit(f"not built: {', '.join(missing)}; run python benchmarks/devset/build.py")
    pdfs = [DEVSET / "cache" / "pages" / f"{p['id']}.pdf" for p in pages]
    engines = list(args.only or ENGINES)
    outputs = saved_outputs(args.from_json, pdfs) if args.from_json else {}
    engines = [e for e in engines if e in outputs] if args.from_json else engines
    for e in engines:
        if e not in outputs:
            print(f"running {e} on {len(pdfs)} pages", file=sys.stderr, flush=True)
            outputs[e] = RUNNERS[e](pdfs)
    scores = []
    for page, pdf in zip(pages, pdfs, strict=True):
        truth = (DEVSET / page["truth"]).read_text()
        for e in engines:
            scores.append(score_page(page, e, outputs[e][pdf], truth))
    classes = [c for c in manifest["classes"] if any(c in p["classes"] for p in pages)]
    print(summary(scores, engines, classes))
    if args.json:
        rows = [
            {
                **asdict(s),
                "markdown": outputs[s.engine][
                    DEVSET / "cache" / "pages" / f"{s.page}.pdf"
                ].markdown,
            }
            for s in scores
        ]
        args.json.write_text(
            json.dumps({"engines": engines, "classes": classes, "scores": rows}, indent=1)
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
