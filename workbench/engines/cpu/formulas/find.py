"""Display formulas on the text-layer path: which layer lines are one, and their TeX.

Contract
--------
:func:`find` gets the page's layer lines as runs of ``(TextWord, box)`` (boxes in ``page_px``;
``sx``/``sy`` scale the words' glyph boxes, which are in points) and the page's thin
horizontal paths (``rules``, ``page_px``). It returns the indices of the runs that stay text
and the :class:`Formula` records made of the others.

* A run is **prose** when it holds a word of three or more letters in a text font (not a
  function name such as ``sin`` or ``Ann``, nor a connective such as ``for all``); prose
  never joins a formula, and inline math in a sentence stays in its line. A run
  that is not prose and holds math (a math font, an operator, relation, Greek letter, or
  a smaller raised/lowered script) seeds a formula; runs that are not prose join it when
  their boxes nearly touch (limits, scripts, numerators and denominators, which the layer
  draws as separate lines). Boxes join only within 0.8 em horizontally, so a formula in one
  column never reaches the other. A group set on a row beside prose (inline math whose
  pieces the layer drew apart), or a one-line group right under a prose line at its leading
  and starting where one of its words starts (a sentence's math wrapped onto the next line),
  is given back to the text.
* An item number before a formula on its row ("150. s(t) = …") stays with the formula's
  row: :func:`..markdown.formula_markdown` writes it as an ordered-list item
  with inline math ("150. $s(t) = …$"), as a reader of the exercise list sees it.
* A group is cut into rows at vertical gaps of a third of its size (Maxwell's four
  equations are four formulas); each row gets its TeX from geometry (:mod:`.tex`).
  A row whose TeX cannot be built soundly keeps ``tex=None``: the engine shows it as an image
  crop, never as typeset garbage.

:func:`split_blocks` (called by ``compose`` once lines are in blocks) takes each display
formula line out of the block it fell in: it becomes an ``equation`` block of its own, or,
without TeX, an empty ``figure`` block (the crop). The block's other lines keep its label,
cut at the formula into the parts above and below; a layout ``equation`` box whose layer
lines hold no display formula is text (a prose line the layout model took for math).
Table blocks keep their lines, and so do figures the formulas do not fill (a diagram's
labels).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise

from workbench.engines.cpu.boxes import Box, union_all
from workbench.engines.cpu.formulas.tex import Atom, Confused, atoms_of, row_tex
from workbench.schema import TextWord

Run = list[tuple[TextWord, Box]]

FUNCTIONS = {
    "sin", "cos", "tan", "cot", "sec", "csc", "log", "exp", "lim", "max", "min", "sup", "inf",
    "det", "deg", "dim", "ker", "gcd", "lcm", "arg", "mod", "Ann", "Hom", "End", "Aut", "Tr",
    "rank", "span", "diag", "sgn", "sign", "sinh", "cosh", "tanh", "arcsin", "arccos",
    "arctan", "Pr", "Var", "Cov", "argmin", "argmax", "liminf", "limsup", "Spec", "Gal",
}  # fmt: skip
CONNECTIVES = {"and", "for", "all", "otherwise"}
MATH_CHARS = set(
    "=<>+×÷⋅·∙±∓−∑∏∫∮∂∇√∞≤≥≠≈≡∼≃≅∝≪≫∈∉∋⊂⊃⊆⊇∪∩∧∨¬∀∃∅→←↔⇒⇐⇔↦′″ℓℏ⊕⊗⊥"
    "αβγδεϵζηθϑικλμνξπϖρϱσςτυφϕχψωΓΔΘΛΞΠΣΥΦΨΩ"
)
_WORD = re.compile(r"[(\[{\"'“‘]*([A-Za-z][a-z]+(?:[-'’][a-z]+)*)[)\]}\"'”’.,;:!?]*")
_BULLETS = {"•", "◦", "▪", "‣", "∙", "·", "–", "—"}
_LOWER = re.compile(r"[a-z]{3,}")
JOIN_X = 0.8  # em: horizontal reach that joins two math runs
JOIN_Y = 0.45  # em: vertical reach (limits, numerators)
ROW_GAP = 0.33  # em: a vertical gap this wide between atoms starts a new row


@dataclass
class Formula:
    runs: list[int]  # indices of the runs it is made of
    words: Run  # its words, in page_px
    box: Box
    tex: str | None  # None: the geometry gave no sound TeX (show the crop)
    text: str  # the words' text, left to right
    size: float  # the main font size, px


def _prose_chars(run: Run) -> int:
    """Characters in the run's prose words: three letters or more, in a text font, neither a
    function name nor a connective a displayed formula may hold ("if", "for all")."""
    prose = 0
    for w, _ in run:
        if "m" in w.style:
            continue
        m = _WORD.fullmatch(w.text)
        word = m.group(1) if m else ""
        if len(word) >= 3 and word not in FUNCTIONS and word.lower() not in CONNECTIVES:
            prose += len(w.text)
        elif not m and any(t not in FUNCTIONS for t in _LOWER.findall(w.text)):
            prose += len(w.text)  # "<http://www.fbi.gov/...>": letters, not variables
    return prose


def _mathy(run: Run) -> bool:
    return any(
        "m" in w.style or w.tex is not None or any(c in MATH_CHARS for c in w.text) for w, _ in run
    )


def _kind(run: Run) -> str:
    """``prose``, ``math`` (seeds a formula) or empty (may join one)."""
    if _prose_chars(run) or run[0][0].text in _BULLETS:
        return "prose"  # (a list item's math is inline math in the item's text)
    return "math" if _mathy(run) else ""


def _run_box(run: Run) -> Box:
    return union_all([b for _, b in run])


def _em(run: Run, scale: float) -> float:
    return max(w.size for w, _ in run) * scale


def _near(a: Box, b: Box, em: float) -> bool:
    dx = max(a[0] - b[2], b[0] - a[2], 0.0)
    dy = max(a[1] - b[3], b[1] - a[3], 0.0)
    return dx <= JOIN_X * em and dy <= JOIN_Y * em


def _groups(runs: list[Run], kinds: list[str], scale: float) -> list[list[int]]:
    """Math runs and the runs that are not prose near them (by box proximity), grown from
    each math run in turn: a few comparisons a formula, not a page's square."""
    cand = [i for i, k in enumerate(kinds) if k != "prose"]
    boxes = {i: _run_box(runs[i]) for i in cand}
    ems = {i: _em(runs[i], scale) for i in cand}
    free = set(cand)
    groups: list[list[int]] = []
    for seed in cand:
        if kinds[seed] != "math" or seed not in free:
            continue
        free.discard(seed)
        group, todo = [seed], [seed]
        while todo:
            i = todo.pop()
            near = [j for j in free if _near(boxes[i], boxes[j], max(ems[i], ems[j]))]
            for j in near:
                free.discard(j)
                group.append(j)
                todo.append(j)
        groups.append(sorted(group))
    return groups


