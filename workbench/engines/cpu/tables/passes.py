"""Table passes, on layout boxes before lines are assigned (``aligned_tables``,
``table_headers``: :mod:`.boxes`) or after (``caption_tails``).

``caption_tails``: a table box drawn a line too high swallows the last line of the caption
or paragraph above it (a Census table's "[In thousands ... in some cases," went on as the
table's header row "could represent multiple arrests ... source]"). A table's top line that
is alone in its row, prose (``TAIL_WORDS`` words or more, over half the table wide) and
directly under a caption or text box whose last line does not end a sentence goes back to
that box, and the table's box starts below it.

``side_by_side``: two tables set side by side under one table box become two boxes
(:mod:`.side`).

``inner_text``: a text box drawn inside a table over a column of its cells is dropped
(:func:`.boxes.inner_text`).

``table_notes``: notes under a table ("Source: …", "Note: …", footnotes) leave it for a text
box of their own (:mod:`.notes`).

``row_labels``: a box of row labels set left of a ruled table (outside its rules) joins the
table as its first column (:mod:`.stubs`).

All seven do nothing when the engine does not detect tables.
"""

from __future__ import annotations

from collections.abc import Callable

from workbench.engines.cpu.boxes import LayoutBox, Line, union_all
from workbench.engines.cpu.labels import canonical
from workbench.engines.cpu.page import Page
from workbench.engines.cpu.tables import boxes, notes, ruled, side, stubs
from workbench.schema import Label

TAIL_WORDS = 6  # fewer words: a header cell ("Total arrests"), not a sentence run on
_PROSE = ("text", "figure_caption", "table_caption", "caption")
_SENTENCE_END = (".", "!", "?", ":", ";")
_NO_LABELS = (Label.TABLE, Label.FIGURE, Label.FORMULA)  # boxes never read as row labels


BoxRule = Callable[[list[LayoutBox], list[Line]], list[LayoutBox]]  # boxes, lines -> boxes


def _on_layout(rule: BoxRule) -> Callable[[Page], Page]:
    """A pass that gives the page's layout boxes and lines to ``rule`` (a function of
    :mod:`.boxes` or :mod:`.side`) and keeps the boxes it returns, when tables are detected."""

    def run(page: Page) -> Page:
        if page.tables:
            page.layout = rule(page.layout, page.lines)
        return page

    run.__name__, run.__doc__ = rule.__name__, rule.__doc__  # as the rule, in tracebacks
    return run


aligned_tables = _on_layout(boxes.aligned_tables)
table_headers = _on_layout(boxes.table_headers)
side_by_side = _on_layout(side.side_by_side)
inner_text = _on_layout(boxes.inner_text)


def table_notes(page: Page) -> Page:
    return notes.table_notes(page) if page.tables else page


def row_labels(page: Page) -> Page:
    if not page.tables or not page.grids:
        return page
    for k, b in enumerate(page.layout):
        group = page.members.get(k)
        if canonical(b.native) is not Label.TABLE or not group or k in page.dissolved:
            continue
        grid = ruled.grid_for(b.box, page.grids)
        if grid is None or not ruled.holds(grid, group):
            continue
        # the other boxes' lines, and the lines no box holds beside the grid as one (-1)
        candidates = [
            (j, lines)
            for j, lines in page.members.items()
            if 0 <= j != k and lines and j not in page.dissolved
            if canonical(page.layout[j].native) not in _NO_LABELS
        ]
        candidates.append((-1, stubs.beside(grid, page.members.get(-1, []))))
        found = stubs.stub_column(grid, group, [lines for _, lines in candidates], page.line_h)
        if found is None:
            continue
        wider, taken = found
        page.grids[page.grids.index(grid)] = wider
        for j, lines in (candidates[i] for i in taken):
            group.extend(lines)
            gone = {id(ln) for ln in lines}
            page.members[j] = [ln for ln in page.members[j] if id(ln) not in gone]
            if j >= 0:
                page.dissolved.add(j)
        page.layout[k] = LayoutBox(b.native, union_all([b.box, wider.box]), b.score)
    return page


def caption_tails(page: Page) -> Page:
    layout, members, line_h = page.layout, page.members, page.line_h
    for k, b in enumerate(layout):
        group = members.get(k)
        if canonical(b.native) is not Label.TABLE or not group or len(group) < 3:
            continue
        top = min(group, key=lambda ln: ln.box[1])
        same_row = [
            ln
            for ln in group
            if ln is not top and ln.box[1] < top.box[3] and ln.box[3] > top.box[1]
        ]
        wide = top.box[2] - top.box[0] > 0.5 * (b.box[2] - b.box[0])
        if same_row or not wide or len(top.text.split()) < TAIL_WORDS:
            continue
        for j, above in enumerate(layout):
            lines = members.get(j)
            if j == k or above.native not in _PROSE or not lines:
                continue
            last = max(lines, key=lambda ln: ln.box[3])
            close = -0.5 * line_h <= top.box[1] - last.box[3] < 1.5 * line_h
            overlaps = min(last.box[2], top.box[2]) > max(last.box[0], top.box[0])
            if close and overlaps and not last.text.rstrip().endswith(_SENTENCE_END):
                group.remove(top)
                lines.append(top)
                x0, _, x1, y1 = b.box  # the table is drawn from under the line it gave back
                layout[k] = LayoutBox(b.native, (x0, max(top.box[3], b.box[1]), x1, y1), b.score)
                break
    return page
