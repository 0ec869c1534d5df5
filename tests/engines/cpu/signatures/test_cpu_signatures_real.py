"""Signatures on real ink: the CPU engine (real Tesseract, CDLA, RapidOCR) on real pages.

No real *signed page* with a usable licence could be obtained offline, so the positives are
five real scanned pen signatures (tests/data/signatures/mocksign_*.png, MIT) written into the
signature field of the real DD Form 293 (box 25b, under "25b. SIGNATURE") and onto the blank
foot of the real SF-424 page 2 (no cue nearby), darkest-pixel blend, 2.5× (the pen strokes at
about 200 DPI). The expected boxes are the ink boxes of each signature measured by hand on the
crops (ink < 128) and placed with the paste. Negatives: the same pages unsigned (empty
signature field, form rules) and an 1871 Senate print whose signers are set in type.
"""

from __future__ import annotations

from pathlib import Path

import pypdfium2 as pdfium
import pytest
from PIL import Image, ImageChops

from tests.engines.cpu.signatures.signature_pages import signatures_found
from workbench.engines.cpu.boxes import iou

pytestmark = pytest.mark.slow
DATA = Path(__file__).resolve().parents[3] / "data"
SIGS = DATA / "signatures"
SCALE = 2.5

# (page, signature n, top-left of the paste, hand-measured ink box in page_px at 200 DPI)
SIGNED = [
    ("dd0293_p2", 1, (160, 1632), (177, 1639, 522, 1702)),
    ("dd0293_p2", 2, (180, 1632), (205, 1642, 532, 1699)),
    ("dd0293_p2", 3, (200, 1632), (227, 1644, 550, 1699)),
    ("dd0293_p2", 4, (220, 1632), (242, 1644, 587, 1702)),
    ("dd0293_p2", 5, (240, 1632), (270, 1649, 595, 1707)),
    ("sf424", 1, (900, 1990), (917, 1997, 1262, 2060)),
    ("sf424", 3, (900, 1990), (927, 2002, 1250, 2057)),
    ("sf424", 4, (900, 1990), (922, 2002, 1267, 2060)),
]
PAGES = {
    "dd0293_p2": (DATA / "dd0293_p1-2.pdf", 1),
    "sf424": (DATA / "sf424_page2.pdf", 0),
    "congress_1871": (SIGS / "congress_1871_printed_signers.pdf", 0),
}


def _render(key: str) -> Image.Image:
    path, page = PAGES[key]
    return pdfium.PdfDocument(path)[page].render(scale=200 / 72).to_pil().convert("RGB")


def _sign(page: Image.Image, n: int, at: tuple[int, int]) -> Image.Image:
    sig = Image.open(SIGS / f"mocksign_{n}.png").convert("RGB")
    sig = sig.resize((round(sig.width * SCALE), round(sig.height * SCALE)), Image.BICUBIC)
    out = page.copy()
    x, y = at
    under = out.crop((x, y, x + sig.width, y + sig.height))
    out.paste(ImageChops.darker(under, sig), (x, y))  # ink darkens the paper, as a pen does
    return out


@pytest.mark.parametrize(("page", "n", "at", "truth"), SIGNED, ids=lambda v: str(v))
def test_real_pen_signature_found_in_place(engine, page, n, at, truth):
    found = signatures_found(engine, _sign(_render(page), n, at))
    assert len(found) == 1, found  # one signature, nothing else on the page
    assert iou(found[0], tuple(map(float, truth))) >= 0.3, (found, truth)


@pytest.mark.parametrize("page", list(PAGES))
def test_no_signature_on_unsigned_pages(engine, page):
    """Empty signature fields, form rules, and names printed where signatures go."""
    assert signatures_found(engine, _render(page)) == []
