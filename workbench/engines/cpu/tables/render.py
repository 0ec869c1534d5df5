"""A :class:`~workbench.engines.cpu.tables.grid.Table` as page Markdown.

A simple grid (no cell spans a row or column) is a Markdown pipe table, which reads naturally
as text: the first row is the header, cells are escaped Markdown (:func:`text.escape`).

A table with spanning cells is HTML, since a pipe table cannot say that "Year Ended" covers
three columns: ``<table>``, the header rows in ``<thead>`` as ``<th>``, the body in
``<tbody>`` as ``<td>``, ``colspan``/``rowspan`` where a cell spans, an empty cell where no
cell covers a position. One row a line and no blank line, so that Markdown keeps it one HTML
block. Cell text is HTML-escaped (``&``, ``<``, ``>``), not Markdown-escaped (Markdown is not
read inside an HTML block), and ``$`` is written ``&#36;``: the app's sanitizer treats
``$…$`` as math before cleaning, and a table row holds many dollar signs. Everything the
engine writes here passes the nh3 policy of :mod:`workbench.markdown.sanitize` unchanged
(table tags and ``colspan``/``rowspan`` are allowed), so the viewer shows it as a table.
"""

from __future__ import annotations

import html

from workbench.engines.cpu.boxes import Line
from workbench.engines.cpu.markdown import MATH_CLOSE, MATH_OPEN, escape
from workbench.engines.cpu.tables.fragments import Fragment, fragments
from workbench.engines.cpu.tables.grid import Table, build


def render(table: Table) -> str:
    if not table.cells:
        return ""
    return to_html(table) if table.spanning else to_markdown(table.rows())


def to_markdown(rows: list[list[str]]) -> str:
    """A pipe table; the first row is the header. Cells are escaped Markdown."""
    if not rows:
        return ""
    width = max(len(r) for r in rows)
    cells = [[escape(c, line_start=False) for c in r] + [""] * (width - len(r)) for r in rows]
    lines = ["| " + " | ".join(cells[0]) + " |", "|" + "---|" * width]
    lines += ["| " + " | ".join(r) + " |" for r in cells[1:]]
    return "\n".join(lines)


def _cell_html(text: str) -> str:
    text = text.replace(MATH_OPEN, "").replace(MATH_CLOSE, "")  # inline TeX shown as written
    return html.escape(text, quote=False).replace("$", "&#36;")


def to_html(table: Table) -> str:
    covered: set[tuple[int, int]] = set()
    starts = {(c.row, c.col): c for c in table.cells}
    for c in table.cells:
        covered |= {
            (r, k) for r in range(c.row, c.row + c.rowspan) for k in range(c.col, c.col + c.colspan)
        }
    out = ["<table>"]
    for r in range(table.n_rows):
        tag = "th" if r < table.header_rows else "td"
        if r == 0 and table.header_rows:
            out.append("<thead>")
        if r == table.header_rows:
            out.append("<tbody>")
        parts = []
        for k in range(table.n_cols):
            cell = starts.get((r, k))
            if cell is not None:
                span = "".join(
                    f' {name}="{n}"'
                    for name, n in (("rowspan", cell.rowspan), ("colspan", cell.colspan))
                    if n > 1
                )
                parts.append(f"<{tag}{span}>{_cell_html(cell.text)}</{tag}>")
            elif (r, k) not in covered:
                parts.append(f"<{tag}></{tag}>")
        out.append("<tr>" + "".join(parts) + "</tr>")
        if r == table.header_rows - 1:
            out.append("</thead>")
    if table.n_rows > table.header_rows:
        out.append("</tbody>")
    out.append("</table>")
    return "\n".join(out)


def grid(frags: list[Fragment]) -> list[list[str]]:
    """Rows × columns of cell text (empty string for empty cells; a spanning cell's text at
    its first position)."""
    return build(frags).rows()


def table_markdown(lines: list[Line]) -> str:
    """The table in ``lines`` as page Markdown: a pipe table, or HTML when cells span."""
    return render(build(fragments(lines)))
