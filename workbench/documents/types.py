"""The file types the workbench reads, defined once: the Viewer's uploader, Batch (its
uploader and a folder's files) and the CLI (a folder's files) all take them from here.
What a file *is* is still decided by its content (:func:`~workbench.documents.sniff_kind`);
these names only choose which files are offered and picked up."""

from __future__ import annotations

from pathlib import Path

#: file name extensions, without the dot, as an uploader lists them
FILE_TYPES: tuple[str, ...] = ("pdf", "png", "jpg", "jpeg", "tif", "tiff", "webp", "bmp")
#: the same, as lower-case suffixes
SUFFIXES = frozenset(f".{t}" for t in FILE_TYPES)


def supported(path: Path) -> bool:
    """Whether ``path`` is named as a file type the workbench reads (its suffix, any case)."""
    return path.suffix.lower() in SUFFIXES
