"""Structure metrics of page Markdown against a ground truth: tables, headings, order, math.

Companion of :mod:`workbench.evaluate.metrics` (text): same normalisation of text, same
conventions (1.0 = perfect, both sides Markdown or HTML).

TEDS (:func:`teds`, :func:`page_teds`)
    Tree-edit-distance similarity of two HTML/Markdown tables (Zhong et al., PubTabNet):
    ``1 - TED(a, b) / max(|a|, |b|)``. Trees are ``table > tr > td``; ``thead``/``tbody``
    and ``th``/``td`` are not told apart (pipe tables and HTML tables of the same grid are
    equal). Inserting or deleting a node costs 1; renaming costs 1 between different tags
    or different ``colspan``/``rowspan``, and between two cells the normalised edit distance
    of their texts. Tree edit distance by Zhang–Shasha.
    A page's TEDS pairs each truth table with the unused hypothesis table that scores best
    (greedily, best pairs first) and averages over the truth's tables; a truth table with no
    partner scores 0. Extra hypothesis tables cost nothing here (text metrics see them).
headings (:func:`heading_match`)
    Markdown heading lines (ATX/setext, and ``<h1>``–``<h6>`` HTML) of both sides, normalised
    (case folded, leading section labels such as ``2.1``, ``IV.``, ``III-A`` or ``Chapter 5``
    dropped, :mod:`workbench.markdown.sections`, punctuation and spaces removed) and matched
    one to one when their similarity is at least :data:`HEADING_MATCH`. Precision = matched /
    hypothesis headings, recall = matched / truth headings; both counts are returned so pages
    pool by summing.
reading order (:func:`reading_order`)
    Words that occur exactly once on both sides are placed by their index in each; the
    score is the fraction of such word pairs whose order agrees (Kendall's tau mapped to
    0..1). A page read column by column where the truth reads row by row, or two columns
    interleaved, loses here. None when fewer than two words are shared.
math tokens (:func:`math_token_recall`)
    Letters and numbers of the truth's formulas (``$…$``, ``$$…$$``, ``\\[…\\]``) with
    LaTeX command names removed (Greek letter commands read as their letter), as a bag;
    the share found among the hypothesis's tokens (formula or not).
control characters (:func:`control_chars`)
    NUL and other C0/C1 control characters other than tab and newline.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from html.parser import HTMLParser

from workbench.evaluate.metrics import edit_distance, normalize_text, word_tokens
from workbench.markdown import commonmark
from workbench.markdown.sections import without_label

HEADING_MATCH = 0.8  # OCR'd headings differ by a letter or two from the truth and still count


@dataclass
class Node:
    """A table tree node: ``tag`` is table/tr/td; a td carries its text and spans."""

    tag: str
    text: str = ""
    colspan: int = 1
    rowspan: int = 1
    children: list[Node] = field(default_factory=list)

    def size(self) -> int:
        return 1 + sum(c.size() for c in self.children)


class _Tables(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[Node] = []
        self._stack: list[Node] = []  # open table, row, cell

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "table":
            self._stack.append(Node("table"))
        elif tag == "tr" and self._stack:
            while self._stack[-1].tag != "table":
                self._stack.pop()
            row = Node("tr")
            self._stack[-1].children.append(row)
            self._stack.append(row)
        elif tag in ("td", "th") and self._stack:
            while self._stack[-1].tag == "td":
                self._stack.pop()
            if self._stack[-1].tag == "table":  # a cell outside any <tr>
                self.handle_starttag("tr", [])
            cell = Node("td", colspan=_span(a.get("colspan")), rowspan=_span(a.get("rowspan")))
            self._stack[-1].children.append(cell)
            self._stack.append(cell)
        elif tag == "br" and self._stack and self._stack[-1].tag == "td":
            self._stack[-1].text += " "

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            while self._stack and self._stack[-1].tag != "table":
                self._stack.pop()
            if self._stack:
                table = self._stack.pop()
                if not self._stack:  # nested tables count inside their cell's text only
                    self.tables.append(table)
        elif tag in ("td", "th") and self._stack and self._stack[-1].tag == "td":
            self._stack.pop()
        elif tag == "tr":
            while self._stack and self._stack[-1].tag == "td":
                self._stack.pop()
            if self._stack and self._stack[-1].tag == "tr":
                self._stack.pop()

    def handle_data(self, data: str) -> None:
        if self._stack and self._stack[-1].tag == "td":
            self._stack[-1].text += data


def _span(value: str | None) -> int:
    try:
        return max(1, int(value or 1))
    except ValueError:
        return 1


def _render(markdown: str) -> str:
    return commonmark.render(markdown)


def tables(markdown: str) -> list[Node]:
    """The tables of ``markdown`` (pipe tables and HTML tables), as trees; cells' text
    normalised (see :func:`~workbench.evaluate.metrics.normalize_text`)."""
    parser = _Tables()
    parser.feed(_render(markdown))
    parser.close()
    out = [t for t in parser.tables if t.children]
    for table in out:
        for row in table.children:
            for cell in row.children:
                cell.text = normalize_text(cell.text)
    return out


def _rename(a: Node, b: Node) -> float:
    if a.tag != b.tag or a.colspan != b.colspan or a.rowspan != b.rowspan:
        return 1.0
    if a.tag != "td":
        return 0.0
    longest = max(len(a.text), len(b.text))
    return edit_distance(a.text, b.text) / longest if longest else 0.0


def _postorder(root: Node) -> tuple[list[Node], list[int], list[int]]:
    """Nodes in post-order, each node's leftmost leaf index, and the keyroots."""
    nodes: list[Node] = []
    lml: list[int] = []

    def walk(node: Node) -> int:
        first = -1
        for child in node.children:
            leaf = walk(child)
            if first < 0:
                first = leaf
        nodes.append(node)
        lml.append(first if first >= 0 else len(nodes) - 1)
        return lml[-1]

    walk(root)
    seen: dict[int, int] = {}
    for i, leaf in enumerate(lml):
        seen[leaf] = i  # the highest node with each leftmost leaf
    return nodes, lml, sorted(seen.values())


