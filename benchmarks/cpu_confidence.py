"""Is the CPU engine's page confidence honest? Pages whose reading is scored, side by side
with the confidence the app shows (issue 23, item 9).

Pages: born-digital pages of tests/data rendered at 200 DPI and read by OCR (their text layer
is the truth), the same pages degraded (speckle noise, 60-DPI resampling, blur: real scanner
faults), the Huck Finn scan (its transcription is the truth), and the handwritten letters of
tests/data/signatures (read as gibberish: bad by inspection, no truth). A page is *bad* when
its word F1 against the truth is under ``BAD_F1`` (or it is a handwritten letter); the
engine is honest when every bad page is under ``schema.LOW_CONFIDENCE`` (the app's flag)
and every good page above it.

``--devset``: the structural evidence (:mod:`workbench.engines.cpu.readers.structure`) on the
development set of issue 23 (``benchmarks/devset``, built by ``benchmarks/devset/build.py``).
Each page is read once by the user path (:func:`workbench.pipeline.process.process_document`)
and scored as ``benchmarks/heldout.py`` scores it; its last composed page is kept, and its
confidence recomputed with no structural signal (as before the evidence), with each signal
alone and with all of them. A page is *bad* under ``BAD_SCORE``, *good* from ``GOOD_SCORE``;
the confusion table counts bad and good pages over and under the flag.

    PYTHONPATH=. python3 benchmarks/cpu_confidence.py [--quick]
    PYTHONPATH=. python3 benchmarks/cpu_confidence.py --devset [--ids ID ...]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pypdfium2 as pdfium
from PIL import Image, ImageFilter

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from workbench.engines.cpu import get_cpu_engine  # noqa: E402
from workbench.engines.cpu.page import Page  # noqa: E402
from workbench.engines.cpu.page import regions as block_regions  # noqa: E402
from workbench.engines.cpu.readers import structure  # noqa: E402
from workbench.evaluate.metrics import plain_text, word_f1  # noqa: E402
from workbench.markdown.assemble import assemble_page  # noqa: E402
from workbench.schema import LOW_CONFIDENCE, Region  # noqa: E402

DATA = ROOT / "tests" / "data"
BAD_F1 = 0.8  # a page losing or garbling more than a fifth of its words is badly read
BAD_SCORE = 85.0  # a devset page scoring under this (heldout.py's 0-100 score) is badly read
GOOD_SCORE = 90.0  # ...and from this on well read; between them neither verdict is wrong
BORN_DIGITAL = [
    ("pdflatex_outline.pdf", 1),
    ("two_column_article.pdf", 0),
    ("furniture_pages.pdf", 0),
    ("financial_statement.pdf", 0),
    ("dd0293_p1-2.pdf", 1),
    ("census_12s0324.pdf", 0),
]
LETTERS = [
    "letter_dow_1893.pdf", "letter_king_1893.pdf", "letter_howe_1893.pdf",
    "letter_tourgee_1894.pdf", "letter_lockwood_1893.pdf", "letter_anthony_p1.pdf",
    "letter_ferris_1938.pdf", "letter_bidwell_p2.pdf", "letter_robertson_1893.pdf",
    "letter_wilson_p2.pdf",
]  # fmt: skip


def render(path: Path, page: int = 0) -> Image.Image:
    return pdfium.PdfDocument(path)[page].render(scale=200 / 72).to_pil().convert("RGB")


def layer_text(path: Path, page: int) -> str:
    return pdfium.PdfDocument(path)[page].get_textpage().get_text_range()


def speckle(img: Image.Image, share: float = 0.12) -> Image.Image:
    a = np.asarray(img.convert("L")).copy()
    rng = np.random.default_rng(7)
    mask = rng.random(a.shape) < share
    a[mask] = rng.integers(0, 256, int(mask.sum()), dtype=np.uint8)
    return Image.fromarray(a).convert("RGB")


def low_res(img: Image.Image, dpi: int = 60) -> Image.Image:
    small = img.resize((img.width * dpi // 200, img.height * dpi // 200), Image.Resampling.BOX)
    return small.resize(img.size, Image.Resampling.BILINEAR)


def blur(img: Image.Image, radius: float = 3.5) -> Image.Image:
    return img.filter(ImageFilter.GaussianBlur(radius))


def page_confidence(regions: list[Region]) -> float | None:
    """As :attr:`workbench.schema.PageResult.confidence`: text-weighted region mean."""
    rated = [(r.confidence, max(len(r.text), 1)) for r in regions if r.confidence is not None]
    if not rated:
        return None
    return sum(c * n for c, n in rated) / sum(n for _, n in rated)


def _confidence(page: Page, off: frozenset[str] | None) -> float | None:
    """``page``'s confidence with the structural signals in ``off`` left out (None: all)."""
    for b in page.blocks:
        b.structure = 1.0
    if off is not None:
        structure.apply(page, off)
    return page_confidence(block_regions(page))


