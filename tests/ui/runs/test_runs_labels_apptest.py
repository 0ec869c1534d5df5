"""Runs: each run opens with all its labels shown unless the user turned one off for that run
(issue 30.3). On e859558 the label pills kept one key for every run, so opening run B after
run A kept only the labels both had, and back on A its own labels were off although nobody
clicked them (census → financial_statement → scan → census drew 3 of 12 boxes)."""

from __future__ import annotations

from pathlib import Path

from tests.ui.runs.test_runs_apptest import runs_app
from tests.ui.runs_seed import seed
from tests.ui.settle import settle


def _pills(at: object) -> object:
    return next(p for p in at.button_group if p.label == "Labels")  # type: ignore[attr-defined]


def _open(at: object, run_id: str) -> object:
    at.selectbox(key="runs_pick").set_value(run_id)  # type: ignore[attr-defined]
    return settle(at.run())  # type: ignore[attr-defined]


def test_each_run_opens_with_all_its_labels_unless_turned_off_there(tmp_path: Path) -> None:
    a, b = seed(tmp_path)
    assert b is not None
    at = settle(runs_app(tmp_path).run())
    at = _open(at, a)
    a_labels = sorted(_pills(at).value)  # type: ignore[attr-defined]
    assert {"formula", "table"} <= set(a_labels)  # run A's own labels, all on
    at = _open(at, b)
    b_labels = sorted(_pills(at).value)  # type: ignore[attr-defined]
    assert "figure" in b_labels and "formula" not in b_labels  # run B's labels, all on
    at = _open(at, a)
    assert sorted(_pills(at).value) == a_labels  # type: ignore[attr-defined]
    # A label the user turns off in run A stays off there, and only there.
    _pills(at).set_value([lab for lab in a_labels if lab != "text"])  # type: ignore[attr-defined]
    at = settle(at.run())
    at = _open(at, b)
    assert sorted(_pills(at).value) == b_labels  # type: ignore[attr-defined]
    at = _open(at, a)
    assert sorted(_pills(at).value) == [lab for lab in a_labels if lab != "text"]  # type: ignore[attr-defined]
    assert not at.exception  # type: ignore[attr-defined]
