"""OCR lines + layout boxes → ordered, labelled :class:`~workbench.schema.Region` list.

Contract:

1. Every OCR line lands in exactly one region, so no text is lost: it goes to the layout box
   that holds the largest share of it (at least half; 90 % counts as whole; the smaller box
   wins ties, so a caption inside a figure goes to the caption). Lines no box holds are
   grouped into new text regions (``native_label="ocr_lines"``) by vertical proximity and
   horizontal overlap. Once ordered, each region's box grows to the union of its lines, so a
   heading box the layout model drew short (``1 Foo`` without its number) covers all its
   words.
2. Figures (:mod:`figures`): a figure box that swallowed a paragraph at its bottom or top edge
   (exercises under a diagram) is cut above it and the paragraph gets its own box; tick labels
   and short labels around a figure join it, and tick labels are not printed. A figure box
   that still holds much text (≥ 12 lines, or ≥ 6 covering ≥ 12 % of it; tick labels not
   counted) is a form or a diagram the layout model misread: it is dissolved and its lines
   regrouped as text, since the assembler would print the figure's text unstructured anyway.
   A formula box holding three lines of prose or more (a page of cards read as one equation)
   is dissolved first, its lines going to the boxes under it. Captions (:mod:`captions`):
   near-duplicate text/caption/figure boxes on one paragraph are resolved before lines are
   assigned; a "Figure 3:"/"Fig. 2."/"Table 1:" line directly above or below a figure or
   table (or swallowed at its box's edge) is its caption region.
3. Layout boxes nearly duplicated by a higher-scoring box of the same label (text, reference
   and title count as one: the surer box grows over the other) are dropped; text,
   title, caption, header and footer boxes that received no line are dropped; figures,
   tables, formulas and signatures are kept even when empty.
4. Titles: a CDLA ``title`` whose lines are ≥ 1.4× the page's median line height and which is
   the first such box from the top is the page title; others are section headers. Headers and
   footers (and text blocks in the top/bottom 6 % of the page) whose text is only a page
   number become ``page_number``. Ungrouped lines (one or two) in the bottom 7 % or top 5 %
   of the page are running footers/headers the layout model missed. Furniture judged on the
   page alone (:mod:`furniture`: the outer rows, set apart from the body, that are a folio, a
   running head with its page number, a document-control line, or small type) is cut out of
   whatever text block holds it into ``running_header``/``running_footer`` regions
   (``header``/``footer``, ``page_number`` when only a number): out of the Markdown, still
   drawn in the viewer.
5. Headings come from type (:mod:`headings`): font size and weight on the text layer, line
   height and stroke weight (measured on ``image``) on OCR lines; heading-like lines are cut
   out of text blocks into ``section_header`` regions whose text carries its level
   (``## …``); a level-1 heading is the ``title``.
6. Text is escaped Markdown (:func:`text.escape`). Formulas: text-layer lines become
   ``$$ … $$`` (their TeX form, scripts included); an OCR'd formula is never typeset: the
   region becomes a figure (an image crop) with no text.
7. A page whose only text is furniture keeps it as text: a one-line page is content.
8. Each region records its reader (``source``: the reader of most of its characters) and a
   ``confidence`` (character-weighted mean line confidence, 0-1).
9. Regions are ordered by :func:`reading_order`, given the numbered headings' section numbers
   (a grid of numbered cards reads in their order, by rows or by columns) and the empty
   figures as frames (a picture behind text blocks does not block the column cut); ids
   ``r0, r1, …`` follow that order.
"""

from __future__ import annotations

import re

import numpy as np
from PIL import Image

from workbench.engines.cpu import (
    captions,
    figures,
    formulas,
    furniture,
    headings,
    table_boxes,
    tables,
    text,
)
from workbench.engines.cpu.boxes import (
    Box,
    LayoutBox,
    Line,
    area,
    assign_lines,
    dedupe_layout,
    median,
    paragraph_gaps,
    union_all,
)
from workbench.engines.cpu.layout import canonical
from workbench.engines.cpu.reading_order import reading_order
from workbench.schema import FURNITURE, BBox, Label, Region

