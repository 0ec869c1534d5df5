"""Documents in a run are known by content (issue 10 item 2): never by name alone.

The run writer, a lost manifest, the app's Batch and Compare's "same document" test, with
real documents (TIFFs and PDFs generated here) and real run folders.
"""

from __future__ import annotations

import io
from pathlib import Path

import pypdfium2 as pdfium
from PIL import Image

from tests.fakes.fake_engine import FakeEngine
from tests.runs.test_store import make_page
from workbench.models.registry import CPU_SPEC
from workbench.pipeline.batch import run_batch
from workbench.pipeline.request import RunRequest
from workbench.runs.folder import RunReader, RunWriter
from workbench.runs.store import RunStore
from workbench.schema import DocumentInfo, RunInfo
from workbench.ui.compare.view import same_document


def doc_info(name: str, sha: str) -> DocumentInfo:
    return DocumentInfo(name=name, sha256=sha, kind="pdf", pages=1)


def info(*docs: DocumentInfo) -> RunInfo:
    return RunInfo(id="r", name="r", engine="fake", model="m", documents=list(docs))


def pdf_bytes(width: float) -> bytes:
    pdf = pdfium.PdfDocument.new()
    pdf.new_page(width, 792)
    buf = io.BytesIO()
    pdf.save(buf)
    return buf.getvalue()


def test_same_content_same_entry_same_name_other_content_new_entry(tmp_path: Path) -> None:
    writer = RunWriter.create(tmp_path / "run", info(doc_info("doc.pdf", "a" * 64)))
    assert writer.add_document(doc_info("doc.pdf", "a" * 64)) == "doc.pdf"
    assert writer.add_document(doc_info("renamed.pdf", "a" * 64)) == "doc.pdf"  # by content
    assert writer.add_document(doc_info("doc.pdf", "b" * 64)) == "doc-2.pdf"
    assert writer.add_document(doc_info("doc.pdf", "")) == "doc-3.pdf"  # unknown: no match
    assert writer.info.folders == {"doc.pdf": "doc", "doc-2.pdf": "doc-2", "doc-3.pdf": "doc-3"}
    assert [d.name for d in RunReader(writer.path).info.documents] == [
        "doc.pdf",
        "doc-2.pdf",
        "doc-3.pdf",
    ]


def test_a_lost_manifest_keeps_identities_from_document_json(tmp_path: Path) -> None:
    first = doc_info("doc.pdf", "a" * 64)
    writer = RunWriter.create(tmp_path / "run", info(first))
    (tmp_path / "run" / "manifest.json").write_text("{broken")
    stranger = doc_info("doc.pdf", "c" * 64)
    resumed = RunWriter.open(tmp_path / "run", info(first, stranger))
    assert resumed.add_document(first) == "doc.pdf"  # proven by doc/document.json
    assert resumed.add_document(stranger) == "doc-2.pdf"
    assert resumed.info.folders["doc-2.pdf"] == "doc-2"
    assert writer.path == resumed.path


def test_batch_keeps_two_files_with_one_name_apart(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    first, other = pdf_bytes(612), pdf_bytes(500)
    files = [("doc.pdf", first), ("doc.pdf", other), ("doc.pdf", first)]
    out = run_batch(files, FakeEngine(), CPU_SPEC, store, "twins", RunRequest())
    assert (out.done, out.total, out.status) == (2, 2, "done")
    assert out.skipped == ["doc.pdf: same content as doc.pdf, processed once"]
    reader = store.open(out.run_id)
    assert reader.documents == ["doc.pdf", "doc-2.pdf"]
    assert [p.width for p in reader.pages("doc.pdf")] != [
        p.width for p in reader.pages("doc-2.pdf")
    ]


def test_compare_never_pairs_a_different_document_by_name(tmp_path: Path) -> None:
    def run(name: str, sha: str) -> RunReader:
        writer = RunWriter.create(tmp_path / name, info(doc_info("doc.pdf", sha)))
        image = Image.new("RGB", (20, 20), "white")
        writer.write_page(make_page("doc.pdf", 1), image)
        return RunReader(writer.path)

    a, same, other = run("a", "a" * 64), run("same", "a" * 64), run("other", "b" * 64)
    assert same_document(a, "doc.pdf", same) == "doc.pdf"
    assert same_document(a, "doc.pdf", other) is None
