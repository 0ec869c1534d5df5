"""The size an image (or a TIFF frame) may claim before it is refused, and the refusal's text.

A decompression bomb is a small file whose header claims a giant image; the size is checked
from the header, before anything is decoded. A real giant scan can be read by raising the
limit (``WORKBENCH_MAX_IMAGE_MP``), which the refusal names with the value that would do.
"""

from __future__ import annotations

import os

#: An image whose header claims more pixels than this is refused as a decompression bomb
#: (decoded, 200 MP of RGB is 600 MB); ``WORKBENCH_MAX_IMAGE_MP`` raises it for a real giant
#: scan, and the refusal says so.
BOMB_PIXELS = 200_000_000


def max_image_pixels() -> int:
    """The limit in force: ``WORKBENCH_MAX_IMAGE_MP`` (megapixels) or :data:`BOMB_PIXELS`."""
    raw = os.environ.get("WORKBENCH_MAX_IMAGE_MP", "").strip()
    try:
        return int(float(raw) * 1_000_000) if raw else BOMB_PIXELS
    except ValueError:
        return BOMB_PIXELS


def too_large(w: int, h: int) -> str:
    limit = max_image_pixels()
    return (
        f"claims {w}×{h} pixels ({w * h / 1e6:.0f} MP), more than the {limit / 1e6:.0f} MP limit "
        f"(a possible decompression bomb); to read it, set WORKBENCH_MAX_IMAGE_MP="
        f"{(w * h) // 1_000_000 + 1} (about {w * h * 3 / 1e9:.1f} GB of memory a page)"
    )
