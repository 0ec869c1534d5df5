"""One page-sizing rule for the pipeline and the planner (workbench.models.fit_size)."""

from __future__ import annotations

import pytest
from PIL import Image

from workbench.models import PageSizing, fit_size, get_spec, planned_page
from workbench.pipeline.prepare import sized


def test_min_short_edge_longest_edge_and_max_pixels() -> None:
    assert fit_size(612, 792, PageSizing(min_short_edge=1024), is_image=False) == (1024, 1325)
    assert fit_size(2000, 3000, PageSizing(longest_edge=1540), is_image=False) == (1027, 1540)
    w, h = fit_size(4000, 4000, PageSizing(max_pixels=1_000_000), is_image=False)
    assert (w, h) == (1000, 1000)


def test_min_pixels_is_applied() -> None:
    # the old pipeline ignored min_pixels while the planner applied it
    w, h = fit_size(40, 50, PageSizing(min_pixels=3136, grid=28), is_image=False)
    assert w * h >= 3136 and w % 28 == 0 and h % 28 == 0
    assert (w, h) == (56, 84)


def test_grid_snaps_down_unless_that_breaks_min_pixels() -> None:
    assert fit_size(1700, 2200, PageSizing(grid=28), is_image=False) == (1680, 2184)


def test_image_files_get_chandras_1536_short_side() -> None:
    sizing = get_spec("datalab-to/chandra-ocr-2").sizing
    assert fit_size(1000, 1300, sizing, is_image=True)[0] == 1512  # 1536 snapped to 28 px
    assert fit_size(1000, 1300, sizing, is_image=False)[0] == 1008  # PDF rule: 1024
    # other models: no difference between an image file and a page
    dots = get_spec("rednote-hilab/dots.ocr").sizing
    assert fit_size(1000, 1300, dots, is_image=True) == fit_size(1000, 1300, dots, is_image=False)


def test_profile_cap() -> None:
    assert fit_size(1632, 2112, PageSizing(), is_image=False, cap=1280) == (989, 1280)


@pytest.mark.parametrize(
    "model",
    ["datalab-to/chandra-ocr-2", "rednote-hilab/dots.ocr", "lightonai/LightOnOCR-2-1B",
     "allenai/olmOCR-2-7B-1025", "deepseek-ai/DeepSeek-OCR"],
)  # fmt: skip
@pytest.mark.parametrize("is_image", [False, True])
def test_pipeline_and_planner_size_alike(model: str, is_image: bool) -> None:
    sizing = get_spec(model).sizing
    for size in ((612, 792), (1700, 2200), (3000, 4000), (30, 40)):
        image = Image.new("L", size, 255)
        sent = sized(image, sizing, is_image=is_image).size
        assert sent == fit_size(*size, sizing, is_image=is_image)
    # the planner's page is the larger of the PDF and image-file sizes of a letter page
    w, h = planned_page(sizing)
    assert (w, h) >= (1, 1)
