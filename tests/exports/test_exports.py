from __future__ import annotations

import io
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from PIL import Image

from tests.markdown.html_tags import parsed
from workbench.errors import WorkbenchError
from workbench.exports.coco import CATEGORY_IDS, to_coco
from workbench.exports.formats import (
    COORDINATES,
    ExportPage,
    to_json,
    to_markdown,
    zip_bytes,
)
from workbench.exports.html import to_html
from workbench.markdown.sanitize import render_html
from workbench.runs.store import RunReader, RunStore
from workbench.schema import BBox, DocumentInfo, Label, PageResult, Region, RunInfo


def result(doc: str, n: int, markdown: str) -> PageResult:
    return PageResult(
        document=doc,
        page=n,
        width=400,
        height=200,
        engine="fake",
        model="fake-1",
        regions=[
            Region(
                id="a",
                label=Label.TITLE,
                native_label="Title",
                bbox=BBox(x0=10, y0=20, x1=110, y1=60),
                text="Hello",
                score=0.9,
            ),
            Region(id="b", label=Label.TEXT, native_label="Text", text="no box", order=1),
        ],
        markdown=markdown,
        raw="<raw>",
    )


@pytest.fixture
def reader(tmp_path: Path) -> RunReader:
    store = RunStore(tmp_path)
    doc = DocumentInfo(name="scan.pdf", sha256="0" * 64, kind="pdf", pages=2)
    info = RunInfo(id="", name="demo", engine="fake", model="fake-1", documents=[doc])
    writer = store.create(info)
    evil = "# Page 2\n\n<script>alert(1)</script> [x](javascript:alert(2)) <img src=x onerror=y>"
    writer.write_page(result("scan.pdf", 1, "# Page 1\n\n| a | b |\n|---|---|\n| 1 | 2 |"), None)
    writer.write_page(result("scan.pdf", 2, evil), Image.new("RGB", (400, 200), "white"))
    writer.finish()
    fixed = [
        Region(id="c", label=Label.TABLE, native_label="user", bbox=BBox(x0=0, y0=0, x1=40, y1=30))
    ]
    writer.save_corrections("scan.pdf", 1, fixed)
    return store.open(writer.info.id)


@dataclass(frozen=True)
class MemoryPage:
    """An :class:`ExportPage` that is only a result (no store, no image)."""

    result: PageResult
    corrected: list[Region] | None = None
    image_file: str = "page.png"

    def load_image(self) -> Image.Image | None:
        return None


def pages_of(reader: RunReader) -> list[ExportPage]:
    return list(reader.iter_stored())


def test_json_round_trips_to_page_results(reader: RunReader) -> None:
    text = to_json(pages_of(reader), reader.info)
    data = json.loads(text)
    assert data["info"]["coordinate_space"] == COORDINATES
    assert data["info"]["run"]["id"] == reader.info.id
    assert [PageResult.model_validate(p) for p in data["pages"]] == reader.pages("scan.pdf")
    (fix,) = data["corrections"]
    assert (fix["document"], fix["page"]) == ("scan.pdf", 1)
    regions = [Region.model_validate(r) for r in fix["regions"]]
    assert regions == reader.load_corrections("scan.pdf", 1)


def test_coco_boxes_are_xywh_and_use_corrected_layer(reader: RunReader) -> None:
    coco = json.loads(json.dumps(to_coco(pages_of(reader), reader.info)))
    assert "page pixels" in coco["info"]["coordinate_space"]
    assert [(i["file_name"], i["regions_source"]) for i in coco["images"]] == [
        ("scan/page-0001.png", "corrected"),
        ("scan/page-0002.png", "model"),
    ]
    assert [(i["width"], i["height"]) for i in coco["images"]] == [(400, 200), (400, 200)]
    first, second = coco["annotations"]
    assert (first["image_id"], first["bbox"], first["area"]) == (1, [0, 0, 40, 30], 1200)
    assert first["category_id"] == CATEGORY_IDS[Label.TABLE] == 5
    assert (second["image_id"], second["bbox"], second["area"]) == (2, [10, 20, 100, 40], 4000)
    assert second["iscrowd"] == 0 and second["score"] == 0.9
    assert coco["info"]["unlocated_skipped"] == 1  # page 2's box-less text region
    names = {c["id"]: c["name"] for c in coco["categories"]}
    assert names[1] == "text" and len(names) == len(Label)


def test_every_label_has_a_stable_category_id() -> None:
    assert set(CATEGORY_IDS) == set(Label)
    assert sorted(CATEGORY_IDS.values()) == list(range(1, len(Label) + 1))


