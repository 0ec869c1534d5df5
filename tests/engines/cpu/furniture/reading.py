"""Read one page of a ``tests/data`` PDF with the CPU engine (text layer on) into Markdown:
the shared step of the headings tests."""

from __future__ import annotations

from pathlib import Path

from workbench.documents import open_document
from workbench.engines.base import PageRequest
from workbench.engines.cpu.engine import CpuEngine
from workbench.markdown.assemble import assemble_page

DATA = Path(__file__).resolve().parents[3] / "data"


def read_markdown(engine: CpuEngine, name: str) -> str:
    """Page 1 of ``tests/data/<name>`` at 200 DPI, as the engine's assembled Markdown."""
    path = DATA / name
    page = open_document(path.name, path.read_bytes()).page(1, dpi=200)
    req = PageRequest(key="p", image=page.image, text_layer=page.text_layer)
    out = next(iter(engine.configured(text_layer="auto").run([req])))
    assert out.error is None, out.error
    return assemble_page(out.regions or [])