def _confusion(rows: list[tuple[float, float | None]]) -> str:
    cells = {(v, f): 0 for v in ("bad", "middle", "good") for f in (True, False)}
    for score, conf in rows:
        verdict = "bad" if score < BAD_SCORE else "good" if score >= GOOD_SCORE else "middle"
        cells[verdict, conf is not None and conf < LOW_CONFIDENCE] += 1
    return " | ".join(f"{cells[v, True]} / {cells[v, False]}" for v in ("bad", "middle", "good"))


def devset(ids: list[str] | None) -> None:
    """The devset pages read, scored and their confidence recomputed per signal (docstring)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from heldout import DEVSET, Output, score_page

    from workbench.documents import open_document
    from workbench.engines.cpu import passes
    from workbench.models.registry import CPU_SPEC
    from workbench.pipeline.process import process_document

    composed: list[Page] = []
    real = passes.run

    def recorder(page: Page, off: Iterable[str] = ()) -> Page:
        composed.append(real(page, off))
        return composed[-1]

    manifest = json.loads((DEVSET / "manifest.json").read_text())
    pages = [p for p in manifest["pages"] if not ids or p["id"] in ids]
    engine = get_cpu_engine()
    variants: dict[str, frozenset[str] | None] = {"no signal (before)": None}
    variants |= {f"{s} alone": frozenset(structure.SIGNALS) - {s} for s in structure.SIGNALS}
    variants["all signals (after)"] = frozenset()
    rows: dict[str, list[tuple[float, float | None]]] = {v: [] for v in variants}
    print("| page | score | before | after | app's |\n|---|---|---|---|---|")
    passes.run = recorder
    try:
        for p in pages:
            pdf = DEVSET / "cache" / "pages" / f"{p['id']}.pdf"
            composed.clear()
            doc = open_document(pdf.name, pdf.read_bytes())
            [item] = list(process_document(engine, CPU_SPEC, doc, [1], workers=0))
            out = Output(item.result.markdown, 0.0, item.result.confidence, item.result.error)
            score = score_page(p, "workbench", out, (DEVSET / p["truth"]).read_text()).score
            confs = {v: _confidence(composed[-1], off) for v, off in variants.items()}
            for v, c in confs.items():
                rows[v].append((score, c))
            shown = [confs["no signal (before)"], confs["all signals (after)"], out.confidence]
            cells = " | ".join("–" if c is None else f"{c:.3f}" for c in shown)
            print(f"| {p['id']} | {score:.1f} | {cells} |", flush=True)
    finally:
        passes.run = real
    print(f"\nflagged / not flagged (under {LOW_CONFIDENCE}); bad: score < {BAD_SCORE}, good: "
          f"≥ {GOOD_SCORE}\n\n| signals | bad | middle | good |\n|---|---|---|---|")  # fmt: skip
    for v, r in rows.items():
        print(f"| {v} | {_confusion(r)} |")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="two born-digital pages, 4 letters")
    ap.add_argument("--devset", action="store_true", help="structural evidence on the devset")
    ap.add_argument("--ids", nargs="*", help="--devset: only these page ids")
    args = ap.parse_args()
    if args.devset:
        devset(args.ids)
        return
    engine = get_cpu_engine().configured(text_layer="never")
    born = BORN_DIGITAL[:2] if args.quick else BORN_DIGITAL
    letters = LETTERS[:4] if args.quick else LETTERS
    cases: list[tuple[str, Image.Image, str | None]] = []
    for name, page in born:
        img, layer = render(DATA / name, page), layer_text(DATA / name, page)
        cases.append((f"{name}:{page + 1}", img, layer))
        for fault in (speckle, low_res, blur):
            cases.append((f"{name}:{page + 1} {fault.__name__}", fault(img), layer))
    huck = render(DATA / "scan_huckfinn_c03-29.pdf")
    huck_truth = (DATA / "scan_huckfinn_c03-29.truth.txt").read_text(encoding="utf-8")
    cases.append(("scan_huckfinn_c03-29.pdf", huck, huck_truth))
    cases += [(f"signatures/{n}", render(DATA / "signatures" / n), None) for n in letters]
    honest = 0
    print("| page | word F1 | bad | confidence | flagged | honest |\n|---|---|---|---|---|---|")
    for label, img, truth in cases:
        regions, _ = engine.analyze(img)
        text = plain_text(assemble_page(regions))
        f1 = word_f1(text, truth).f1 if truth is not None else None
        bad = f1 is None or f1 < BAD_F1
        conf = page_confidence(regions)
        flagged = conf is not None and conf < LOW_CONFIDENCE
        ok = flagged == bad or (conf is None and bad)
        honest += ok
        f1s = "–" if f1 is None else f"{f1:.3f}"
        cs = "–" if conf is None else f"{conf:.3f}"
        print(
            f"| {label} | {f1s} | {bad} | {cs} | {flagged} | {'yes' if ok else 'NO'} |", flush=True
        )
    print(f"\nhonest on {honest}/{len(cases)} pages (flag under {LOW_CONFIDENCE})")


if __name__ == "__main__":
    main()
