"""The reader's page: the one typed value the passes (:mod:`~workbench.engines.cpu.passes`)
take and give.

A :class:`Page` starts as what the readers found (lines in ``page_px``, the layout model's
boxes, signature boxes, the image) and ends as ordered, labelled :class:`Block` s that
:func:`regions` turns into :class:`~workbench.schema.Region` s. Two stages live on it:

* before the ``blocks`` pass, the layout boxes (``layout``) and which lines each holds
  (``members``: box index → lines; ``-1`` holds the lines no box holds; ``dissolved``: boxes
  whose lines were given back to be regrouped as text);
* from the ``blocks`` pass on, ``blocks`` only (``layout``/``members`` are history).

A pass may update the page in place and returns it; a pass switched off leaves the page as it
was, and every later pass still runs on a valid page.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from PIL import Image

from workbench.engines.cpu import support
from workbench.engines.cpu.boxes import Box, Gutter, LayoutBox, Line
from workbench.schema import BBox, Label, Region


@dataclass(frozen=True)
class Grid:
    """One ruled table of a born-digital PDF (:mod:`.tables.ruled`): its cells (``page_px``)
    and their bounding box."""

    cells: tuple[Box, ...]

    @property
    def box(self) -> Box:
        return (
            min(c[0] for c in self.cells),
            min(c[1] for c in self.cells),
            max(c[2] for c in self.cells),
            max(c[3] for c in self.cells),
        )


@dataclass
class Block:
    """One region in the making. ``native`` is the layout model's label or the pass's own name
    for it (``ocr_lines``: lines no box held; ``heading:N``; ``signature``; ``header``/
    ``footer`` for furniture); ``label`` is set by the ``labels`` pass and refined after it.
    ``lines`` are the lines the block owns (its box grows over them at the end); with ``crop``
    the block is shown as an image crop and prints none of them (OCR'd math)."""

    native: str
    box: Box
    lines: list[Line]
    score: float
    label: Label | None = None
    level: int = 0  # heading level 1-4 from type; 0: not a heading
    text: str | None = None  # its Markdown, written by the ``markdown`` pass
    crop: bool = False
    structure: float = 1.0  # the structural evidence's factor (:mod:`.readers.structure`)

    @property
    def printed(self) -> list[Line]:
        """The lines whose text the block prints."""
        return [] if self.crop else self.lines

    @property
    def reader(self) -> str | None:
        """The reader of most of the printed characters (``tesseract``, ``text_layer``…)."""
        chars: dict[str, int] = {}
        for ln in self.printed:
            chars[ln.source] = chars.get(ln.source, 0) + len(ln.text)
        return max(chars, key=lambda k: chars[k]) if chars else None

    @property
    def confidence(self) -> float | None:
        """Character-weighted mean line confidence, 0-1, lowered by the share of words that
        neither a dictionary nor the other reader supports (:func:`.support.weigh`)
        and by the structure's doubt (``structure``: :mod:`.readers.structure`); None without
        printed text."""
        n = sum(len(ln.text) for ln in self.printed)
        if not n:
            return None
        conf = sum(ln.conf * len(ln.text) for ln in self.printed) / n / 100
        return round(support.weigh(conf, self.printed) * self.structure, 3)


@dataclass
class Page:
    """One page as the passes see it (all coordinates ``page_px``)."""

    width: int
    height: int
    lines: list[Line]
    line_h: float  # median line height: the unit of most distances the passes judge
    layout: list[LayoutBox]
    signatures: list[Box] = field(default_factory=list)
    image: Image.Image | None = None
    gray: np.ndarray | None = None  # the image in grey levels, for stroke weights
    tables: bool = True  # the engine's ``detect_tables`` setting
    grids: list[Grid] = field(default_factory=list)  # ruled tables of the PDF (tables.ruled)
    rules: list[tuple[float, float, float]] = field(default_factory=list)  # (x0, y, x1): its
    #                                         horizontal rules, page_px (tables.banded)
    outline: tuple[tuple[int, str], ...] = ()  # the PDF's bookmarks on the page (depth, title)
    gutters: list[Gutter] = field(default_factory=list)  # column channels (layout.gutters)
    members: dict[int, list[Line]] = field(default_factory=dict)
    dissolved: set[int] = field(default_factory=set)
    blocks: list[Block] = field(default_factory=list)


def regions(page: Page) -> list[Region]:
    """The page's blocks, in their order, as regions ``r0, r1, …``."""
    out = []
    for pos, b in enumerate(page.blocks):
        bbox = BBox.from_scaled(b.box, page.width, page.height, page.width, page.height)
        out.append(
            Region(
                id=f"r{pos}",
                label=b.label or Label.TEXT,
                native_label=b.native,
                bbox=bbox,
                text=b.text or "",
                order=pos,
                score=round(b.score, 3) if b.score else None,
                source=b.reader,
                confidence=b.confidence,
            )
        )
    return out


def unpad(region: Region, pad: int, width: int, height: int) -> Region:
    """``region`` of a page padded by ``pad`` pixels, back on the page unpadded."""
    if region.bbox is None:
        return region
    b = region.bbox
    box = BBox.from_scaled(
        [b.x0 - pad, b.y0 - pad, b.x1 - pad, b.y1 - pad], width, height, width, height
    )
    return region.model_copy(update={"bbox": box})
