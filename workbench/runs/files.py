"""Writing one file of a run folder: atomically, with the user's umask, and figure crops.

Contracts
---------
* :func:`atomic_write` and :func:`atomic_png` write a temporary file in the target's folder
  and ``os.replace`` it into place, so a reader sees the old file or the whole new one.
* :func:`plain_write` writes in place, for files nobody reads until another file lands (a new
  page's image, Markdown and raw output before its ``.json``).
* Files end up with the mode a plain ``open(path, "w")`` would give them: ``0o666`` minus the
  process umask (``0644`` by default), not the ``0600`` of ``tempfile.mkstemp``, so other
  tools and users can read the results. The umask is read per call unless the caller passes
  ``mode=`` (:meth:`~workbench.runs.folder.RunWriter.write_page` reads it once per page:
  reading ``/proc/self/status`` for each of a page's files was a measurable cost).
* :func:`figure_crops` cuts every located figure region out of the page image the engine saw
  (``page_px``), named as :mod:`workbench.markdown.assemble` links them
  (``page-NNNN-rN.png``). PNG encoding is deterministic: the same page gives the same bytes.
"""

from __future__ import annotations

import io
import os
import tempfile
from pathlib import Path

from PIL import Image

from workbench.markdown.assemble import figure_filename
from workbench.schema import Label, PageResult

TMP_SUFFIX = ".tmp"


def _read_umask() -> int:
    """The process umask, read without changing it where Linux lets us (no race)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)  # elsewhere: set and restore at once
    os.umask(mask)
    return mask


def file_mode() -> int:
    """The mode a new file gets: ``0o666`` minus the umask (read each time: it may change)."""
    return 0o666 & ~_read_umask()


def _replace_into(path: Path, write: object, mode: int | None) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=TMP_SUFFIX, dir=path.parent)
    try:
        os.fchmod(fd, file_mode() if mode is None else mode)
        with os.fdopen(fd, "wb") as fh:
            write(fh)  # type: ignore[operator]
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write(path: Path, data: bytes | str, *, mode: int | None = None) -> None:
    """Write ``path`` so that readers see the old file or the whole new one, never a part.
    ``mode``: the file's mode (default :func:`file_mode`, read now)."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    _replace_into(path, lambda fh: fh.write(payload), mode)


def plain_write(path: Path, data: bytes | str, *, mode: int | None = None) -> None:
    """Write ``path`` in place (created, or truncated if it is there), for a file no reader
    looks at yet: a new page's files before its ``.json`` lands (the page's commit, written
    last and atomically by :meth:`~workbench.runs.folder.RunWriter.write_page`). One create
    instead of a temporary file and a rename: a page's files cost about half as much."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0), file_mode() if mode is None else mode)
    with os.fdopen(fd, "wb") as fh:
        fh.write(payload)


def atomic_png(path: Path, image: Image.Image, *, mode: int | None = None) -> None:
    # compress_level 1: speed over size, pages are big
    _replace_into(path, lambda fh: image.save(fh, format="PNG", compress_level=1), mode)


def figure_crops(result: PageResult, image: Image.Image) -> dict[str, bytes]:
    """``{file name: PNG bytes}`` for every located figure region of ``result``.

    Boxes are clamped to the image and kept at least one pixel wide and high, so every figure
    the Markdown links has its file.
    """
    crops: dict[str, bytes] = {}
    w, h = image.size
    for region in result.regions:
        if region.label is not Label.FIGURE or region.bbox is None:
            continue
        buf = io.BytesIO()
        image.crop(region.bbox.pixels(w, h)).save(buf, format="PNG")
        crops[figure_filename(result.page, region.id)] = buf.getvalue()
    return crops
