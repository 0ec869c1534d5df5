"""OCR lines + layout boxes → ordered, labelled :class:`~workbench.schema.Region` list.

Contract: every line lands in exactly one region (so no text is lost), or in a figure crop
that shows it; regions are in reading order with ids ``r0, r1, …``; each records its reader
(``source``: the reader of most of its characters) and a ``confidence`` (character-weighted
mean line confidence, 0-1, then weighed by the page's structure: :mod:`.confidence`). The work
is the passes of :mod:`~workbench.engines.cpu.passes`.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from PIL import Image

from workbench.engines.cpu import confidence, passes
from workbench.engines.cpu.boxes import Box, LayoutBox, Line, median
from workbench.engines.cpu.page import Page, regions
from workbench.engines.cpu.tables import ruled
from workbench.schema import Region, TextLayer


def compose(
    width: int,
    height: int,
    layout: list[LayoutBox],
    lines: list[Line],
    signatures: list[Box] | None = None,
    tables: bool = True,
    image: Image.Image | None = None,
    off: Iterable[str] = (),
    layer: TextLayer | None = None,
) -> list[Region]:
    """The regions of a page of ``width`` × ``height`` pixels; ``off``: passes left out;
    ``layer``: a born-digital page's text layer, whose rules give its ruled tables' cells
    (:mod:`.tables.ruled`; only when ``tables``) and whose outline entries its headings."""
    grids, rules = [], []
    if layer is not None and tables:
        scale = layer.scale(width, height)
        grids, rules = ruled.grids(layer.edges, *scale), ruled.rules(layer.edges, *scale)
    page = Page(
        width=width,
        height=height,
        lines=lines,
        line_h=median([ln.height for ln in lines], 20.0),
        layout=list(layout),
        signatures=list(signatures or []),
        image=image,
        gray=np.asarray(image.convert("L")) if image is not None else None,
        tables=tables,
        grids=grids,
        rules=rules,
        outline=layer.outline if layer is not None else (),
    )
    return confidence.calibrate(regions(passes.run(page, off)))