_KEEP_EMPTY = {Label.FIGURE, Label.TABLE, Label.FORMULA, Label.SIGNATURE}


def compose(
    width: int,
    height: int,
    layout: list[LayoutBox],
    lines: list[Line],
    signatures: list[Box] | None = None,
    tables: bool = True,
    image: Image.Image | None = None,
) -> list[Region]:
    boxes = captions.dedupe(dedupe_layout(layout), lines)
    if tables:
        boxes = table_boxes.table_headers(table_boxes.aligned_tables(boxes, lines), lines)
    line_h = median([ln.height for ln in lines], 20.0)
    gray = np.asarray(image.convert("L")) if image is not None else None
    if gray is not None:
        headings.weigh(lines, gray)  # stroke weight of OCR lines: bold headings on scans
        if any(canonical(b.native) is Label.FIGURE for b in boxes):
            boxes = figures.release_text(boxes, lines, gray, line_h)
    boxes += [LayoutBox("signature", s, 1.0) for s in signatures or []]

    members = assign_lines(boxes, lines)
    dissolved = {
        k for k, b in enumerate(boxes) if canonical(b.native) is Label.FORMULA
        and _prosy(members.get(k, []))
    }  # fmt: skip
    if dissolved:  # its lines go to the boxes under it (a figure that spans the page ...)
        gone: Box = (0.0, 0.0, 0.0, 0.0)
        members = assign_lines([LayoutBox(b.native, gone, 0.0) if k in dissolved else b
                           for k, b in enumerate(boxes)], lines)  # fmt: skip
    _caption_tails(boxes, members, line_h)
    for k, b in enumerate(boxes):
        if b.native == "figure" and _texty(b, members.get(k, []), line_h):
            members.setdefault(-1, []).extend(members.pop(k))
            dissolved.add(k)
    members = figures.attach_ticks(boxes, members, dissolved, line_h, height)
    orphans = members.pop(-1, [])

    blocks: list[tuple[str, Box, list[Line], float]] = []
    for k, b in enumerate(boxes):
        if k in dissolved:
            continue
        if members.get(k) or canonical(b.native) in _KEEP_EMPTY or b.native == "signature":
            blocks.append((b.native, b.box, members.get(k, []), b.score))
    for group in _cluster(orphans, line_h):
        blocks.append(("ocr_lines", union_all([ln.box for ln in group]), group, 0.0))

    blocks = formulas.split_blocks(blocks)  # display formulas (text layer) stand alone
    blocks = captions.attach(blocks, line_h)
    blocks = _not_furniture(blocks, lines, height)
    blocks = furniture.split_off(blocks, lines, width, height)
    blocks = headings.split(blocks, lines, line_h, height)
    order = reading_order(
        [b[1] for b in blocks],
        numbers=[_section_number(b) for b in blocks],
        frames={k for k, b in enumerate(blocks) if b[0] == "figure" and not b[2]},
    )
    title_seen = False
    regions: list[Region] = []
    for pos, k in enumerate(order):
        native, box, group, score = blocks[k]
        group = owned = _sorted_lines(group)
        label = Label.SIGNATURE if native == "signature" else canonical(native, box, height)
        if native == "title" and not title_seen and _big(group, line_h):
            label, title_seen = Label.TITLE, True
        if label is Label.TABLE and not tables:
            label = Label.TEXT
        if native in ("ocr_lines", "text") and _display_math(group):
            label = Label.FORMULA
        if label is Label.FORMULA and group and not any(ln.source == "text_layer" for ln in group):
            # OCR'd math is garbage: show the crop instead; words are text the layout model
            # took for math ("Earthy and saline matter .... 40" in a two-row tally)
            label, group = (Label.TEXT, group) if formulas.worded(group) else (Label.FIGURE, [])
        level = int(native.split(":")[1]) if native.startswith("heading:") else 0
        if level:
            label = Label.TITLE if level == 1 else Label.SECTION_HEADER
        shown = figures.without_ticks(group, box, line_h) if label is Label.FIGURE else group
        body = _body(label, shown, line_h)
        if level:
            body = "#" * level + " " + body
        if native == "ocr_lines" and len(group) <= 2:
            if box[1] > 0.93 * height:
                label = Label.FOOTER
            elif box[3] < 0.05 * height:
                label = Label.HEADER
        raw = " ".join(ln.text for ln in group)
        if label in (Label.HEADER, Label.FOOTER, Label.TEXT) and text.is_page_number(raw):
            edge = box[1] < 0.06 * height or box[3] > 0.94 * height
            if label is not Label.TEXT or edge:
                label = Label.PAGE_NUMBER
        if (
            native == "ocr_lines"
            and label is Label.TEXT
            and text.is_list([ln.text for ln in group])
        ):
            label = Label.LIST
        # the drawn box grows over its lines' words that stick out (reading order was decided
        # on the layout model's boxes: a line reaching into a picture must not reorder them)
        box = union_all([box] + [ln.box for ln in owned])
        bbox = BBox.from_scaled(box, width, height, width, height)
        regions.append(
            Region(
                id=f"r{pos}",
                label=label,
                native_label=native,
                bbox=bbox,
                text=body,
                order=pos,
                score=round(score, 3) if score else None,
                source=_source(group),
                confidence=_confidence(group),
            )
        )
    return _keep_only_content(_ordered_runs(regions))


