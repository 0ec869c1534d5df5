"""The store keeps a PDF's original once per content, outside the run folders, and drops it
with the last run that holds it (the user deleting runs expects the document gone too)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from workbench.runs.store import SOURCES, RunStore
from workbench.schema import DocumentInfo, RunInfo

ROOT = Path(__file__).resolve().parents[2]
PDF = (ROOT / "tests/data/pdflatex_outline.pdf").read_bytes()
SHA = hashlib.sha256(PDF).hexdigest()


def _run(store: RunStore, name: str) -> str:
    doc = DocumentInfo(name="latex.pdf", sha256=SHA, kind="pdf", pages=4)
    writer = store.create(RunInfo(id="", name=name, engine="fake", model="m", documents=[doc]))
    writer.finish()
    return writer.info.id


def test_an_original_is_kept_once_and_goes_with_the_last_run_holding_it(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    first, second = _run(store, "one"), _run(store, "two")
    kept = store.keep_source(PDF, SHA)
    assert kept == tmp_path / SOURCES / f"{SHA}.pdf" and kept.read_bytes() == PDF
    assert store.keep_source(PDF, SHA) == kept and store.source(SHA) == kept
    assert [r.id for r in store.list()] == sorted([first, second], reverse=True)  # not a run
    store.delete(first)
    assert store.source(SHA) == kept  # the second run still holds the document
    store.delete(second)
    assert store.source(SHA) is None and not kept.exists()


def test_only_a_pdf_with_the_content_named_is_kept(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    assert store.keep_source(PDF, "0" * 64) is None  # the content does not match the name
    assert (
        store.keep_source(b"II*\x00 a TIFF", hashlib.sha256(b"II*\x00 a TIFF").hexdigest()) is None
    )
    assert store.keep_source(PDF, "../escape") is None and store.source("../escape") is None
    assert not (tmp_path / SOURCES).exists()
