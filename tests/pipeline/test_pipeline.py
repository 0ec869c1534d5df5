"""pipeline: sizing, chunked streaming, parsing through the registry, statuses, rotation."""

from __future__ import annotations

import io
from collections.abc import Iterator, Sequence

import pypdfium2 as pdfium
from PIL import Image

from tests.fakes.fake_engine import FakeEngine
from workbench.documents import open_document
from workbench.engines.base import EngineOutput, PageRequest
from workbench.models.registry import CPU_SPEC, ModelSpec, PageSizing
from workbench.parsers.base import ParseContext, ParsedPage, register
from workbench.pipeline.prepare import sized
from workbench.pipeline.process import process
from workbench.schema import Attempt, BBox, Label, PageStatus, Region, Sampling


def pdf_doc(pages: int) -> bytes:
    pdf = pdfium.PdfDocument.new()
    for _ in range(pages):
        pdf.new_page(612, 792)
    buf = io.BytesIO()
    pdf.save(buf)
    return buf.getvalue()


@register("test-boxes")
def _parse_test(raw: str, ctx: ParseContext) -> ParsedPage:
    """'label x0 y0 x1 y1 text' per line, 0-1000 grid; 'ROT n' asks for a rotation."""
    regions, rotation = [], 0
    for line in raw.splitlines():
        if line.startswith("ROT"):
            rotation = int(line.split()[1])
            continue
        label, *nums, text = line.split(" ", 5)
        box = BBox.from_scaled([float(n) for n in nums], 1000, 1000, ctx.width, ctx.height)
        regions.append(
            Region(
                id=f"r{len(regions)}",
                label=Label(label),
                native_label=label,
                bbox=box,
                text=text,
                order=len(regions),
            )
        )
    return ParsedPage(regions=regions, rotation=rotation)


class ScriptedVlm:
    """Returns raw text per call; records the image sizes it was sent."""

    name, model = "scripted", "scripted-vlm"

    def __init__(self, outputs: list[EngineOutput]) -> None:
        self.outputs = outputs
        self.sizes: list[tuple[int, int]] = []

    def describe(self) -> dict[str, str]:
        return {}

    def close(self) -> None: ...

    def run(self, requests: Sequence[PageRequest]) -> Iterator[EngineOutput]:
        for req in requests:
            self.sizes.append(req.image.size)
            out = self.outputs.pop(0)
            out.key = req.key
            yield out


SPEC = ModelSpec(
    id="test/vlm",
    display="t",
    family="t",
    parser="test-boxes",
    sizing=PageSizing(longest_edge=1000),
    sampling=Sampling(max_tokens=10),
)


def test_sizing_rules() -> None:
    img = Image.new("RGB", (1700, 2200))
    assert sized(img, PageSizing(longest_edge=1540)).size == (1190, 1540)
    assert sized(img, PageSizing(max_pixels=1_000_000, grid=28)).size[0] % 28 == 0
    small = Image.new("RGB", (500, 800))
    assert sized(small, PageSizing(min_short_edge=1000)).size == (1000, 1600)
    assert sized(small, PageSizing()) is small


def test_vlm_output_is_parsed_into_page_px_of_the_sent_image() -> None:
    engine = ScriptedVlm(
        [
            EngineOutput(
                key="",
                raw="title 0 0 500 100 Hello\ntable 0 500 1000 1000 | a |",
                finish_reason="stop",
                attempts=[Attempt()],
            ),
        ]
    )
    doc = open_document("d.pdf", pdf_doc(1))
    [item] = list(process(engine, SPEC, doc.pages(dpi=200)))
    assert engine.sizes == [(773, 1000)] and item.image.size == (773, 1000)
    r = item.result
    assert (r.width, r.height) == (773, 1000)
    assert r.regions[0].bbox is not None and r.regions[0].bbox.as_list() == [0, 0, 386.5, 100]
    assert r.markdown.startswith("# Hello") and r.status is PageStatus.OK


def test_statuses_truncated_looped_error() -> None:
    engine = ScriptedVlm(
        [
            EngineOutput(key="", raw="text 0 0 10 10 cut", finish_reason="length"),
            EngineOutput(key="", raw="text 0 0 9 9 x x x", attempts=[Attempt(repeated=True)] * 3),
            EngineOutput(key="", error="cannot reach http://127.0.0.1:9/v1"),
        ]
    )
    doc = open_document("d.pdf", pdf_doc(3))
    results = [p.result for p in process(engine, SPEC, doc.pages(dpi=50))]
    assert [r.status for r in results] == [
        PageStatus.TRUNCATED,
        PageStatus.LOOPED,
        PageStatus.ERROR,
    ]
    assert results[1].retries == 2 and "repetition loop" in results[1].notes[0]
    assert results[2].error and "cannot reach" in results[2].error


def test_rotated_page_is_sent_again_upright() -> None:
    engine = ScriptedVlm(
        [
            EngineOutput(key="", raw="ROT 90\ntext 0 0 10 10 sideways"),
            EngineOutput(key="", raw="text 0 0 1000 1000 upright"),
        ]
    )
    doc = open_document("d.pdf", pdf_doc(1))
    [item] = list(process(engine, SPEC, doc.pages(dpi=50)))
    assert engine.sizes == [(425, 550), (550, 425)]  # second call: turned 90 degrees
    assert item.image.size == (550, 425) and item.result.regions[0].text == "upright"
    assert item.result.rotation == 90
    assert "page turned 90° counter-clockwise as the model asked" in item.result.notes


def test_streams_in_chunks_reports_progress_and_can_cancel() -> None:
    engine = FakeEngine()
    doc = open_document("d.pdf", pdf_doc(7))
    seen: list[tuple[int, int]] = []
    out = process(
        engine,
        CPU_SPEC,
        doc.pages(dpi=30),
        total=7,
        chunk_size=3,
        on_page=lambda i, n, r: seen.append((i, n)),
        cancelled=lambda: len(seen) >= 4,
    )
    results = [p.result.page for p in out]
    assert results == [1, 2, 3, 4]
    assert seen == [(1, 7), (2, 7), (3, 7), (4, 7)]
    assert engine.calls == 4  # the engine was not asked for another page after cancel


def test_failed_page_does_not_stop_the_rest() -> None:
    engine = FakeEngine(fail_keys=["d.pdf#2"])
    doc = open_document("d.pdf", pdf_doc(3))
    statuses = [p.result.status for p in process(engine, CPU_SPEC, doc.pages(dpi=30))]
    assert statuses == [PageStatus.OK, PageStatus.ERROR, PageStatus.OK]


def test_a_boxless_page_says_so_once() -> None:
    """The parser's note and the pipeline's are one text, so the page carries it once."""
    from workbench.models.registry import get_spec
    from workbench.parsers import NO_BOXES_NOTE
    from workbench.pipeline.process import to_result

    for model in ("lightonai/LightOnOCR-2-1B", "allenai/olmOCR-2-7B-1025"):
        spec = get_spec(model)
        out = EngineOutput(key="k", raw="# Title\n\nSome text.")
        result = to_result(
            spec, out, document="d.png", page=1, size=(100, 100), engine="e", model=model
        )
        assert result.notes.count(NO_BOXES_NOTE) == 1 and len(result.notes) == 1, result.notes
