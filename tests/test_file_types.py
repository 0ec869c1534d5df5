"""The supported file types are one constant (issue 32.4): the Viewer's uploader, Batch's
uploader and folder, and the CLI's folder expansion all take them from
:mod:`workbench.documents.types`, and no other module lists them."""

from __future__ import annotations

import re
from pathlib import Path

from workbench.cli.ocr.cmd import expand_inputs
from workbench.documents.types import FILE_TYPES, SUFFIXES
from workbench.pipeline.batch import folder_files

ROOT = Path(__file__).resolve().parents[1]
#: a literal list of two or more extensions: a second home for the list
LISTED = re.compile(
    r"""["']\.?(?:tiff?|webp|bmp|jpe?g)["']\s*,\s*["']\.?(?:tiff?|webp|bmp|jpe?g|png)["']"""
)


def _lists(path: Path) -> bool:
    """Whether code (not a comment) in ``path`` lists file types."""
    return any(LISTED.search(line.partition("#")[0]) for line in path.read_text().splitlines())


def test_no_module_but_documents_types_lists_the_file_types() -> None:
    homes = [
        str(p.relative_to(ROOT)) for p in sorted((ROOT / "workbench").rglob("*.py")) if _lists(p)
    ]
    assert homes == ["workbench/documents/types.py"]
    for uploader in ("workbench/ui/inputs.py", "workbench/ui/runs/batch.py"):
        assert "type=list(FILE_TYPES)" in (ROOT / uploader).read_text()


def test_the_cli_and_batch_pick_the_same_files_from_a_folder(tmp_path: Path) -> None:
    for suffix in (*SUFFIXES, ".TIF", ".txt", ".docx"):
        (tmp_path / f"f{suffix}").write_bytes(b"x")
    cli, _skipped = expand_inputs([tmp_path])
    batch = [name for name, _ in folder_files(str(tmp_path))]
    assert sorted(p.name for p in cli) == sorted(batch)
    assert len(batch) == len(FILE_TYPES) + 1  # every type, any case; nothing else
