"""Signature detector on real ink: hits, misses and false positives per page, with the
measurements each candidate blob was judged on.

Positives: (1) the five real pen signatures in tests/data/signatures/ (MIT, see SOURCES.md)
written into real forms (darkest-pixel blend): DD Form 293 box 25b under "25b. SIGNATURE" at
2.5× and 2×, and the blank foot of SF-424 page 2 (no cue) at 2.5×; (2) fifteen real signed
letters photographed (public domain, SOURCES.md): fourteen handwritten ones whose signature
closes the page (Bidwell's above an addressee), one typed and signed in pen. A hit is a
detection with IoU ≥ ``HIT`` (0.5) against the signature's ink box (measured by hand for the
letters). Negatives: every page in tests/data (born-digital forms with empty signature
fields, Census tables, LaTeX pages, book scans), the 1871 Senate print whose signers are set
in type, five handwritten letter pages without a signature and a diary spread of handwriting
amid print. Any PDFs in ``--extra DIR`` are added as negatives (first page).

    python benchmarks/signatures.py [--extra DIR] [--verbose]

Runs the real CPU engine (Tesseract, CDLA, RapidOCR) at 200 DPI, as the app does.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pypdfium2 as pdfium
from PIL import Image, ImageChops

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workbench.engines.cpu import engine as engine_module
from workbench.engines.cpu import signatures
from workbench.engines.cpu.boxes import Box, LayoutBox, Line, inter, iou
from workbench.engines.cpu.engine import CpuEngine

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"
SIGS = DATA / "signatures"
NEGATIVES = [
    "sf424_page2.pdf",
    "dd0293_p1-2.pdf",
    "va210966_p1.pdf",
    "census_12s0324.pdf",
    "pdflatex_outline.pdf",
    "scan_huckfinn_c03-29.pdf",
    "scan_two_columns.pdf",
    "signatures/congress_1871_printed_signers.pdf",
    "signatures/letter_fitzhugh_lee_p1.pdf",  # handwritten page, no signature on it
    "signatures/diary_barton_1849.pdf",  # handwritten diary entries amid print
    "signatures/letter_wilson_p1.pdf",  # handwritten first page, no signature
    "signatures/letter_anthony_p1.pdf",  # handwritten first page, its last line indented
    "signatures/letter_robertson_1893.pdf",  # a small hand whose body lines all touch
]
# real signed letters (photographed, see SOURCES.md): the signature's ink box measured by hand
LETTERS = [
    ("signatures/letter_tourgee_1894.pdf", (322, 1060, 921, 1232)),  # handwritten, "Sincerely"
    ("signatures/letter_fitzhugh_lee_p2.pdf", (448, 870, 1000, 1148)),  # handwritten
    ("signatures/letter_butterfield.pdf", (560, 1447, 1065, 1585)),  # handwritten, beside "Yrs"
    ("signatures/letter_beaver_typed.pdf", (718, 1083, 1322, 1238)),  # typed, pen signature
    ("signatures/letter_ferris_1938.pdf", (475, 1742, 1272, 1830)),  # handwriting, letterhead
    ("signatures/letter_ross_1893.pdf", (455, 840, 872, 935)),  # handwritten, "Yours"
    ("signatures/letter_lockwood_1893.pdf", (135, 1535, 1035, 1622)),  # name from the margin
    ("signatures/letter_tracy_1892.pdf", (495, 1478, 890, 1660)),  # large hand, lines touch
    ("signatures/letter_bidwell_p2.pdf", (425, 722, 1005, 835)),  # an address below the name
    ("signatures/letter_king_1893.pdf", (513, 1447, 949, 1564)),  # handwritten
    ("signatures/letter_holmes_p3.pdf", (482, 622, 796, 697)),  # handwritten, at the foot
    ("signatures/letter_wilson_p2.pdf", (257, 912, 1050, 1131)),  # the name's words far apart
    ("signatures/letter_howe_1893.pdf", (421, 1014, 1006, 1092)),  # under "Yours truly,"
    ("signatures/letter_dow_1893.pdf", (649, 1255, 974, 1300)),  # under "Respectfully"
    ("signatures/letter_ow_holmes_1893.pdf", (227, 713, 1014, 786)),  # from the left edge
]
HIT = 0.5  # IoU with the hand-measured ink box that counts as found
# (page file, page index, top-left of the paste for signature n, scale)
PLACES = [
    ("dd0293_p1-2.pdf", 1, lambda n: (140 + 20 * n, 1632), 2.5),
    ("dd0293_p1-2.pdf", 1, lambda n: (500, 1640), 2.0),
    ("sf424_page2.pdf", 0, lambda n: (900, 1990), 2.5),
]


def render(path: Path, index: int) -> Image.Image:
    return pdfium.PdfDocument(path)[index].render(scale=200 / 72).to_pil().convert("RGB")


def sign(page: Image.Image, n: int, at: tuple[int, int], scale: float) -> tuple[Image.Image, Box]:
    """The page with signature ``n`` written at ``at``, and the box of its ink."""
    sig = Image.open(SIGS / f"mocksign_{n}.png").convert("RGB")
    sig = sig.resize(
        (round(sig.width * scale), round(sig.height * scale)), Image.Resampling.BICUBIC
    )
    out = page.copy()
    x, y = at
    under = out.crop((x, y, x + sig.width, y + sig.height))
    out.paste(ImageChops.darker(under, sig), (x, y))
    ys, xs = np.nonzero(np.asarray(sig.convert("L")) < 128)
    return out, (x + xs.min(), y + ys.min(), x + xs.max() + 1, y + ys.max() + 1)


@dataclass
class Score:
    hits: int = 0
    misses: int = 0
    fps: int = 0
    ious: list[float] = field(default_factory=list)

    def add(self, seen: list[signatures.Blob], truth: Box, label: str, verbose: bool) -> None:
        """Score one signed page: a hit is a found blob with IoU >= HIT; other finds are false
        positives."""
        found = [b for b in seen if b.ok]
        best = max((iou(b.box, truth) for b in found), default=0.0)
        good = sum(iou(b.box, truth) >= HIT for b in found)
        self.hits += good > 0
        self.misses += good == 0
        self.fps += len(found) - good
        self.ious.append(best)
        print(f"  {label}: found {len(found)}, best IoU {best:.2f}")
        for b in seen if verbose else []:
            if inter(b.box, truth) > 0 or b.ok:
                print(show(b))


def blobs(engine: CpuEngine, image: Image.Image) -> list[signatures.Blob]:
    """Every candidate blob the engine's own signature step saw on this page."""
    seen: list[signatures.Blob] = []
    real = engine_module.signatures.detect

    def spy(
        img: Image.Image,
        lines: list[Line],
        layout: Sequence[LayoutBox] = (),
        handwritten: bool = False,
        later: Sequence[Line] = (),
    ) -> list[Box]:
        seen.extend(
            signatures.measure(img, lines, layout=layout, handwritten=handwritten, later=later)
        )
        return real(img, lines, layout, handwritten=handwritten, later=later)

    setattr(engine_module.signatures, "detect", spy)  # noqa: B010 (a module function, swapped)
    try:
        engine.analyze(image)
    finally:
        setattr(engine_module.signatures, "detect", real)  # noqa: B010
    return seen


