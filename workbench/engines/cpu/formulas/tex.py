"""TeX of one displayed formula row from its glyphs' geometry (text layer).

Contract
--------
:func:`~.atoms.atoms_of` turns layer words into one :class:`Atom` a character (a word's own glyph
records when the layer kept them, else its box split evenly), in ``page_px``.
:func:`row_tex` builds the TeX of one row, or raises :class:`Confused`:

1. **Fractions**: a rule (a thin horizontal path, or a dash glyph) with atoms centred over it
   above and below becomes ``\\frac{num}{den}``; the widest first, so nested ones recurse.
2. **Big operators** (``∑ ∏ ∫ …``, CMEX's codes included) take the atoms set above and below
   them (for ``∫`` also those to its upper and lower right) as limits: ``\\sum_{i=1}^{k}``.
3. **The baseline** is made of the atoms at the row's main size; a smaller atom raised above
   its centre is a superscript of the baseline atom before it, a lowered one a subscript (both
   may stack: ``\\zeta_{n}^{\\psi(gs)}``); script groups are read again the same way, so
   scripts nest. A prime is a superscript ``^{\\prime}``.
4. **Symbols**: Unicode math to TeX commands (``π`` → ``\\pi``, ``∇`` → ``\\nabla``), a bold
   font's letters ``\\mathbf{E}``, a TeX symbol font's capitals ``\\mathcal{I}``, upright
   letter runs ``\\sin``/``\\operatorname{Ann}``, big delimiters ``\\left[ … \\right]``,
   math alphanumerics (𝑥, 𝐄, 𝔽: Word's Cambria Math) on their plain letter, accents (``û``,
   or an accent glyph raised over a letter) as ``\\hat{u}``. Tables: :mod:`.symbols`.
   Spaces follow the gaps the page shows.

The TeX is checked (:func:`sound`): balanced braces and ``\\left``/``\\right``, only ASCII,
no unescaped ``# $ % & ~ "``. Atoms stacked in a way none of these rules explains, or a
character with no TeX form, raise :class:`Confused`: the caller shows an image crop instead.
"""

from __future__ import annotations

import re

from workbench.engines.cpu.boxes import Box, union_all
from workbench.engines.cpu.formulas.atoms import (
    _DASHES,
    _NEGATED,
    Atom,
    Confused,
    _is,
    _prime,
    atoms_of,
)
from workbench.engines.cpu.formulas.check import sound
from workbench.engines.cpu.formulas.symbols import NAMED, SPACING


def row_tex(atoms: list[Atom], rules: list[Box], depth: int = 0) -> str:
    if any(a.kind == "?" for a in atoms):
        raise Confused("a character with no TeX form")
    tex = _parse(atoms, rules, depth)
    tex = re.sub(r"\\mapstochar ?\\to", r"\\mapsto", tex)  # CMSY draws ↦ as two glyphs
    tex = _NEGATED.sub(r"\\not\1", tex)  # ≠ is "=" under a slash that starts right of it
    if "\\mapstochar" in tex or re.search(r"\\not(?![a-zA-Z]) *(?:$|[}^_])", tex):
        raise Confused("a negation or maps-to bar with nothing after it")
    if not sound(tex):
        raise Confused(tex)
    return tex


def _parse(atoms: list[Atom], rules: list[Box], depth: int) -> str:
    if depth > 6:
        raise Confused("nested too deep")
    if not atoms:
        return ""
    atoms = _accents(sorted(atoms, key=lambda a: a.box[0]))
    atoms = _fractions(atoms, rules, depth)
    atoms = _limits(atoms, rules, depth)
    return _baseline(atoms, rules, depth)


def _accents(atoms: list[Atom]) -> list[Atom]:
    """An accent glyph set over a letter (TeX draws ``\\hat{u}`` as two) goes on it."""
    out = list(atoms)
    for acc in atoms:
        if acc.ch not in SPACING or len(acc.ch) != 1:
            continue
        under = [
            a
            for a in out
            if a is not acc and a.kind == "" and a.box[0] - 1 <= acc.cx <= a.box[2] + 1
            and a.cy - acc.cy > 0.1 * a.size  # raised: TeX sets it on a higher baseline
        ]  # fmt: skip
        if under:
            base = min(under, key=lambda a: a.cy - acc.cy)
            base.tex = f"\\{SPACING[acc.ch]}{{{base.tex}}}"
            out.remove(acc)
    return out


def _main(atoms: list[Atom]) -> float:
    plain = [a.size for a in atoms if a.kind in ("", "box")]
    return max(plain or [a.size for a in atoms])