def _beside_prose(group: Box, em: float, prose: list[Box]) -> bool:
    """Does a prose run share the group's row, close beside or around it?"""
    for p in prose:
        overlap = min(group[3], p[3]) - max(group[1], p[1])
        small = min(group[3] - group[1], p[3] - p[1])
        gap = max(group[0] - p[2], p[0] - group[2])
        if overlap >= 0.5 * small and gap < 2.0 * em:
            return True
    return False


def _continues(box: Box, em: float, prose: list[tuple[Box, list[float]]]) -> bool:
    """A one-line group set at the normal leading right under a prose line and starting where
    one of its words does: the sentence's math wrapped onto the next line, not a display
    (a display stands apart, centred or indented, or is tall with limits or fractions)."""
    if box[3] - box[1] > 1.9 * em:
        return False
    for p, lefts in prose:
        gap = box[1] - p[3]
        overlap = min(box[2], p[2]) - max(box[0], p[0])
        aligned = any(abs(x - box[0]) < 0.3 * em for x in lefts)
        if -0.5 * em <= gap < 0.5 * em and overlap > 0 and aligned:
            return True  # (a raised script's top may reach into the line above)
    return False


def _rows(atoms: list[Atom], rules: list[Box], em: float) -> list[tuple[list[Atom], list[Box]]]:
    """Atoms (and the rules among them) cut at vertical gaps of ``ROW_GAP`` em."""
    spans = sorted([(a.box[1], a.box[3]) for a in atoms] + [(r[1], r[3]) for r in rules])
    cuts: list[float] = []
    bottom = spans[0][1]
    for top, bot in spans[1:]:
        if top - bottom >= ROW_GAP * em:
            cuts.append((top + bottom) / 2)
        bottom = max(bottom, bot)
    edges = [float("-inf"), *cuts, float("inf")]
    out = []
    for lo, hi in pairwise(edges):
        row = [a for a in atoms if lo <= a.cy < hi]
        if row:
            out.append((row, [r for r in rules if lo <= (r[1] + r[3]) / 2 < hi]))
    return out


