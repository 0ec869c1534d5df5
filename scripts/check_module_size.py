"""Fail when a module grows past the size limit (DEVELOPERS.md: about 400 lines at most)."""

from __future__ import annotations

import sys
from pathlib import Path

LIMIT = 450  # lines, a little slack over the 400 target
ROOTS = ("workbench", "pages")


def main() -> int:
    root = Path(__file__).resolve().parents[1]
    too_big = [
        (path.relative_to(root), n)
        for base in ROOTS
        for path in sorted((root / base).rglob("*.py"))
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > LIMIT
    ]
    for path, n in too_big:
        print(f"{path}: {n} lines (limit {LIMIT})")
    return 1 if too_big else 0


if __name__ == "__main__":
    sys.exit(main())
