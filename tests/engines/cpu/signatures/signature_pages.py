"""What the signature tests share: the signature boxes the real CPU engine finds on a page."""

from __future__ import annotations

from PIL import Image

from workbench.engines.base import PageRequest
from workbench.engines.cpu.boxes import Box
from workbench.schema import Label


def signatures_found(engine, image: Image.Image) -> list[Box]:  # type: ignore[no-untyped-def]
    """The page's signature regions (page_px boxes), after the engine read it without error."""
    out = next(iter(engine.run([PageRequest(key="p", image=image)])))
    assert out.error is None and out.regions is not None
    found = []
    for r in out.regions:
        if r.label is Label.SIGNATURE:
            assert r.bbox is not None
            found.append((r.bbox.x0, r.bbox.y0, r.bbox.x1, r.bbox.y1))
    return found