_AS_IS = {Label.TEXT, Label.LIST, Label.FOOTNOTE, Label.CAPTION}  # printed as their text


def _ordered_runs(regions: list[Region]) -> list[Region]:
    """No ordered item renumbered by the renderer across regions (:func:`text.ordered_runs`):
    furniture does not print; headings, tables, formulas and figures end a run."""
    printed = [
        "" if r.label in FURNITURE or not r.text else r.text if r.label in _AS_IS else "x"
        for r in regions
    ]
    fixed = text.ordered_runs(printed)
    return [
        r.model_copy(update={"text": t}) if t != p else r
        for r, p, t in zip(regions, printed, fixed, strict=True)
    ]


def _display_math(group: list[Line]) -> bool:
    """One or two text-layer lines with scripts and an equals sign, and no word of prose (three
    letters or more, "s(t)" has none; "x² = 9 means …" is a sentence): a displayed formula."""
    return 0 < len(group) <= 2 and all(
        ln.tex and "=" in ln.text and not re.search(r"[A-Za-z]{3,}", ln.text) for ln in group
    )


def _not_furniture(
    blocks: list[tuple[str, Box, list[Line], float]], lines: list[Line], height: float
) -> list[tuple[str, Box, list[Line], float]]:
    """A header/footer box the layout model found keeps that label only when it looks like
    furniture: in the top or bottom 8 % of the page, or set smaller than the body text
    (text layer). Otherwise (a statement's title under the top margin) it is text."""
    body = headings.body_size(lines)
    out = []
    for native, box, group, score in blocks:
        if native in ("header", "footer") and group:
            margin = box[3] < 0.08 * height or box[1] > 0.92 * height
            size = median([ln.size for ln in group if ln.size > 0], 0.0)
            small = body > 0 and 0 < size < 0.95 * body
            if not (margin or small):
                native = "text"
        out.append((native, box, group, score))
    return out


def _source(group: list[Line]) -> str | None:
    chars: dict[str, int] = {}
    for ln in group:
        chars[ln.source] = chars.get(ln.source, 0) + len(ln.text)
    return max(chars, key=lambda k: chars[k]) if chars else None


def _confidence(group: list[Line]) -> float | None:
    n = sum(len(ln.text) for ln in group)
    if not n:
        return None
    return round(sum(ln.conf * len(ln.text) for ln in group) / n / 100, 3)


def _keep_only_content(regions: list[Region]) -> list[Region]:
    """Furniture leaves the Markdown only when something else is on the page."""
    if any(r.text.strip() and r.label not in FURNITURE for r in regions):
        return regions
    return [
        r.model_copy(update={"label": Label.TEXT}) if r.label in FURNITURE and r.text else r
        for r in regions
    ]


_PROSE = ("text", "figure_caption", "table_caption", "caption")
_SENTENCE_END = (".", "!", "?", ":", ";")


