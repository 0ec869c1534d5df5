"""Score the CPU engine (and pymupdf4llm beside it) on the development corpus of issue 35, per
half (tuning / checking) and per class, with the confidence calibration table.

    python benchmarks/corpus/build.py                    # once: the corpus into the cache
    bash benchmarks/devset/peers.sh                      # once: pymupdf4llm in a side venv
    nice python benchmarks/corpus/score.py [--half tuning] [--classes table] \
        [--only workbench pymupdf4llm] [--docs ID ...] [--json out.json]
    python benchmarks/corpus/score.py --from-json a.json b.json   # re-score; a later file wins

Engines are benchmarks/heldout.py's runners (the workbench's user path through
``process_document`` with the CPU engine; pymupdf4llm as a subprocess of its own venv, AGPL,
never imported), run in turns on chunks of pages so both see the same machine load. Metrics
are workbench/evaluate's (through heldout.py's ``fold``): on the page's text truth text
similarity, word F1 and reading order; TEDS on its table truth; heading F1 on its outline
headings (build.py says what each truth is). A page's score is the mean of those it has,
times 100. Heading precision/recall are pooled over every page of a document with an outline
(a heading on a page the outline names nothing on counts against precision).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import heldout  # noqa: E402  (benchmarks/heldout.py: the runners and the text folding)

from workbench.evaluate.metrics import plain_text  # noqa: E402
from workbench.evaluate.structure import heading_match, page_teds  # noqa: E402

CACHE = Path(os.environ.get("OCR_WORKBENCH_CORPUS", Path.home() / ".cache/ocr-workbench/corpus"))
ENGINES = ("workbench", "pymupdf4llm")
CLASSES = ("text", "table", "headings", "form", "scan")
CHUNK = 40  # pages per turn: each engine runs a chunk, then the next engine the same chunk


@dataclass
class PageScore:
    page: str
    doc: str
    half: str
    classes: list[str]
    engine: str
    score: float | None  # None: no part could be measured (only its headings count)
    parts: dict[str, float]
    headings: list[int]  # matched, hypothesis, truth (outline documents only)
    seconds: float
    confidence: float | None
    error: str | None
    markdown: str


def score(entry: dict, engine: str, out: heldout.Output, truth: dict) -> PageScore:
    hyp_md = heldout.fold(out.markdown)
    parts: dict[str, float] = {}
    if truth["text"].strip():
        hyp, ref = plain_text(hyp_md), plain_text(heldout.fold(truth["text"]))
        parts.update(heldout.text_parts(hyp, ref))
    if truth["tables"]:
        teds = page_teds(hyp_md, truth["tables"])
        if teds is not None:
            parts["teds"] = teds
    heads = [0, 0, 0]
    if truth["headings"] is not None:
        match = heading_match(hyp_md, truth["headings"])
        heads = [match.matched, match.hypothesis, match.truth]
        if match.truth and match.f1 is not None:
            parts["headings"] = match.f1
    return PageScore(
        entry["id"], entry["doc"], entry["half"], entry["classes"], engine,
        100 * sum(parts.values()) / len(parts) if parts else None, parts, heads, out.seconds,
        out.confidence, out.error, out.markdown,
    )  # fmt: skip


def run(pdfs: list[Path], engines: list[str]) -> dict[str, dict[Path, heldout.Output]]:
    outputs: dict[str, dict[Path, heldout.Output]] = {e: {} for e in engines}
    for start in range(0, len(pdfs), CHUNK):
        chunk = pdfs[start : start + CHUNK]
        for e in engines if (start // CHUNK) % 2 == 0 else engines[::-1]:
            print(f"{e}: pages {start + 1}-{start + len(chunk)}", file=sys.stderr, flush=True)
            outputs[e].update(heldout.RUNNERS[e](chunk))
    return outputs


def _mean(xs: list[float]) -> str:
    return f"{100 * sum(xs) / len(xs):.1f}" if xs else "–"


def table(scores: list[PageScore], engines: list[str], halves: list[str]) -> str:
    """One Markdown table per half: rows are classes and metrics, columns the engines."""
    out = []
    for half in halves:
        mine = [s for s in scores if s.half == half]
        if not mine:
            continue
        docs = len({s.doc for s in mine})
        out += [f"#### {half} half ({len({s.page for s in mine})} pages, {docs} documents)", ""]
        out += ["| | " + " | ".join(engines) + " |", "|---|" + "---|" * len(engines)]

        def row(label: str, pick, mine=mine, out=out) -> None:
            cells = []
            for e in engines:
                vals = [v for s in mine if s.engine == e and (v := pick(s)) is not None]
                cells.append(_mean(vals) + (f" ({len(vals)})" if label.startswith("score") else ""))
            out.append(f"| {label} | " + " | ".join(cells) + " |")

        row("score, all pages", lambda s: s.score / 100 if s.score is not None else None)
        for c in CLASSES:
            row(
                f"score, {c}",
                lambda s, c=c: s.score / 100 if c in s.classes and s.score is not None else None,
            )
        for part, label in (
            ("similarity", "text similarity"),
            ("word_f1", "word F1"),
            ("order", "reading order"),
            ("teds", "table TEDS"),
        ):
            row(label, lambda s, p=part: s.parts.get(p))
        for label, idx in (("heading precision", 1), ("heading recall", 2)):
            cells = []
            for e in engines:
                got = [s.headings for s in mine if s.engine == e]
                total = sum(h[idx] for h in got)
                cells.append(f"{100 * sum(h[0] for h in got) / total:.0f} %" if total else "–")
            out.append(f"| {label} | " + " | ".join(cells) + " |")
        for label, scan in (("median s/page, born-digital", False), ("median s/page, scan", True)):
            cells = []
            for e in engines:
                secs = [s.seconds for s in mine if s.engine == e and ("scan" in s.classes) == scan]
                cells.append(f"{statistics.median(secs):.2f}" if secs else "–")
            out.append(f"| {label} | " + " | ".join(cells) + " |")
        out.append("")
    return "\n".join(out)


def calibration(scores: list[PageScore], halves: list[str]) -> str:
    """Pages under 85 should read confidence < 0.7; pages over 95, > 0.85 (issue 35)."""
    out = ["| half | pages < 85 with confidence < 0.7 | pages > 95 with confidence > 0.85 |"]
    out.append("|---|---|---|")
    for half in halves:
        wb = [
            s for s in scores if s.engine == "workbench" and s.half == half and s.score is not None
        ]
        low = [s for s in wb if s.score < 85]
        high = [s for s in wb if s.score > 95]
        ok_low = sum(1 for s in low if s.confidence is not None and s.confidence < 0.7)
        ok_high = sum(1 for s in high if s.confidence is not None and s.confidence > 0.85)
        out.append(f"| {half} | {ok_low} of {len(low)} | {ok_high} of {len(high)} |")
    return "\n".join(out)


SCORE_BANDS = (("< 85", 0.0, 85.0), ("85-95", 85.0, 95.0), ("> 95", 95.0, 101.0))
CONF_BANDS = (("< 0.7", 0.0, 0.7), ("0.7-0.85", 0.7, 0.85), ("> 0.85", 0.85, 1.01))


def calibration_grid(scores: list[PageScore], halves: list[str]) -> str:
    """Workbench pages by score band (rows) and page confidence band (columns), per half: where
    confidence says the right thing (issue 35's bar: the < 85 row all under 0.7, the > 95 row
    all over 0.85)."""
    head = " | ".join(c for c, _, _ in CONF_BANDS)
    out = [f"| half | score | {head} | no confidence |", "|---|---|" + "---|" * 4]
    for half in halves:
        wb = [s for s in scores if s.engine == "workbench" and s.half == half]
        for name, lo, hi in SCORE_BANDS:
            band = [s for s in wb if s.score is not None and lo <= s.score < hi]
            cells = [
                sum(1 for s in band if s.confidence is not None and a <= s.confidence < b)
                for _, a, b in CONF_BANDS
            ]
            none = sum(1 for s in band if s.confidence is None)
            out.append(f"| {half} | {name} | " + " | ".join(map(str, cells)) + f" | {none} |")
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--half", choices=("tuning", "checking"), help="only this half")
    ap.add_argument("--classes", nargs="*", choices=CLASSES, help="only pages of these classes")
    ap.add_argument("--only", nargs="*", choices=ENGINES, help="only these engines")
    ap.add_argument("--docs", nargs="*", help="only pages of these document ids")
    ap.add_argument("--limit", type=int, help="only the first N pages (after the filters)")
    ap.add_argument("--json", type=Path, help="write every page's scores and outputs here")
    ap.add_argument("--from-json", type=Path, nargs="*", help="re-score saved outputs instead")
    args = ap.parse_args()
    from workbench.logs import quiet_libraries

    quiet_libraries()
    index = json.loads((CACHE / "index.json").read_text())
    if args.half:
        index = [p for p in index if p["half"] == args.half]
    if args.classes:
        index = [p for p in index if set(p["classes"]) & set(args.classes)]
    if args.docs:
        index = [p for p in index if p["doc"] in args.docs]
    index = index[: args.limit] if args.limit else index
    pdfs = [CACHE / "pages" / f"{p['id']}.pdf" for p in index]
    engines = list(args.only or ENGINES)
    if args.from_json:
        rows = [r for path in args.from_json for r in json.loads(path.read_text())["scores"]]
        by = {(r["engine"], r["page"]): r for r in rows}
        outputs = {
            e: {
                pdf: heldout.Output(r["markdown"], r["seconds"], r["confidence"], r["error"])
                for p, pdf in zip(index, pdfs, strict=True)
                if (r := by.get((e, p["id"])))
            }
            for e in engines
        }
        engines = [e for e in engines if len(outputs[e]) == len(pdfs)]
    else:
        outputs = run(pdfs, engines)
    scores = [
        score(p, e, outputs[e][pdf], json.loads((CACHE / "truth" / f"{p['id']}.json").read_text()))
        for p, pdf in zip(index, pdfs, strict=True)
        for e in engines
    ]
    halves = [h for h in ("tuning", "checking") if any(p["half"] == h for p in index)]
    print(table(scores, engines, halves))
    if "workbench" in engines:
        print("\nConfidence calibration (workbench)\n\n" + calibration(scores, halves))
        print("\n" + calibration_grid(scores, halves))
    if args.json:
        args.json.write_text(json.dumps({"scores": [asdict(s) for s in scores]}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