def show(b: signatures.Blob) -> str:
    return (
        f"      {[round(v) for v in b.box]} {b.reason or 'SIGNATURE'}: h={b.height:.1f} "
        f"w={b.width:.1f} ink={b.density:.2f} stroke={b.longest:.1f} pieces={b.pieces} "
        f"covered={b.covered:.2f} cue={'y' if b.near_cue else 'n'}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--extra", type=Path, help="folder of extra negative PDFs (first page)")
    ap.add_argument("--verbose", action="store_true", help="print every candidate blob")
    args = ap.parse_args()
    engine = CpuEngine()
    score = Score()
    print(f"positives (real pen signatures written into real forms), hit: IoU >= {HIT}")
    for name, index, at, scale in PLACES:
        page = render(DATA / name, index)
        for n in range(1, 6):
            image, truth = sign(page, n, at(n), scale)
            score.add(
                blobs(engine, image), truth, f"{name}[{index}] sig {n} ×{scale}", args.verbose
            )
    print("positives (real signed letters)")
    for name, truth in LETTERS:
        score.add(blobs(engine, render(DATA / name, 0)), truth, name, args.verbose)
    print("negatives (no signature on the page)")
    negatives = [(DATA / n, i) for n in NEGATIVES for i in range(len(pdfium.PdfDocument(DATA / n)))]
    negatives += [(p, 0) for p in sorted(args.extra.glob("*.pdf"))] if args.extra else []
    for path, index in negatives:
        seen = blobs(engine, render(path, index))
        found = [b for b in seen if b.ok]
        score.fps += len(found)
        print(f"  {path.name}[{index}]: {len(found)} false positive(s), {len(seen)} blobs judged")
        for b in found + ([b for b in seen if not b.ok] if args.verbose else []):
            print(show(b))
    print(
        f"\n{score.hits} hits, {score.misses} misses of {score.hits + score.misses} signatures; "
        f"median best IoU {statistics.median(score.ious):.2f}; {score.fps} false positives "
        f"({len(negatives)} unsigned pages + the signed ones)"
    )


if __name__ == "__main__":
    main()