def tree_edit_distance(a: Node, b: Node) -> float:
    """Zhang–Shasha tree edit distance with the costs of the module docstring."""
    na, la, ka = _postorder(a)
    nb, lb, kb = _postorder(b)
    td = [[0.0] * len(nb) for _ in na]
    for i in ka:
        for j in kb:
            li, lj = la[i], lb[j]
            m, n = i - li + 2, j - lj + 2
            fd = [[0.0] * n for _ in range(m)]
            for x in range(1, m):
                fd[x][0] = fd[x - 1][0] + 1
            for y in range(1, n):
                fd[0][y] = fd[0][y - 1] + 1
            for x in range(1, m):
                for y in range(1, n):
                    ii, jj = li + x - 1, lj + y - 1
                    if la[ii] == li and lb[jj] == lj:
                        fd[x][y] = min(
                            fd[x - 1][y] + 1,
                            fd[x][y - 1] + 1,
                            fd[x - 1][y - 1] + _rename(na[ii], nb[jj]),
                        )
                        td[ii][jj] = fd[x][y]
                    else:
                        fd[x][y] = min(
                            fd[x - 1][y] + 1,
                            fd[x][y - 1] + 1,
                            fd[la[ii] - li][lb[jj] - lj] + td[ii][jj],
                        )
    return td[-1][-1]


def teds(a: Node, b: Node) -> float:
    """1 - tree edit distance / the larger tree's node count (1.0 = the same table), at least
    0: an edit script may cost more than the larger tree's size (a four-row one-column table
    against a two-row four-column one of other texts scored -0.09), and no table is worse
    than none."""
    longest = max(a.size(), b.size())
    return max(0.0, 1.0 - tree_edit_distance(a, b) / longest) if longest else 1.0


def page_teds(hypothesis: str, truth: str) -> float | None:
    """Mean TEDS over the truth's tables, each paired with its best unused hypothesis table
    (see module docstring); None when the truth has no table."""
    want, got = tables(truth), tables(hypothesis)
    if not want:
        return None
    scores = sorted(
        ((teds(g, w), i, j) for i, w in enumerate(want) for j, g in enumerate(got)), reverse=True
    )
    best: dict[int, float] = {}
    used: set[int] = set()
    for score, i, j in scores:
        if i not in best and j not in used:
            best[i] = score
            used.add(j)
    return sum(best.values()) / len(want)


_NUMBERING = re.compile(r"^\s*(?:(?:\d+|[ivxlcdm]+|[a-z])[.)]|\d+(?:\.\d+)+\.?)?\s*", re.I)
_NUMBER_ONLY = re.compile(r"^\s*\d+(?:\.\d+)*\s+")
_NOT_WORD = re.compile(r"[\W_]+", re.UNICODE)


def heading_key(text: str) -> str:
    """A heading's text for matching: numbering, case, punctuation and spaces dropped."""
    text = without_label(unicodedata.normalize("NFKC", text).strip())
    text = _NUMBER_ONLY.sub("", text)
    text = _NUMBERING.sub("", text) if re.match(r"^\s*[\divxlcdm]+[.)]\s", text, re.I) else text
    return _NOT_WORD.sub("", text.casefold())


def headings(markdown: str) -> list[str]:
    """The heading texts of ``markdown`` in order (Markdown and HTML ``<hN>`` headings)."""
    tokens = commonmark.parse(markdown)
    out = []
    for k, tok in enumerate(tokens):
        if tok.type == "heading_open" and k + 1 < len(tokens):
            out.append(tokens[k + 1].content)
        elif tok.type in ("html_block", "html_inline"):
            for m in re.finditer(r"<h[1-6][^>]*>(.*?)</h[1-6]>", tok.content, re.S | re.I):
                out.append(re.sub(r"<[^>]+>", "", m.group(1)))
    return [h for h in out if heading_key(h)]


