"""Is the CPU engine's page confidence honest? Pages whose reading is scored, side by side
with the confidence the app shows (issue 23, item 9).

Pages: born-digital pages of tests/data rendered at 200 DPI and read by OCR (their text layer
is the truth), the same pages degraded (speckle noise, 60-DPI resampling, blur: real scanner
faults), the Huck Finn scan (its transcription is the truth), and the handwritten letters of
tests/data/signatures (read as gibberish: bad by inspection, no truth). A page is *bad* when
its word F1 against the truth is under ``BAD_F1`` (or it is a handwritten letter); the
engine is honest when every bad page is under ``schema.LOW_CONFIDENCE`` (the app's flag)
and every good page above it.

    PYTHONPATH=. python3 benchmarks/cpu_confidence.py [--quick]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pypdfium2 as pdfium
from PIL import Image, ImageFilter

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from workbench.engines.cpu import get_cpu_engine  # noqa: E402
from workbench.evaluate.metrics import plain_text, word_f1  # noqa: E402
from workbench.markdown.assemble import assemble_page  # noqa: E402
from workbench.schema import LOW_CONFIDENCE, Region  # noqa: E402

DATA = ROOT / "tests" / "data"
BAD_F1 = 0.8  # a page losing or garbling more than a fifth of its words is badly read
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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="two born-digital pages, 4 letters")
    args = ap.parse_args()
    engine = get_cpu_engine().configured(text_layer="never")
    born = BORN_DIGITAL[:2] if args.quick else BORN_DIGITAL
    letters = LETTERS[:4] if args.quick else LETTERS
    cases: list[tuple[str, Image.Image, str | None]] = []
    for name, page in born:
        img, truth = render(DATA / name, page), layer_text(DATA / name, page)
        cases.append((f"{name}:{page + 1}", img, truth))
        for fault in (speckle, low_res, blur):
            cases.append((f"{name}:{page + 1} {fault.__name__}", fault(img), truth))
    huck = render(DATA / "scan_huckfinn_c03-29.pdf")
    truth = (DATA / "scan_huckfinn_c03-29.truth.txt").read_text(encoding="utf-8")
    cases.append(("scan_huckfinn_c03-29.pdf", huck, truth))
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
