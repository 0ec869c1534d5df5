"""One bad page never costs another (issue 25.1): a TIFF frame that claims 40000×40000
pixels and a PDF page PDFium cannot load fail that page only, with its reason; the other pages
of the document and the other inputs are processed, in the pipeline, the run writer and the
CLI (exit 1: "an input could not be read"). Real files, built byte by byte
(:mod:`tests.fakes.bad_documents`), a real HTTP server, real worker processes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from tests.fakes.bad_documents import pdf_with_unloadable_page, tiff_with_huge_frame
from tests.fakes.openai_server import FakeOpenAIServer
from workbench.cli import main as cli
from workbench.documents import open_document
from workbench.engines.server.engine import VllmServerEngine
from workbench.errors import DocumentError
from workbench.models.registry import get_spec
from workbench.pipeline.feed import prepare_pages
from workbench.pipeline.prepare import UnreadablePage
from workbench.pipeline.process import process_document
from workbench.schema import PageStatus

LIGHTON = get_spec("lightonai/LightOnOCR-2-1B")
MODEL = "lightonai/LightOnOCR-2-1B"

BAD = [
    ("fax.tif", tiff_with_huge_frame, "page 2 claims 40000×40000 pixels"),
    ("scan.pdf", pdf_with_unloadable_page, "page 2 cannot be read"),
]


@pytest.mark.parametrize(("name", "build", "reason"), BAD)
@pytest.mark.parametrize("workers", [0, 2])
def test_a_bad_page_is_yielded_in_its_place_and_the_rest_are_prepared(
    name: str, build: object, reason: str, workers: int
) -> None:
    doc = open_document(name, build())  # type: ignore[operator]
    assert doc.page_count == 3
    pages = list(prepare_pages(doc, None, LIGHTON, workers=workers, keep_going=True))
    assert [p.index for p in pages] == [1, 2, 3]
    bad = pages[1]
    assert isinstance(bad, UnreadablePage) and reason in bad.reason
    for good in (pages[0], pages[2]):
        assert not isinstance(good, UnreadablePage)
        assert good.png is not None and min(good.size) > 100
    # Without keep_going the old contract holds: the bad page raises, naming the file.
    with pytest.raises(DocumentError, match=rf"^{name.replace('.', r'.')}: page 2"):
        list(prepare_pages(doc, None, LIGHTON, workers=workers))


@pytest.mark.parametrize(("name", "build", "reason"), BAD)
def test_the_pipeline_fails_the_page_and_sends_the_others(
    name: str, build: object, reason: str
) -> None:
    doc = open_document(name, build())  # type: ignore[operator]
    with FakeOpenAIServer(models=[MODEL]) as server:
        engine = VllmServerEngine(server.base_url, model=MODEL, concurrency=2)
        results = {p.result.page: p for p in process_document(engine, LIGHTON, doc, workers=0)}
        engine.close()
    assert server.completions == 2  # the bad page is never sent
    assert results[2].result.status is PageStatus.ERROR
    assert reason in (results[2].result.error or "")
    assert results[2].page_image is None  # nothing to write as its image
    assert [results[n].result.status for n in (1, 3)] == [PageStatus.OK] * 2


def test_cli_processes_every_other_page_and_input_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "fax.tif").write_bytes(tiff_with_huge_frame())
    (tmp_path / "scan.pdf").write_bytes(pdf_with_unloadable_page())
    Image.new("RGB", (300, 400), "white").save(tmp_path / "good.png")
    out = tmp_path / "out"
    inputs = [str(tmp_path / n) for n in ("fax.tif", "scan.pdf", "good.png")]
    with FakeOpenAIServer(models=[MODEL]) as server:
        args = ["ocr", *inputs, "--out", str(out), "--engine", "vllm-server"]
        code = cli([*args, "--base-url", server.base_url, "--quiet"])
    err = capsys.readouterr().err
    assert code == 1, err
    assert "fax.tif page 2: page 2 claims 40000×40000 pixels" in err
    assert "scan.pdf page 2: page 2 cannot be read" in err
    manifest = json.loads((out / "manifest.json").read_text())
    status = {(e["document"], e["page"]): e["status"] for e in manifest["pages"]}
    assert status == {
        ("fax.tif", 1): "ok", ("fax.tif", 2): "error", ("fax.tif", 3): "ok",
        ("scan.pdf", 1): "ok", ("scan.pdf", 2): "error", ("scan.pdf", 3): "ok",
        ("good.png", 1): "ok",
    }  # fmt: skip
    assert manifest["status"] == "partial"
    for folder in ("fax", "scan"):
        assert (out / folder / "page-0001.png").exists()
        assert not (out / folder / "page-0002.png").exists()  # no pixels to write
        page = json.loads((out / folder / "page-0002.json").read_text())
        assert page["status"] == "error" and "page 2" in page["error"]
