"""Table regions to Markdown pipe tables, from OCR fragment boxes.

A *fragment* is a run of text that belongs to one cell: a RapidOCR detection box (the detector
already splits at cell gaps) or Tesseract words merged while the gap between them is under
``join_gap`` × their height.

Rows: fragments sorted by vertical centre; a fragment joins the open row when it overlaps the
row's vertical span by at least half its own height.
Columns: the x extents of fragments in the *fuller* rows (at least the median count) are merged
into column intervals, so a header cell spanning several columns does not fuse them; every
fragment then goes to the column it overlaps most (nearest by centre when none), and fragments
sharing a cell are joined with a space. The first row becomes the header row.
"""

from __future__ import annotations

from workbench.engines.cpu.boxes import Box, Line, median

Fragment = tuple[str, Box]


def fragments(lines: list[Line], join_gap: float = 0.9) -> list[Fragment]:
    """Cell fragments from lines: RapidOCR lines as they are, Tesseract words merged by gap."""
    out: list[Fragment] = []
    for line in lines:
        if line.source != "tesseract" or not line.words:
            out.append((line.text, line.box))
            continue
        text, box = line.words[0].text, line.words[0].box
        for w in line.words[1:]:
            h = max(box[3] - box[1], w.box[3] - w.box[1], 1.0)
            if w.box[0] - box[2] <= join_gap * h:
                text += " " + w.text
                box = (box[0], min(box[1], w.box[1]), w.box[2], max(box[3], w.box[3]))
            else:
                out.append((text, box))
                text, box = w.text, w.box
        out.append((text, box))
    return [(t.strip(), b) for t, b in out if t.strip()]


def rows_of(frags: list[Fragment]) -> list[list[Fragment]]:
    rows: list[list[Fragment]] = []
    span: tuple[float, float] | None = None
    for f in sorted(frags, key=lambda f: (f[1][1] + f[1][3]) / 2):
        y0, y1 = f[1][1], f[1][3]
        h = max(y1 - y0, 1.0)
        if span is not None and min(y1, span[1]) - max(y0, span[0]) >= 0.5 * h:
            rows[-1].append(f)
            span = (min(span[0], y0), max(span[1], y1))
        else:
            rows.append([f])
            span = (y0, y1)
    return [sorted(r, key=lambda f: f[1][0]) for r in rows]


def columns_of(rows: list[list[Fragment]]) -> list[tuple[float, float]]:
    if not rows:
        return []
    need = median([float(len(r)) for r in rows])
    spans = sorted((f[1][0], f[1][2]) for r in rows if len(r) >= need for f in r)
    cols: list[tuple[float, float]] = []
    for lo, hi in spans:
        if cols and lo <= cols[-1][1]:
            cols[-1] = (cols[-1][0], max(cols[-1][1], hi))
        else:
            cols.append((lo, hi))
    return cols


def grid(frags: list[Fragment]) -> list[list[str]]:
    """Rows × columns of cell text (empty string for empty cells)."""
    rows = rows_of(frags)
    cols = columns_of(rows)
    if not cols:
        return []
    table: list[list[str]] = []
    for row in rows:
        cells = [""] * len(cols)
        for text, box in row:
            k = _column(box, cols)
            cells[k] = f"{cells[k]} {text}".strip()
        table.append(cells)
    return table


def _column(box: Box, cols: list[tuple[float, float]]) -> int:
    best, best_overlap = -1, 0.0
    for k, (lo, hi) in enumerate(cols):
        overlap = min(box[2], hi) - max(box[0], lo)
        if overlap > best_overlap:
            best, best_overlap = k, overlap
    if best >= 0:
        return best
    cx = (box[0] + box[2]) / 2
    return min(range(len(cols)), key=lambda k: abs((cols[k][0] + cols[k][1]) / 2 - cx))


def to_markdown(table: list[list[str]]) -> str:
    """A pipe table; the first row is the header. Pipes in cells are escaped."""
    if not table:
        return ""
    width = max(len(r) for r in table)
    rows = [[c.replace("|", "\\|") for c in r] + [""] * (width - len(r)) for r in table]
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * width]
    lines += ["| " + " | ".join(r) + " |" for r in rows[1:]]
    return "\n".join(lines)


def table_markdown(lines: list[Line]) -> str:
    return to_markdown(grid(fragments(lines)))
