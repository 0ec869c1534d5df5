"""Fail when a module grows past the size limit (DEVELOPERS.md: about 400 lines at most), or a
function past the function limit (issue 32: the largest functions under 80 lines)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

LIMIT = 450  # lines, a little slack over the 400 target
FUNCTION_LIMIT = 80  # lines from ``def`` to the last line of the body; a function must stay under
ROOTS = ("workbench", "pages")
# Functions over FUNCTION_LIMIT today, each with why it is let be. Shrink this list, never grow it.
ALLOWED_LONG: set[str] = set()  # none today: a function over the limit is named here, with why


def long_functions(path: Path, name: str) -> list[tuple[str, int]]:
    """``name:function`` (nested ``outer.inner``) and its length for each function in ``path``
    of ``FUNCTION_LIMIT`` lines or more."""
    out: list[tuple[str, int]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                qual = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    n = (child.end_lineno or child.lineno) - child.lineno + 1
                    if n >= FUNCTION_LIMIT:
                        out.append((f"{name}:{qual}", n))
                visit(child, qual + ".")
            else:
                visit(child, prefix)

    visit(ast.parse(path.read_text(encoding="utf-8")), "")
    return out


def main() -> int:
    root = Path(__file__).resolve().parents[1]
    paths = [path for base in ROOTS for path in sorted((root / base).rglob("*.py"))]
    too_big = [
        (path.relative_to(root), n)
        for path in paths
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > LIMIT
    ]
    for rel, n in too_big:
        print(f"{rel}: {n} lines (limit {LIMIT})")
    found = [f for path in paths for f in long_functions(path, path.relative_to(root).as_posix())]
    too_long = [(name, n) for name, n in found if name not in ALLOWED_LONG]
    for name, n in too_long:
        print(f"{name}: {n} lines (functions under {FUNCTION_LIMIT})")
    stale = ALLOWED_LONG - {name for name, _ in found}
    for name in sorted(stale):
        print(f"{name}: allowed to be long but is not (or is gone): take it off ALLOWED_LONG")
    return 1 if too_big or too_long or stale else 0


if __name__ == "__main__":
    sys.exit(main())
