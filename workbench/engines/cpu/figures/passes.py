"""Figure and caption passes (rules and thresholds: :mod:`.ticks`, :mod:`.captions`).

* ``caption_boxes`` (layout boxes): near-duplicate text/caption/figure boxes on one paragraph
  are resolved before lines are assigned (:func:`.captions.dedupe`).
* ``figure_text`` (layout boxes, needs the image): a figure box that swallowed a paragraph at
  its bottom or top edge is cut above it; the paragraph gets its own box
  (:func:`.ticks.release_text`).
* ``text_figures`` (assigned lines): a figure box that still holds much text (``TEXTY_LINES``
  lines, or ``SOME_LINES`` covering ``TEXTY_COVER`` of it; tick labels not counted) is a form
  or a diagram the layout model misread: it is dissolved and its lines regrouped as text,
  since the figure's text would print unstructured anyway.
* ``figure_ticks`` (assigned lines): tick labels and short labels around a figure join it
  (:func:`.ticks.attach_ticks`); the ``markdown`` pass does not print them.
* ``captions`` (blocks): a "Figure 3:"/"Table 1:" line directly above or below a figure or
  table, or swallowed at its box's edge, is its caption block (:func:`.captions.attach`).
"""

from __future__ import annotations

from workbench.engines.cpu.boxes import LayoutBox, Line, area
from workbench.engines.cpu.figures import captions, ticks
from workbench.engines.cpu.labels import canonical
from workbench.engines.cpu.page import Page
from workbench.schema import Label

TEXTY_LINES = 12  # a figure holding this many lines of text is a page region misread
SOME_LINES = 6  # ...or this many, covering TEXTY_COVER of its box (a chart's legend is less)
TEXTY_COVER = 0.12


def caption_boxes(page: Page) -> Page:
    page.layout = captions.dedupe(page.layout, page.lines)
    return page


def figure_text(page: Page) -> Page:
    if page.gray is not None and any(canonical(b.native) is Label.FIGURE for b in page.layout):
        page.layout = ticks.release_text(page.layout, page.lines, page.gray, page.line_h)
    return page


def text_figures(page: Page) -> Page:
    for k, b in enumerate(page.layout):
        if b.native == "figure" and _texty(b, page.members.get(k, []), page.line_h):
            page.members.setdefault(-1, []).extend(page.members.pop(k))
            page.dissolved.add(k)
    return page


def figure_ticks(page: Page) -> Page:
    page.members = ticks.attach_ticks(
        page.layout, page.members, page.dissolved, page.line_h, page.height
    )
    return page


def attach_captions(page: Page) -> Page:
    page.blocks = captions.attach(page.blocks, page.line_h)
    return page


def _texty(box: LayoutBox, group: list[Line], line_h: float) -> bool:
    group = ticks.without_ticks(group, box.box, line_h)  # a chart's tick labels are not text
    covered = sum(area(ln.box) for ln in group)
    return len(group) >= TEXTY_LINES or (
        len(group) >= SOME_LINES and covered >= TEXTY_COVER * max(area(box.box), 1.0)
    )
