"""The Viewer's display copy of a PDF page is drawn by PDFium at the display size: the same
size as the model's page scaled down, and the same picture (the boxes line up)."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageFilter

from workbench.documents import open_document
from workbench.models.registry import CPU_SPEC, get_spec
from workbench.pipeline.prepare import sized
from workbench.settings import Settings
from workbench.ui.files import display_image, display_jpeg

DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.mark.parametrize("spec", [CPU_SPEC, get_spec("lightonai/LightOnOCR-2-1B")])
@pytest.mark.parametrize("name", ["census_12s0324.pdf", "two_column_article.pdf"])
def test_display_copy_matches_the_downscaled_model_page(name: str, spec: object) -> None:
    data = (DATA / name).read_bytes()
    doc = open_document(name, data, Settings())
    dpi = float(spec.sizing.dpi or 200)  # type: ignore[attr-defined]
    full = sized(doc.page(1, dpi).image, spec.sizing)  # type: ignore[attr-defined]
    before = Image.open(io.BytesIO(display_jpeg(full, 700))).convert("L")
    now = Image.open(
        io.BytesIO(display_image.__wrapped__("sha", name, 1, dpi, spec.sizing, 700, doc))  # type: ignore[attr-defined]
    ).convert("L")
    assert now.size == before.size
    # The same page, anti-aliased a little differently (small type differs pixel by pixel)...
    a, b = (np.asarray(i.filter(ImageFilter.GaussianBlur(1)), np.int16) for i in (now, before))
    assert np.abs(a - b).mean() < 4
    # ...and in the same place: a shift by one pixel either way matches worse.
    here = np.abs(np.asarray(now, np.int16) - np.asarray(before, np.int16)).mean()
    for dx in (-1, 1):
        moved = np.roll(np.asarray(now, np.int16), dx, axis=1)
        assert here < np.abs(moved - np.asarray(before, np.int16)).mean()
