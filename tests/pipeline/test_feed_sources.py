"""The feed opens a DocumentSource at its turn (issue 31.5): its pages come out as an open
Document's would, and a file that changed since it was planned fails its own pages, named,
while the other documents go on."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from workbench.documents import open_document, probe_input
from workbench.models.registry import get_spec
from workbench.pipeline.feed import prepare_plans
from workbench.pipeline.prepare import UnreadablePage, unreadable
from workbench.settings import Settings

SPEC = get_spec("lightonai/LightOnOCR-2-1B")


def tiff(path: Path, colour: tuple[int, int, int], pages: int = 2) -> Path:
    frames = [Image.new("RGB", (300, 400), colour) for _ in range(pages)]
    frames[0].save(path, save_all=True, append_images=frames[1:])
    return path


@pytest.mark.parametrize("workers", [0, 1])
def test_sources_are_opened_at_their_turn(tmp_path: Path, workers: int) -> None:
    settings = Settings()
    good = probe_input(tiff(tmp_path / "good.tif", (200, 10, 10)), settings)
    changed = probe_input(tiff(tmp_path / "changed.tif", (10, 200, 10)), settings)
    tiff(tmp_path / "changed.tif", (10, 10, 200))  # rewritten after planning
    items = [(changed, "changed.tif", [1, 2]), (good, "good.tif", [1, 2])]
    pages = list(prepare_plans(items, SPEC, workers=workers, unreadable=unreadable))
    assert [(p.document, p.index) for p in pages] == [
        ("changed.tif", 1), ("changed.tif", 2), ("good.tif", 1), ("good.tif", 2)
    ]  # fmt: skip
    failed = [p for p in pages if isinstance(p, UnreadablePage)]
    assert [p.document for p in failed] == ["changed.tif"] * 2
    assert "changed while the run went on" in failed[0].reason
    opened = open_document("good.tif", (tmp_path / "good.tif").read_bytes(), settings)
    direct = list(prepare_plans([(opened, "good.tif", [1, 2])], SPEC, workers=workers))
    assert [p.png for p in pages[2:]] == [p.png for p in direct]  # same bytes as an open one