def _fractions(atoms: list[Atom], rules: list[Box], depth: int) -> list[Atom]:
    em = _main(atoms)
    bars: list[tuple[Box, Atom | None]] = [(r, None) for r in rules]
    for a in atoms:
        if a.kind == "" and _is(a, _DASHES) and a.box[2] - a.box[0] >= 0.4 * em:
            bars.append(((a.box[0], a.cy - 0.5, a.box[2], a.cy + 0.5), a))
    for bar, dash in sorted(bars, key=lambda rb: rb[0][0] - rb[0][2]):  # widest first
        if dash is not None and dash not in atoms:
            continue
        y = (bar[1] + bar[3]) / 2
        tol = 0.15 * em

        def over(a: Atom, bar: Box = bar, tol: float = tol) -> bool:
            return bar[0] - tol <= a.cx <= bar[2] + tol and a.box[2] <= bar[2] + 2 * tol

        num = [a for a in atoms if a is not dash and over(a) and a.cy < y - 0.1 * em]
        den = [a for a in atoms if a is not dash and over(a) and a.cy > y + 0.1 * em]
        if not num or not den:
            continue
        inside = [r for r in rules if r != bar and bar[0] - 1 <= r[0] and r[2] <= bar[2] + 1]
        top = [r for r in inside if (r[1] + r[3]) / 2 < y]
        bottom = [r for r in inside if (r[1] + r[3]) / 2 > y]
        tex = f"\\frac{{{_parse(num, top, depth + 1)}}}{{{_parse(den, bottom, depth + 1)}}}"
        taken = {id(a) for a in [*num, *den, dash] if a is not None}
        box = union_all([a.box for a in num + den] + [bar])
        built = Atom(tex, box, max(a.size for a in num + den), "box", cy=y)
        atoms = sorted([a for a in atoms if id(a) not in taken] + [built], key=lambda a: a.box[0])
    return atoms


def _limits(atoms: list[Atom], rules: list[Box], depth: int) -> list[Atom]:
    for op in [a for a in atoms if a.kind == "op"]:
        if op not in atoms:
            continue
        h = op.box[3] - op.box[1]
        reach = 0.35 * op.size if op.tex == "\\int" else 0.1 * op.size
        rest = [a for a in atoms if a is not op and a.kind not in ("l", "r")]
        up = [a for a in rest if a.cy < op.box[1] + 0.15 * h and a.box[3] <= op.cy]
        down = [a for a in rest if a.cy > op.box[3] - 0.15 * h and a.box[1] >= op.cy]
        hi = _grow(op, up, reach)
        lo = _grow(op, down, reach)
        if not hi and not lo:
            continue
        tex = _scripted(op.tex, lo, hi, depth)
        taken = {id(a) for a in hi + lo} | {id(op)}
        built = Atom(tex, union_all([a.box for a in [op, *hi, *lo]]), op.size, "op", cy=op.cy)
        built.ch, built.limits = op.tex, (lo, hi)  # scripts found later join these limits
        atoms = sorted([a for a in atoms if id(a) not in taken] + [built], key=lambda a: a.box[0])
    return atoms


def _grow(op: Atom, cands: list[Atom], reach: float) -> list[Atom]:
    """The atoms of one limit: those overlapping the operator's width (and, for ∫, up to
    ``reach`` right of it), then their neighbours along the limit's line."""
    group = [a for a in cands if a.box[0] <= op.box[2] + reach and a.box[2] >= op.box[0] - reach]
    if not group:
        return []
    changed = True
    while changed:
        changed = False
        x0 = min(a.box[0] for a in group)
        x1 = max(a.box[2] for a in group)
        y0 = min(a.box[1] for a in group)
        y1 = max(a.box[3] for a in group)
        em = max(a.size for a in group)
        for a in cands:
            if a in group:
                continue
            near = a.box[0] - x1 < 0.5 * em and x0 - a.box[2] < 0.5 * em
            if near and a.cy > y0 and a.cy < y1:
                group.append(a)
                changed = True
    return group