@dataclass(frozen=True)
class HeadingMatch:
    matched: int
    hypothesis: int
    truth: int

    @property
    def precision(self) -> float | None:
        return self.matched / self.hypothesis if self.hypothesis else None

    @property
    def recall(self) -> float | None:
        return self.matched / self.truth if self.truth else None

    @property
    def f1(self) -> float | None:
        if not self.hypothesis and not self.truth:
            return None
        p, r = self.precision or 0.0, self.recall or 0.0
        return 2 * p * r / (p + r) if p + r else 0.0


def _close(a: str, b: str) -> bool:
    longest = max(len(a), len(b))
    return longest > 0 and 1 - edit_distance(a, b) / longest >= HEADING_MATCH


def heading_match(hypothesis: str, truth: str) -> HeadingMatch:
    """Headings of ``hypothesis`` matched one to one to those of ``truth`` (module docstring)."""
    got = [heading_key(h) for h in headings(hypothesis)]
    want = [heading_key(h) for h in headings(truth)]
    free = list(want)
    matched = 0
    for g in got:
        hit = next((w for w in free if w == g), None) or next(
            (w for w in free if _close(g, w)), None
        )
        if hit is not None:
            free.remove(hit)
            matched += 1
    return HeadingMatch(matched, len(got), len(want))


def _inversions(seq: list[int]) -> int:
    if len(seq) < 2:
        return 0
    mid = len(seq) // 2
    left, right = seq[:mid], seq[mid:]
    count = _inversions(left) + _inversions(right)
    left.sort()
    right.sort()
    j = 0
    for x in left:  # pairs (x in left, y in right) with x > y
        while j < len(right) and right[j] < x:
            j += 1
        count += j
    return count


def reading_order(hypothesis: str, truth: str) -> float | None:
    """Share of concordant pairs among words unique on both sides (module docstring)."""
    h, t = word_tokens(hypothesis), word_tokens(truth)
    hc, tc = Counter(h), Counter(t)
    shared = {w for w, n in tc.items() if n == 1 and hc.get(w) == 1}
    if len(shared) < 2:
        return None
    hpos = {w: i for i, w in enumerate(h) if w in shared}
    order = [hpos[w] for w in t if w in shared]
    pairs = len(order) * (len(order) - 1) // 2
    return 1.0 - _inversions(order) / pairs


_MATH = re.compile(r"\$\$(.+?)\$\$|\\\[(.+?)\\\]|\$([^$\n]+?)\$", re.S)
_GREEK = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε",
    "zeta": "ζ", "eta": "η", "theta": "θ", "iota": "ι", "kappa": "κ", "lambda": "λ", "mu": "μ",
    "nu": "ν", "xi": "ξ", "pi": "π", "rho": "ρ", "sigma": "σ", "tau": "τ", "phi": "φ",
    "varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω", "Gamma": "Γ", "Delta": "Δ",
    "Theta": "Θ", "Lambda": "Λ", "Pi": "Π", "Sigma": "Σ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω",
}  # fmt: skip
_COMMAND = re.compile(r"\\([A-Za-z]+)")
_MATH_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)


def math_tokens(markdown: str) -> list[str]:
    """Letters/numbers of the formulas in ``markdown``, commands dropped (Greek kept)."""
    out: list[str] = []
    for m in _MATH.finditer(markdown):
        body = next(g for g in m.groups() if g is not None)
        body = re.sub(r"\\(?:text|mathrm|operatorname)\{([^}]*)\}", r" \1 ", body)
        body = _COMMAND.sub(lambda c: f" {_GREEK.get(c.group(1), '')} ", body)
        out += [t.casefold() for t in _MATH_TOKEN.findall(unicodedata.normalize("NFKC", body))]
    return out


def math_token_recall(hypothesis: str, truth: str) -> float | None:
    """Share of the truth's formula tokens present in the hypothesis (None: no formula)."""
    want = Counter(math_tokens(truth))
    if not want:
        return None
    text = unicodedata.normalize(
        "NFKC", _COMMAND.sub(lambda c: f" {_GREEK.get(c.group(1), c.group(1))} ", hypothesis)
    )
    got = Counter(t.casefold() for t in _MATH_TOKEN.findall(text))
    return sum((want & got).values()) / sum(want.values())


def control_chars(text: str) -> int:
    """NUL and other control characters (Unicode category Cc) other than tab, CR, LF."""
    return sum(1 for ch in text if unicodedata.category(ch) == "Cc" and ch not in "\t\n\r")