def test_zip_has_the_expected_names(reader: RunReader) -> None:
    coco = json.dumps(to_coco(pages_of(reader)))
    blob = zip_bytes(reader.path, reader.files(), title="demo", extras={"coco.json": coco})
    with zipfile.ZipFile(io.BytesIO(blob)) as zf:
        names = set(zf.namelist())
        readme = zf.read("README.txt").decode()
        assert json.loads(zf.read("scan/page-0001.json"))["page"] == 1
    assert names == {
        "README.txt",
        "coco.json",
        "manifest.json",
        "scan/document.md",
        "scan/document.json",
        "scan/page-0001.md",
        "scan/page-0001.json",
        "scan/page-0001.raw.txt",
        "scan/page-0001.corrected.json",
        "scan/page-0002.png",
        "scan/page-0002.md",
        "scan/page-0002.json",
        "scan/page-0002.raw.txt",
    }
    assert COORDINATES in readme
    page_zip = zip_bytes(reader.path, reader.files("scan.pdf", 2))
    with zipfile.ZipFile(io.BytesIO(page_zip)) as zf:
        assert sorted(zf.namelist()) == [
            "README.txt",
            "scan/page-0002.json",
            "scan/page-0002.md",
            "scan/page-0002.png",
            "scan/page-0002.raw.txt",
        ]
    with pytest.raises(WorkbenchError, match="outside"):
        zip_bytes(reader.path / "scan", [reader.path / "manifest.json"])


def test_html_is_standalone_and_sanitized(reader: RunReader) -> None:
    page = to_html(pages_of(reader), run=reader.info)
    parser = parsed(page)
    assert "script" not in parser.tags
    assert not any(name.startswith("on") for name, _ in parser.attrs)
    assert not any("javascript:" in (value or "") for _, value in parser.attrs)
    assert parser.tags.count("img") == 1  # page 1 was written without an image
    assert "data:image/jpeg;base64," in page and "http" not in page.split("<body>")[1]
    assert "<table>" in page  # page 1's pipe table rendered
    # page 2's title box at x0=10/400, y0=20/200, 100x40 px
    assert "left:2.500%;top:10.000%;width:25.000%;height:20.000%" in page
    assert "coordinate space: page_px" in page and "<footer>" in page
    assert "<script>" not in render_html("<script>alert(1)</script>")
    table = render_html("<table><tr><td onclick='x()'>1</td></tr></table>")
    assert table == "<table><tbody><tr><td>1</td></tr></tbody></table>"
    assert "<img" not in render_html("<img src=https://tracker.example/x.png>")


def test_markdown_export_orders_and_names_documents() -> None:
    pages = [
        MemoryPage(result("b.png", 1, "B one")),
        MemoryPage(result("a.pdf", 2, "A two")),
        MemoryPage(result("a.pdf", 1, "A one")),
    ]
    assert to_markdown(pages[1:]) == "<!-- page 1 -->\n\nA one\n\n<!-- page 2 -->\n\nA two\n"
    assert to_markdown(pages) == (
        "<!-- document: b.png -->\n\n<!-- page 1 -->\n\nB one\n\n"
        "<!-- document: a.pdf -->\n\n<!-- page 1 -->\n\nA one\n\n<!-- page 2 -->\n\nA two\n"
    )


def test_markdown_export_is_the_run_folder_document_md(reader: RunReader) -> None:
    """One page-marker rule: the Markdown export of a document is its ``document.md``."""
    assert to_markdown(pages_of(reader)) == (reader.path / "scan" / "document.md").read_text()


def test_coco_of_pages_without_images() -> None:
    pages = [MemoryPage(result("b.png", 1, "B one")), MemoryPage(result("a.pdf", 2, "A two"))]
    assert [i["regions_source"] for i in to_coco(pages)["images"]] == ["model", "model"]


def test_dollars_in_exported_tables_read_as_dollars(tmp_path: Path) -> None:
    """Issue 30.9: the CPU engine writes ``$`` in an HTML table cell as ``&#36;`` (the app's
    sanitizer reads ``$…$`` as math); a downloaded Markdown or ZIP showed "&#36;1,200"."""
    table = "<table><tr><td>Rent</td><td>&#36;1,200</td></tr></table>"
    page = MemoryPage(result("bill.pdf", 1, table))
    assert "<td>$1,200</td>" in to_markdown([page]) and "&#36;" not in to_markdown([page])
    store = RunStore(tmp_path)
    doc = DocumentInfo(name="bill.pdf", sha256="0" * 64, kind="pdf", pages=1)
    writer = store.create(RunInfo(id="", name="bill", engine="fake", model="m", documents=[doc]))
    writer.write_page(result("bill.pdf", 1, table), None)
    writer.finish()
    run = store.open(writer.info.id)
    files = [p for p in run.path.rglob("*") if p.is_file()]
    with zipfile.ZipFile(io.BytesIO(zip_bytes(run.path, files))) as zf:
        md = zf.read("bill/document.md").decode()
    assert "<td>$1,200</td>" in md and "&#36;" not in md