def _baseline(atoms: list[Atom], rules: list[Box], depth: int) -> str:
    em = _main(atoms)
    plain_atoms = [a for a in atoms if a.kind == ""]
    if plain_atoms and all(a.by for a in plain_atoms):
        v = {id(a): a.by for a in atoms}  # the glyphs' own baselines: exact
        shift, small, lift, drop = 0.15, 0.05, 0.12, 0.06
    else:
        v = {id(a): a.cy for a in atoms}  # loose boxes' centres: fonts differ a little
        shift, small, lift, drop = 0.2, 0.08, 0.08, 0.08
    base = [a for a in atoms if a.kind or a.size >= 0.8 * em]
    plain = sorted(v[id(a)] for a in base if a.kind == "" and not _prime(a))
    if len(plain) <= 2:  # x_i set at one size: the first is the base
        plain = [v[id(min(base, key=lambda a: a.box[0]))]]
    mid = plain[len(plain) // 2]
    primes = [a for a in base if _prime(a)]
    base = [a for a in base if a not in primes]
    for a in list(base):
        if a.kind == "" and abs(v[id(a)] - mid) > 0.45 * em:
            raise Confused("full-size atoms off the baseline")
        if a.kind == "" and a is not base[0] and abs(v[id(a)] - mid) > shift * em:
            base.remove(a)  # a script set at full size: lowered or raised off the baseline
    scripts = [a for a in atoms if a not in base]
    for s in scripts:
        if abs(v[id(s)] - mid) <= small * em and s.kind == "" and not _prime(s):
            base.append(s)  # smaller, but on the baseline: small capitals, a smaller font
    base.sort(key=lambda a: a.box[0])
    subs: dict[int, list[Atom]] = {}
    sups: dict[int, list[Atom]] = {}
    for s in atoms:
        if s in base:
            continue
        owner = -1
        for k, b in enumerate(base):
            if b.box[0] < s.cx - 0.05 * em:
                owner = k
        raised = v[id(s)] < mid - lift * em or v[id(s)] <= mid + drop * em  # (primes too)
        (sups if raised else subs).setdefault(owner, []).append(s)
    for owner, low in subs.items():  # λ_{g′}: a raised script set after a subscript (not
        end = max(a.box[2] for a in low)  # over it, as λ_g^′ is) is the subscript's own
        later = [a for a in sups.get(owner, []) if a.box[0] >= end - 0.05 * em]
        if later and len(later) == len(sups[owner]):
            low.extend(later)
            del sups[owner]
    out: list[tuple[str, Box]] = []
    if -1 in subs or -1 in sups:
        out.append((_scripted("{}", subs.get(-1), sups.get(-1), depth), base[0].box))
    k = 0
    while k < len(base):
        a = base[k]
        run = _upright(base, k, em)
        if run > 1:
            word = "".join(b.ch for b in base[k : k + run])
            tex = f"\\{word}" if word in NAMED else f"\\operatorname{{{word}}}"
            last = k + run - 1
            box = union_all([b.box for b in base[k : k + run]])
            out.append((_scripted(tex, subs.get(last), sups.get(last), depth), box))
            k += run
            continue
        if a.limits and (subs.get(k) or sups.get(k)):  # ∑_{k} with "=1" read as a script
            lo, hi = a.limits[0] + subs.get(k, []), a.limits[1] + sups.get(k, [])
            out.append((_scripted(a.ch, lo, hi, depth), a.box))
        else:
            out.append((_scripted(a.tex, subs.get(k), sups.get(k), depth), a.box))
        k += 1
    return _join(_delimiters(out, base), em)


def _upright(base: list[Atom], k: int, em: float) -> int:
    """How many upright letters (a function name) start at ``base[k]``."""
    n = 0
    while k + n < len(base):
        a = base[k + n]
        if not (a.kind == "" and a.ch.isascii() and a.ch.isalpha()) or "i" in a.style:
            break
        if "b" in a.style or "s" in a.style:
            break
        if n and a.box[0] - base[k + n - 1].box[2] > 0.15 * em:
            break
        n += 1
    return n


def _scripted(tex: str, sub: list[Atom] | None, sup: list[Atom] | None, depth: int) -> str:
    if sub:
        tex += f"_{{{_parse(sub, [], depth + 1)}}}"
    if sup:
        primes = all(_prime(a) for a in sup)
        body = "".join(a.tex for a in sup) if primes else _parse(sup, [], depth + 1)
        tex += f"^{{{body}}}"
    return tex


def _delimiters(out: list[tuple[str, Box]], base: list[Atom]) -> list[tuple[str, Box]]:
    """Big delimiters that pair up become ``\\left``/``\\right``."""
    kinds = [a.kind for a in base]
    if kinds.count("l") == 0 or len(out) != len(base):
        return out
    stack: list[int] = []
    pairs: list[tuple[int, int]] = []
    for k, kind in enumerate(kinds):
        if kind == "l":
            stack.append(k)
        elif kind == "r" and stack:
            pairs.append((stack.pop(), k))
    fixed = list(out)
    for lo, hi in pairs:
        fixed[lo] = ("\\left" + fixed[lo][0], fixed[lo][1])
        fixed[hi] = ("\\right" + fixed[hi][0], fixed[hi][1])
    return fixed


def _join(parts: list[tuple[str, Box]], em: float) -> str:
    text = ""
    prev: Box | None = None
    for tex, box in parts:
        gap = prev is not None and box[0] - prev[2] > 0.12 * em
        command = re.search(r"\\[A-Za-z]+$", text) and tex[:1].isalpha()
        text += (" " if text and (gap or command) else "") + tex
        prev = box
    return text


__all__ = ["Atom", "Confused", "atoms_of", "row_tex"]
