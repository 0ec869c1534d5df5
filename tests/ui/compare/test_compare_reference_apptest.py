"""Compare's reference text comes from what the run store holds (issue 24.4): a PDF processed in
the Viewer is kept in the store, and Compare measures CER against its own text layer with no
upload; where neither run's original is kept, the page says so and offers the upload."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests.fakes.fake_engine import FakeEngine
from tests.ui.compare.test_compare_apptest import compare_app
from tests.ui.runs_seed import seed
from tests.ui.settle import settle
from workbench.documents.textlayer import pdf_text_layer
from workbench.runs.store import RunStore

ROOT = Path(__file__).resolve().parents[3]
PDF = (ROOT / "tests/data/pdflatex_outline.pdf").read_bytes()  # born-digital, 4 pages
LATEX = ("latex.pdf", PDF, "application/pdf")


def per_page(at: AppTest) -> pd.DataFrame:
    return next(d.value for d in at.dataframe if "similarity" in d.value.columns)


def captions(at: AppTest) -> str:
    return " ".join(c.value for c in at.caption)


def test_a_pdf_read_in_the_viewer_is_compared_against_its_own_text_layer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WORKBENCH_STORE_DIR", str(tmp_path))
    viewer = AppTest.from_file(str(ROOT / "workbench" / "Home.py"), default_timeout=120)
    viewer.session_state["engine_override"] = FakeEngine()
    viewer.run()
    settle(viewer.file_uploader(key="wb_uploads").set_value([LATEX]).run())
    assert not viewer.exception
    store = RunStore(tmp_path)
    [run_a] = store.list()
    kept = store.source(hashlib.sha256(PDF).hexdigest())
    assert kept is not None and kept.read_bytes() == PDF
    assert all(pdf_text_layer(PDF, n).strip() for n in range(1, 5))  # every page has text

    # Run B: another run of the same document, from run A's stored pages.
    at = compare_app(tmp_path, run_a.id).run()
    at.button(key="cmp_start_b").click().run()
    assert not at.exception
    table = per_page(at).set_index("page")
    assert list(table.index) == [1, 2, 3, 4]
    for side in ("A CER", "B CER"):  # measured on every page, nothing uploaded
        assert all(re.fullmatch(r"\d+\.\d{3}", v) for v in table[side]), table[side]
    assert not [u for u in at.get("file_uploader") if u.key == "cmp_ref_pdf"]
    assert "text layer of the original latex.pdf (kept in the store)" in captions(at)


def test_without_a_kept_original_the_page_says_so_and_offers_the_upload(tmp_path: Path) -> None:
    a, b = seed(tmp_path)  # runs of a TIFF: no original PDF in the store
    at = compare_app(tmp_path, a, b).run()
    assert not at.exception
    assert [u.key for u in at.get("file_uploader") if u.key == "cmp_ref_pdf"] == ["cmp_ref_pdf"]
    assert "Neither run keeps the original" in captions(at)
    assert set(per_page(at)["A CER"]) == {"—"}
