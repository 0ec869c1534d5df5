"""The UI's state contract, checked on the source: one module owns every session-state key
(workbench/ui/state.py), and production code never imports the test tree."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from workbench.ui import state

ROOT = Path(__file__).resolve().parents[2]
PRODUCTION = [*sorted((ROOT / "workbench").rglob("*.py")), *sorted((ROOT / "pages").glob("*.py"))]


def test_only_state_py_touches_session_state() -> None:
    offenders = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in PRODUCTION
        if path.name != "state.py" or path.parent.name != "ui"
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if re.search(r"\bsession_state\b", line)
    ]
    assert not offenders, "use workbench.ui.state instead: " + ", ".join(offenders)


def test_production_code_never_imports_tests() -> None:
    offenders = []
    for path in PRODUCTION:
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [
                f"{path.relative_to(ROOT)}: {n}" for n in names if n.split(".")[0] == "tests"
            ]
    assert not offenders, offenders


def test_every_key_is_declared_once() -> None:
    keys = [
        v.key if isinstance(v, state.Slot) else v.pattern
        for v in vars(state).values()
        if isinstance(v, state.Slot | state.Family)
    ]
    assert len(keys) == len(set(keys)), sorted(k for k in keys if keys.count(k) > 1)
    assert "wb_pos" in keys and "engine_override" in keys


def test_slot_defaults_are_not_stored_until_asked() -> None:
    slot = state.Slot("t_probe", set)
    assert slot.get() == set() and not slot.present()
    slot.setdefault().add("x")
    assert slot.present() and slot.get() == {"x"}
    assert slot.pop() == {"x"} and not slot.present()
    assert state.VIEWER_LABELS(3).key == "wb_labels_3"
    assert state.CMP_REF_TEXT("a.pdf", 2).key == "cmp_ref_a.pdf_2"
