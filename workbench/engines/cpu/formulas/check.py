"""Whether a TeX string is safe to hand to KaTeX (:mod:`.tex` checks all it writes):
balanced braces and ``\\left``/``\\right``, printable ASCII only, no unescaped
``# $ % & ~ "``, and no second subscript or superscript on one base (KaTeX refuses
``x_{a}_{b}``)."""

from __future__ import annotations

import re

_BAD = re.compile(r'(?<!\\)[#$%&~"]|[^\x20-\x7e]')


def sound(tex: str) -> bool:
    """Balanced braces and ``\\left``/``\\right``, ASCII only, no unescaped specials."""
    if not tex.strip() or _BAD.search(tex):
        return False
    depth = 0
    for m in re.finditer(r"\\.|[{}]", tex):
        t = m.group(0)
        if t == "{":
            depth += 1
        elif t == "}":
            depth -= 1
            if depth < 0:
                return False
    lefts = len(re.findall(r"\\left(?![a-z])", tex))
    if depth or lefts != len(re.findall(r"\\right(?![a-z])", tex)):
        return False
    return not _double_script(tex)


_TOKEN = re.compile(r"\\[A-Za-z]+|\\.|.", re.DOTALL)


def _double_script(tex: str) -> bool:
    """``x_{a}_{b}`` (KaTeX refuses a second subscript or superscript on one base)."""
    seen: list[set[str]] = [set()]
    tokens = _TOKEN.findall(tex)
    k = 0
    while k < len(tokens):
        t = tokens[k]
        if t in "_^":
            if t in seen[-1]:
                return True
            seen[-1].add(t)
            k += 1
            if k < len(tokens) and tokens[k] == "{":  # skip the script's group
                level = 0
                while k < len(tokens):
                    level += (tokens[k] == "{") - (tokens[k] == "}")
                    k += 1
                    if level == 0:
                        break
            else:
                k += 1
            continue
        if t == "{":
            seen.append(set())
        elif t == "}":
            seen.pop()
            seen[-1] = set()  # a closed group is a new base
        elif not t.isspace():
            seen[-1] = set()
        k += 1
    return False
