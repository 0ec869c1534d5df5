"""Compare two results of the same page: region alignment and a word-level text diff.

Region alignment
----------------
Regions are matched one-to-one by box overlap (IoU), greedily: all candidate pairs with
IoU >= ``min_iou`` are taken best first, each region used at most once; ties break by
reading order, so the result is deterministic. Greedy equals the Hungarian optimum whenever
each region has at most one candidate partner, which is what non-overlapping layout blocks
give at ``min_iou`` 0.5; duplicate boxes on one side are where the two could differ.
When both sides are PageResults of different image sizes (two engines
rendering at different DPI), the right side's boxes are scaled into the left page's
``page_px`` before matching; reported regions keep their own coordinates. Unlocated regions
(``bbox is None``) cannot be aligned and are listed apart.

Text diff
---------
:func:`reading_diff` compares the text a reader reads: both pages' Markdown read as plain text
first (:func:`workbench.evaluate.metrics.plain_text`: ``<td>``, ``rowspan`` and ``|---|`` are
markup, not words), then :func:`word_diff`. :func:`word_diff` splits both texts on
whitespace and runs :class:`difflib.SequenceMatcher` (``autojunk=False``) over the word
lists; :func:`diff_html` renders the ops with ``<del>`` (left only) and ``<ins>`` (right
only). Every word is escaped with :func:`html.escape`: model output is untrusted.
"""

from __future__ import annotations

import difflib
import html
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from workbench.schema import BBox, PageResult, Region

OpKind = Literal["equal", "insert", "delete", "replace"]


@dataclass(frozen=True)
class RegionMatch:
    left: Region
    right: Region
    iou: float

    @property
    def same_label(self) -> bool:
        return self.left.label == self.right.label


@dataclass(frozen=True)
class Alignment:
    """How the regions of two sides line up."""

    matched: list[RegionMatch] = field(default_factory=list)
    left_only: list[Region] = field(default_factory=list)  # located, no partner on the right
    right_only: list[Region] = field(default_factory=list)
    unlocated_left: list[Region] = field(default_factory=list)  # no box: cannot be aligned
    unlocated_right: list[Region] = field(default_factory=list)

    @property
    def label_mismatches(self) -> list[RegionMatch]:
        return [m for m in self.matched if not m.same_label]

    @property
    def agreement(self) -> float:
        """Matched pairs with the same label over all located regions of both sides (0-1)."""
        located = 2 * len(self.matched) + len(self.left_only) + len(self.right_only)
        agreeing = 2 * sum(m.same_label for m in self.matched)
        return agreeing / located if located else 1.0


def _scaled(box: BBox, fx: float, fy: float) -> BBox:
    return BBox(x0=box.x0 * fx, y0=box.y0 * fy, x1=box.x1 * fx, y1=box.y1 * fy)


def align_regions(
    left: PageResult | Sequence[Region],
    right: PageResult | Sequence[Region],
    *,
    min_iou: float = 0.5,
) -> Alignment:
    """Match the regions of ``left`` and ``right`` one-to-one by IoU (see module docstring)."""
    fx = fy = 1.0
    if isinstance(left, PageResult) and isinstance(right, PageResult) and right.width:
        fx, fy = left.width / right.width, left.height / max(right.height, 1)
    lregs = list(left.regions if isinstance(left, PageResult) else left)
    rregs = list(right.regions if isinstance(right, PageResult) else right)
    lboxes = [(i, r.bbox) for i, r in enumerate(lregs) if r.bbox is not None]
    rboxes = [(j, _scaled(r.bbox, fx, fy)) for j, r in enumerate(rregs) if r.bbox is not None]

    pairs: list[tuple[float, int, int]] = []
    for i, a in lboxes:
        for j, b in rboxes:
            iou = a.iou(b)
            if iou >= min_iou and iou > 0:
                pairs.append((iou, i, j))
    pairs.sort(key=lambda p: (-p[0], p[1], p[2]))
    used_l: set[int] = set()
    used_r: set[int] = set()
    matched: list[RegionMatch] = []
    for iou, i, j in pairs:
        if i in used_l or j in used_r:
            continue
        used_l.add(i)
        used_r.add(j)
        matched.append(RegionMatch(left=lregs[i], right=rregs[j], iou=round(iou, 4)))
    order = {id(r): k for k, r in enumerate(lregs)}
    matched.sort(key=lambda m: order[id(m.left)])
    return Alignment(
        matched=matched,
        left_only=[lregs[i] for i, _ in lboxes if i not in used_l],
        right_only=[rregs[j] for j, _ in rboxes if j not in used_r],
        unlocated_left=[r for r in lregs if r.bbox is None],
        unlocated_right=[r for r in rregs if r.bbox is None],
    )


@dataclass(frozen=True)
class DiffOp:
    """One step from the left text to the right: ``left`` words become ``right`` words."""

    kind: OpKind
    left: list[str]
    right: list[str]


def words(text: str) -> list[str]:
    return text.split()


def word_diff(left: str, right: str) -> list[DiffOp]:
    """Word-level diff of two texts (whitespace-split; see module docstring)."""
    a, b = words(left), words(right)
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    ops: list[DiffOp] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        ops.append(DiffOp(kind=tag, left=a[i1:i2], right=b[j1:j2]))
    return ops


def reading_diff(left_markdown: str, right_markdown: str) -> list[DiffOp]:
    """Word diff of what a reader reads on each side (see module docstring): two pages with
    the same words in differently written tables differ in nothing."""
    from workbench.evaluate.metrics import plain_text
    from workbench.markdown.sanitize import escape_disallowed

    # What the sanitizer would strip is text to the reader (the Viewer shows it escaped).
    left, right = escape_disallowed(left_markdown), escape_disallowed(right_markdown)
    return word_diff(plain_text(left), plain_text(right))


def located(regions: Sequence[Region]) -> bool:
    """Whether any region has a box (a model without boxes gives Markdown only)."""
    return any(r.bbox is not None for r in regions)


def diff_counts(ops: Sequence[DiffOp]) -> dict[str, int]:
    """Words equal / inserted / deleted (a replace counts both)."""
    counts = {"equal": 0, "insert": 0, "delete": 0}
    for op in ops:
        if op.kind == "equal":
            counts["equal"] += len(op.left)
        counts["delete"] += len(op.left) if op.kind in ("delete", "replace") else 0
        counts["insert"] += len(op.right) if op.kind in ("insert", "replace") else 0
    return counts


def diff_html(ops: Sequence[DiffOp]) -> str:
    """Render ops as escaped HTML: ``<del>`` for left-only words, ``<ins>`` for right-only."""
    parts: list[str] = []
    for op in ops:
        left = html.escape(" ".join(op.left))
        right = html.escape(" ".join(op.right))
        if op.kind == "equal":
            parts.append(left)
            continue
        if op.left:
            parts.append(f"<del>{left}</del>")
        if op.right:
            parts.append(f"<ins>{right}</ins>")
    return " ".join(parts)
