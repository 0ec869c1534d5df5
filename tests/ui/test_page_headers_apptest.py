"""Every page opens with a clear title and a one-line purpose under it."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("page", "title", "purpose"),
    [
        ("viewer.py", "Viewer", "layout regions over the image"),
        ("compare.py", "Compare runs", "side by side"),
        ("runs.py", "Runs", "kept as a run"),
        ("gpu.py", "GPU", "memory plan"),
        ("about.py", "OCR Workbench", "engines on this machine"),
    ],
)
def test_page_has_title_and_purpose(tmp_path: Path, page: str, title: str, purpose: str) -> None:
    at = AppTest.from_file(str(ROOT / "pages" / page), default_timeout=60)
    at.session_state["runs_store_dir"] = str(tmp_path)
    at.run()
    assert not at.exception
    assert [t.value for t in at.title] == [title]
    assert purpose in at.caption[0].value  # the first line under the title says what it is for