def _caption_tails(boxes: list[LayoutBox], members: dict[int, list[Line]], line_h: float) -> None:
    """A table box drawn a line too high swallows the last line of the caption or paragraph
    above it (a Census table's "[In thousands ... in some cases," went on as the table's
    header row "could represent multiple arrests ... source]"). A table's top line that is
    alone in its row, prose (six words or more, over half the table wide) and directly under
    a caption or text box whose last line does not end a sentence goes back to that box, and
    the table's box starts below it."""
    for k, b in enumerate(boxes):
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
        if same_row or not wide or len(top.text.split()) < 6:
            continue
        for j, above in enumerate(boxes):
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
                boxes[k] = LayoutBox(b.native, (x0, max(top.box[3], b.box[1]), x1, y1), b.score)
                break


_SECTION = re.compile(r"^\s*(\d{1,3})(\.\d{1,2})?[.)]?\s+[A-Za-z]")


def _section_number(block: tuple[str, Box, list[Line], float]) -> float | None:
    """A heading's section number ("2. Pythagorean Theorem" → 2, "3.1 Area" → 3.1): it
    tells reading order whether a grid of numbered cards reads by rows or by columns."""
    native, _, group, _ = block
    if not native.startswith("heading") or not group:
        return None
    found = _SECTION.match(_sorted_lines(group)[0].text)
    return float(found.group(1) + (found.group(2) or "")) if found else None


def _prosy(group: list[Line]) -> bool:
    """Three lines or more of prose (four words of three letters or more each): a formula box
    the layout model drew over paragraphs (a page of cards read as one equation)."""
    return sum(len(re.findall(r"\b[A-Za-z]{3,}\b", ln.text)) >= 4 for ln in group) >= 3


def _texty(box: LayoutBox, group: list[Line], line_h: float) -> bool:
    group = figures.without_ticks(group, box.box, line_h)  # a chart's tick labels are not text
    covered = sum(area(ln.box) for ln in group)
    return len(group) >= 12 or (len(group) >= 6 and covered >= 0.12 * max(area(box.box), 1.0))


def _cluster(lines: list[Line], line_h: float) -> list[list[Line]]:
    groups: list[list[Line]] = []
    for ln in sorted(lines, key=lambda ln: (ln.box[1], ln.box[0])):
        home = None
        for g in groups:
            last = g[-1].box
            gap = ln.box[1] - last[3]
            h = max(ln.height, line_h)
            overlap = min(ln.box[2], last[2]) - max(ln.box[0], last[0])
            narrow = min(ln.box[2] - ln.box[0], last[2] - last[0])
            if -h <= gap <= 0.9 * h and overlap >= 0.3 * max(narrow, 1.0):
                home = g
        if home is None:
            groups.append([ln])
        else:
            home.append(ln)
    return groups


def _sorted_lines(group: list[Line]) -> list[Line]:
    """Lines top to bottom; lines sharing a row (centres within half a height) left to right."""
    rows: list[list[Line]] = []
    for ln in sorted(group, key=lambda ln: (ln.box[1] + ln.box[3]) / 2):
        c = (ln.box[1] + ln.box[3]) / 2
        if rows:
            r = rows[-1][0]
            if abs(c - (r.box[1] + r.box[3]) / 2) < 0.5 * max(r.height, ln.height, 1.0):
                rows[-1].append(ln)
                continue
        rows.append([ln])
    return [ln for r in rows for ln in sorted(r, key=lambda ln: ln.box[0])]


def _big(group: list[Line], line_h: float) -> bool:
    return bool(group) and median([ln.height for ln in group]) >= 1.4 * line_h


def _body(label: Label, group: list[Line], line_h: float) -> str:
    if not group:
        return ""
    if label is Label.FORMULA:
        return text.formula_markdown([ln.tex or ln.text for ln in group])
    if label is Label.TABLE:
        md = tables.table_markdown(group)
        if md:
            return md
    texts = [ln.text for ln in group]
    if label is Label.TABLE:
        return "\n".join(text.escape(t) for t in texts)
    if label in (Label.TITLE, Label.SECTION_HEADER):
        return text.escape(text.join_lines(texts))
    gaps = paragraph_gaps(group)  # a short line ending a sentence ends its paragraph too
    return text.paragraphs(texts, gaps, median([ln.height for ln in group], line_h))