def find(
    runs: list[Run], rules: list[Box], sx: float, sy: float
) -> tuple[list[int], list[Formula]]:
    """Runs that stay text (indices) and the display formulas made of the others."""
    scale = (sx + sy) / 2
    kinds = [_kind(r) for r in runs]
    if "math" not in kinds:
        return list(range(len(runs))), []
    prose = [_run_box(runs[i]) for i, k in enumerate(kinds) if k == "prose"]
    starts = [(_run_box(runs[i]), [b[0] for _, b in runs[i]]) for i in range(len(runs))]
    starts = [s for s, k in zip(starts, kinds, strict=True) if k == "prose"]
    used: set[int] = set()
    found: list[Formula] = []
    for group in _groups(runs, kinds, scale):
        words = [wb for i in group for wb in runs[i]]
        em = max(w.size for w, _ in words) * scale
        box = union_all([b for _, b in words])
        if _beside_prose(box, em, prose) or _continues(box, em, starts):
            continue
        atoms = atoms_of(words, sx, sy)
        pad = 0.3 * em  # a fraction bar may reach a little past its numerator and denominator
        inner = [r for r in rules if r[0] >= box[0] - pad and r[2] <= box[2] + pad]
        inner = [r for r in inner if box[1] - pad <= r[1] and r[3] <= box[3] + pad]
        rows = _rows(atoms, inner, em) if atoms else []
        made: list[Formula] = []
        for row, row_rules in rows:
            if len(row) < 3:
                made = []
                break  # a lone symbol is no display formula
            try:
                tex: str | None = row_tex(row, row_rules)
            except Confused:
                tex = None
            rbox = union_all([a.box for a in row])
            mine = [(w, b) for w, b in words if _inside(b, rbox)]
            text = " ".join(w.text for w, _ in sorted(mine, key=lambda wb: wb[1][0]))
            size = max(a.size for a in row)
            made.append(Formula(sorted(group), mine, rbox, tex, text, size))
        if not made or not any(_operator(f.tex or f.text) for f in made):
            continue
        used.update(group)
        found.extend(made)
    keep = [i for i in range(len(runs)) if i not in used]
    return keep, found


def _inside(word: Box, row: Box) -> bool:
    cy = (word[1] + word[3]) / 2
    return row[1] - 1 <= cy <= row[3] + 1


_OPERATOR = re.compile(
    r"[=<>+\-−∑∏∫≤≥≠≈∈×⋅→⊆⊂∀∃]"
    r"|\\(?:frac|sum|prod|int|oint|leq|geq|neq|approx|in|times|cdot|to|mapsto|subset|forall)"
)


def _operator(tex: str) -> bool:
    """A display formula relates or combines something: a lone ``x_{i}``, ``R^{n}`` or
    ``-0.5`` (a figure's label or tick) is not one."""
    return bool(_OPERATOR.search(tex.lstrip(" -−+(")))
