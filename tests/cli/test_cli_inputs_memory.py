"""The CLI holds an input only while its pages are prepared (issue 31.5): with 24 inputs, the
documents open (bytes and decoder held) at any moment while pages are answered stay a few,
not 24, and none is open at the end. Counted, not timed: the fake server counts the open
Documents of this process at every request."""

from __future__ import annotations

import gc
import json
from pathlib import Path
from typing import Any

from PIL import Image

from tests.fakes.openai_server import DEFAULT_TEXT, FakeOpenAIServer
from workbench.cli import main
from workbench.documents import Document

INPUTS = 24


def open_documents() -> int:
    """Documents of this process still holding an open file (their bytes and decoder)."""
    return sum(
        1
        for o in gc.get_objects()
        if isinstance(o, Document) and (o._image is not None or o._pdf is not None)
    )


def test_inputs_are_opened_at_their_turn_and_let_go(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    for i in range(INPUTS):
        Image.new("RGB", (300, 400), (i * 10, 80, 120)).save(folder / f"doc-{i:02d}.tif")
    seen: list[int] = []
    before = open_documents()  # other tests' documents, if any are still alive

    def respond(_body: dict[str, Any]) -> str:
        seen.append(open_documents() - before)
        return DEFAULT_TEXT

    out = tmp_path / "out"
    with FakeOpenAIServer(respond=respond) as server:
        code = main(["ocr", str(folder), "--out", str(out), "--engine", "vllm-server",
                     "--base-url", server.base_url, "--spec", "lightonai/LightOnOCR-2-1B",
                     "--concurrency", "2", "--quiet"])  # fmt: skip
    assert code == 0
    assert len(json.loads((out / "manifest.json").read_text())["pages"]) == INPUTS
    assert len(seen) == INPUTS
    assert max(seen) <= 8, seen  # the feed's few ahead, whatever the number of inputs
    assert open_documents() == before
