"""TEDS (tree-edit-distance similarity, Zhong et al. 2020) between two tables, for the table
tests and for measuring the table passes before and after a change.

A table is a tree ``table > tr > td``: one node a row, one a cell, each cell carrying its
``rowspan``/``colspan`` and its text. ``thead``/``tbody`` and ``th``/``td`` are not nodes of
their own, so a pipe table (whose first row is the header) and an HTML table compare on
their grids. TEDS = 1 - TED / max(|T1|, |T2|), with TED the Zhang-Shasha tree edit distance:
inserting or deleting a node costs 1; renaming a cell into a cell with the same spans costs
the normalised Levenshtein distance of their texts (whitespace collapsed), anything else 1.

:func:`parse_tables` reads every table (HTML ``<table>`` or Markdown pipe table) out of a
page's Markdown, in order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser


@dataclass
class Node:
    tag: str  # "table", "tr" or "td"
    text: str = ""
    rowspan: int = 1
    colspan: int = 1
    children: list[Node] = field(default_factory=list)


def table(rows: list[list[str | tuple[str, int, int]]]) -> Node:
    """A table tree from rows of cells: a text, or (text, rowspan, colspan)."""
    out = Node("table")
    for row in rows:
        tr = Node("tr")
        for c in row:
            text, rs, cs = (c, 1, 1) if isinstance(c, str) else c
            tr.children.append(Node("td", _norm(text), rs, cs))
        out.children.append(tr)
    return out


def _norm(text: str) -> str:
    return " ".join(text.split())


class _Html(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[Node] = []
        self._cell: Node | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.tables.append(Node("table"))
        elif tag == "tr" and self.tables:
            self.tables[-1].children.append(Node("tr"))
        elif tag in ("td", "th") and self.tables and self.tables[-1].children:
            a = dict(attrs)
            self._cell = Node("td", "", int(a.get("rowspan") or 1), int(a.get("colspan") or 1))
            self.tables[-1].children[-1].children.append(self._cell)

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.text += data

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self._cell.text = _norm(self._cell.text)
            self._cell = None


_PIPE_RULE = re.compile(r"^\|(\s*:?-+:?\s*\|)+\s*$")


def _pipe_cells(line: str) -> list[str]:
    body = line.strip()[1:-1]
    cells = re.split(r"(?<!\\)\|", body)
    return [re.sub(r"\\(.)", r"\1", c).strip() for c in cells]


def parse_tables(markdown: str) -> list[Node]:
    """Every table in ``markdown`` (HTML or pipe), in the order they appear."""
    found: list[tuple[int, Node]] = []
    for m in re.finditer(r"<table>.*?</table>", markdown, re.S):
        p = _Html()
        p.feed(m.group(0))
        found += [(m.start(), t) for t in p.tables]
    lines = markdown.split("\n")
    k = 0
    starts = [0]
    for ln in lines:
        starts.append(starts[-1] + len(ln) + 1)
    while k < len(lines):
        if (
            lines[k].lstrip().startswith("|")
            and k + 1 < len(lines)
            and _PIPE_RULE.match(lines[k + 1].strip())
        ):
            rows = [_pipe_cells(lines[k])]
            j = k + 2
            while j < len(lines) and lines[j].lstrip().startswith("|"):
                rows.append(_pipe_cells(lines[j]))
                j += 1
            found.append((starts[k], table(list(rows))))  # type: ignore[arg-type]
            k = j
        else:
            k += 1
    return [t for _, t in sorted(found, key=lambda f: f[0])]


def _levenshtein(a: str, b: str) -> int:
    """Edit distance, bit-parallel (Myers 1999 / Hyyrö 2001): one pass of integer operations
    over ``b`` with ``a`` as a bit vector, fast enough for every pair of cells of a page."""
    if not a or not b:
        return len(a) or len(b)
    peq: dict[str, int] = {}
    for i, ch in enumerate(a):
        peq[ch] = peq.get(ch, 0) | (1 << i)
    full, top = (1 << len(a)) - 1, 1 << (len(a) - 1)
    pv, mv, score = full, 0, len(a)
    for ch in b:
        eq = peq.get(ch, 0)
        xv = eq | mv
        xh = (((eq & pv) + pv) ^ pv) | eq
        ph = mv | (~(xh | pv) & full)
        mh = pv & xh
        if ph & top:
            score += 1
        elif mh & top:
            score -= 1
        ph = ((ph << 1) | 1) & full
        mh = (mh << 1) & full
        pv = mh | (~(xv | ph) & full)
        mv = ph & xv
    return score


def _rename(a: Node, b: Node, structure_only: bool) -> float:
    if a.tag != b.tag:
        return 1.0
    if a.tag != "td":
        return 0.0
    if (a.rowspan, a.colspan) != (b.rowspan, b.colspan):
        return 1.0
    if structure_only or a.text == b.text:
        return 0.0
    return _levenshtein(a.text, b.text) / max(len(a.text), len(b.text))


def _postorder(root: Node) -> tuple[list[Node], list[int]]:
    """Nodes in post-order and, for each, the index of its leftmost leaf descendant."""
    nodes: list[Node] = []
    lml: list[int] = []

    def walk(n: Node) -> int:
        first = -1
        for c in n.children:
            leaf = walk(c)
            if first < 0:
                first = leaf
        nodes.append(n)
        me = len(nodes) - 1
        lml.append(first if first >= 0 else me)
        return lml[me]

    walk(root)
    return nodes, lml


def tree_edit_distance(t1: Node, t2: Node, structure_only: bool = False) -> float:
    """Zhang-Shasha edit distance (unit insert/delete, :func:`_rename` costs)."""
    n1, l1 = _postorder(t1)
    n2, l2 = _postorder(t2)
    kr1 = sorted({max(i for i in range(len(n1)) if l1[i] == leaf) for leaf in set(l1)})
    kr2 = sorted({max(j for j in range(len(n2)) if l2[j] == leaf) for leaf in set(l2)})
    td = [[0.0] * len(n2) for _ in n1]
    memo: dict[tuple[int, int], float] = {}

    def rename(a: int, b: int) -> float:
        if (a, b) not in memo:
            memo[a, b] = _rename(n1[a], n2[b], structure_only)
        return memo[a, b]

    for i in kr1:
        for j in kr2:
            li, lj = l1[i], l2[j]
            if li == i and lj == j:  # two leaves: rename, or delete and insert
                td[i][j] = min(rename(i, j), 2.0)
                continue
            w, h = i - li + 2, j - lj + 2
            fd = [[0.0] * h for _ in range(w)]
            for x in range(1, w):
                fd[x][0] = fd[x - 1][0] + 1
            for y in range(1, h):
                fd[0][y] = fd[0][y - 1] + 1
            for x in range(1, w):
                a = li + x - 1
                for y in range(1, h):
                    b = lj + y - 1
                    if l1[a] == li and l2[b] == lj:
                        fd[x][y] = min(
                            fd[x - 1][y] + 1,
                            fd[x][y - 1] + 1,
                            fd[x - 1][y - 1] + rename(a, b),
                        )
                        td[a][b] = fd[x][y]
                    else:
                        fd[x][y] = min(
                            fd[x - 1][y] + 1,
                            fd[x][y - 1] + 1,
                            fd[l1[a] - li][l2[b] - lj] + td[a][b],
                        )
    return td[-1][-1]


def _size(n: Node) -> int:
    return 1 + sum(_size(c) for c in n.children)


def teds(pred: Node | None, truth: Node, structure_only: bool = False) -> float:
    """Similarity in [0, 1]; a missing table (``None``) scores 0."""
    if pred is None:
        return 0.0
    d = tree_edit_distance(pred, truth, structure_only)
    return max(0.0, 1.0 - d / max(_size(pred), _size(truth)))
