"""The package's shape (the brief: "a name prefix shared by several files is a folder waiting
to exist"; issue 22: at most 9 modules at the top of ``workbench/``)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "workbench"


def prefixed(folder: Path) -> dict[str, list[str]]:
    """The prefixes (a module's name up to its first ``_``) that two or more of ``folder``'s
    modules share, a module named exactly the prefix included (``overlay`` and
    ``overlay_client``), with those modules."""
    names = [p.stem for p in folder.glob("*.py") if p.stem != "__init__"]
    count = Counter(n.split("_")[0] for n in names)
    return {
        prefix: sorted(n for n in names if n.split("_")[0] == prefix)
        for prefix, k in count.items()
        if k > 1 and any("_" in n and n.split("_")[0] == prefix for n in names)
    }


def test_the_rule_finds_a_prefix_standing_for_a_folder(tmp_path: Path) -> None:
    for name in ("overlay", "overlay_client", "jobs", "job_parts", "state", "__init__"):
        (tmp_path / f"{name}.py").write_text("")
    assert prefixed(tmp_path) == {"overlay": ["overlay", "overlay_client"]}


def test_no_name_prefix_stands_in_for_a_folder() -> None:
    folders = [PACKAGE, *(p for p in PACKAGE.rglob("*") if p.is_dir() and p.name != "__pycache__")]
    found = {str(f.relative_to(PACKAGE.parent)): prefixed(f) for f in folders if prefixed(f)}
    assert found == {}


def test_at_most_nine_modules_at_the_top() -> None:
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(top) <= 9, top
