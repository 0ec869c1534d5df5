"""Seed a run store with real runs: FakeEngine through ``pipeline.process.process`` and the
RunWriter, on synthetic two-page documents. Shared by the Runs/Compare AppTests and the
browser tests.

Run A comes from :class:`FakeEngine` as is; run B from :class:`DisagreeingEngine`, which
drops the formula region, calls the table a figure and rewords the left column, so Compare
has disagreements and a non-trivial word diff to show.
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Sequence
from pathlib import Path

from PIL import Image, ImageDraw

from tests.fakes.fake_engine import FakeEngine
from workbench.documents import open_document
from workbench.engines.base import EngineOutput, PageRequest
from workbench.models.registry import CPU_SPEC
from workbench.pipeline.process import process
from workbench.runs.store import RunStore
from workbench.schema import Label, RunInfo, RunStatus
from workbench.settings import Settings

DOC = "memo.tiff"
PAGE_SIZE = (800, 1000)


class DisagreeingEngine(FakeEngine):
    name = "fake-b"
    model = "fake-layout-2"

    def run(self, requests: Sequence[PageRequest]) -> Iterator[EngineOutput]:
        for out in super().run(requests):
            if out.regions is not None:
                kept = [r for r in out.regions if r.label is not Label.FORMULA]
                out.regions = [
                    r.model_copy(update={"label": Label.FIGURE, "native_label": "figure"})
                    if r.label is Label.TABLE
                    else r.model_copy(update={"text": r.text.replace("Left", "Leftmost")})
                    if r.text.startswith("Left")
                    else r
                    for r in kept
                ]
            yield out


def page_png(n: int) -> Image.Image:
    image = Image.new("RGB", PAGE_SIZE, "white")
    draw = ImageDraw.Draw(image)
    w, h = PAGE_SIZE
    draw.rectangle((0.1 * w, 0.08 * h, 0.9 * w, 0.14 * h), fill=(40, 40, 40))
    for k in range(12):
        y = 0.18 * h + k * 0.035 * h
        draw.line((0.1 * w, y, 0.46 * w, y), fill=(90, 90, 90), width=4)
        draw.line((0.54 * w, y, 0.88 * w, y), fill=(90, 90, 90), width=4)
    draw.rectangle((0.1 * w, 0.65 * h, 0.9 * w, 0.85 * h), outline=(0, 0, 0), width=3)
    draw.text((0.5 * w, 0.96 * h), str(n), fill="black")
    return image


def document_bytes(pages: int = 2) -> bytes:
    """A multi-page TIFF (a real document the workbench opens)."""
    frames = [page_png(n) for n in range(1, pages + 1)]
    buf = io.BytesIO()
    frames[0].save(buf, format="TIFF", save_all=True, append_images=frames[1:])
    return buf.getvalue()


def make_run(store: RunStore, engine: FakeEngine, name: str, pages: int = 2) -> str:
    doc = open_document(DOC, document_bytes(pages), Settings())
    writer = store.create(
        RunInfo(id="", name=name, engine=engine.name, model=engine.model, documents=[doc.info()])
    )
    for item in process(engine, CPU_SPEC, doc.pages()):
        writer.write_page(item.result, item.image)
    writer.finish(RunStatus.DONE)
    return writer.info.id


def seed(root: Path, pages: int = 2, both: bool = True) -> tuple[str, str | None]:
    """Runs A (FakeEngine) and, with ``both``, B (DisagreeingEngine) of one document."""
    store = RunStore(root)
    a = make_run(store, FakeEngine(), "memo A", pages)
    b = make_run(store, DisagreeingEngine(), "memo B", pages) if both else None
    return a, b
