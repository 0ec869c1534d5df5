"""BBox.pixels: the one crop rule (figure files in run folders, the viewer's figure crops)."""

from __future__ import annotations

from workbench.schema import BBox


def test_pixels_floor_clamp_and_keep_one_pixel() -> None:
    box = BBox(x0=10.7, y0=20.2, x1=50.9, y1=60.5)
    assert box.pixels(100, 100) == (10, 20, 50, 60)
    assert box.pixels(200, 50, scale_x=2.0, scale_y=0.5) == (21, 10, 101, 30)
    # past the right/bottom edge: clamped to the image
    assert BBox(x0=90, y0=95, x1=140, y1=130).pixels(100, 100) == (90, 95, 100, 100)
    # thinner than a pixel, or wholly outside: still a 1 px box inside the image
    assert BBox(x0=5.2, y0=5.1, x1=5.6, y1=5.3).pixels(100, 100) == (5, 5, 6, 6)
    assert BBox(x0=150, y0=150, x1=160, y1=170).pixels(100, 100) == (99, 99, 100, 100)
