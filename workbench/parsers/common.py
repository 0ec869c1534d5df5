"""Shared pieces of every parser: label mapping, bbox reading, and region assembly.

A parser collects :class:`Draft` blocks (native label, native box, Markdown text) and calls
:func:`finish`, which maps labels, converts boxes to ``page_px`` with
:meth:`~workbench.schema.BBox.from_scaled`, drops empty blocks and numbers the rest
``r0``, ``r1``, ... in reading order. A box that cannot be read leaves the region unlocated
(``bbox=None``), never a 1-pixel box at the origin.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from workbench.schema import BBox, Label, Region

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def read_box(value: object) -> list[float] | None:
    """Four numbers from a native box, in any of the spellings models emit.

    Accepts ``"x0 y0 x1 y1"`` (Chandra 2), ``"[x0, y0, x1, y1]"`` (Chandra 1), ``"x1,y1,x2,y2"``
    and a list of four numbers (dots.ocr JSON). Anything else (3 or 5 numbers, words, None) is
    unreadable and gives None.
    """
    if isinstance(value, list | tuple):
        if len(value) != 4:
            return None
        try:
            return [float(v) for v in value]
        except (TypeError, ValueError):
            return None
    if not isinstance(value, str):
        return None
    numbers = _NUMBER.findall(value)
    if len(numbers) != 4 or re.search(r"[A-Za-z]", value):
        return None
    return [float(n) for n in numbers]


def union_box(boxes: Sequence[Sequence[float]]) -> list[float] | None:
    """The smallest box around several native boxes (DeepSeek may give more than one)."""
    if not boxes:
        return None
    return [
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    ]


def map_label(native: str, table: Mapping[str, Label]) -> Label:
    """Canonical label for a model's own label; matching ignores case, '-', '_' and spaces.

    An unknown label maps to ``text`` (the region keeps its native label beside it).
    """
    key = _label_key(native)
    for name, label in table.items():
        if _label_key(name) == key:
            return label
    return Label.TEXT


def _label_key(name: str) -> str:
    return re.sub(r"[\s_\-]+", "", name).lower()


@dataclass
class Draft:
    """A block as parsed, before labels and boxes are converted."""

    native_label: str
    box: list[float] | None  # native coordinates, None when unreadable
    text: str
    continues: bool = False
    label: Label | None = None  # set to override the label table (e.g. Markdown splitting)


def finish(
    drafts: Sequence[Draft],
    table: Mapping[str, Label],
    *,
    scale_x: float,
    scale_y: float,
    width: int,
    height: int,
    keep_empty: frozenset[Label] = frozenset({Label.FIGURE}),
) -> list[Region]:
    """Regions from drafts: labels mapped, boxes in ``page_px``, ids ``r0``.. in order.

    A draft with no text is dropped unless its label is in ``keep_empty`` (a figure is
    worth drawing even without a description).
    """
    regions: list[Region] = []
    for draft in drafts:
        label = draft.label or map_label(draft.native_label, table)
        text = draft.text.strip()
        if not text and label not in keep_empty:
            continue
        bbox = (
            BBox.from_scaled(draft.box, scale_x, scale_y, width, height)
            if draft.box is not None and width > 0 and height > 0
            else None
        )
        index = len(regions)
        regions.append(
            Region(
                id=f"r{index}",
                label=label,
                native_label=draft.native_label,
                bbox=bbox,
                text=text,
                order=index,
                continues=draft.continues,
            )
        )
    return regions


def unlocated_note(regions: Sequence[Region], boxes_expected: bool = True) -> list[str]:
    """A note when some regions of a box-giving model came without a readable box."""
    missing = sum(1 for r in regions if r.bbox is None)
    if boxes_expected and missing:
        return [f"{missing} region(s) had no readable box and are not drawn on the page"]
    return []
