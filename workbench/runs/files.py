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
* A write that finds the disk full (ENOSPC, or EDQUOT: the quota) raises
  :class:`~workbench.errors.DiskFull` naming the file's folder and the bytes it needed, never
  a bare OSError; a temporary file it began is removed.
* :func:`figure_crops` cuts every located figure region out of the page image the engine saw
  (``page_px``), named as :mod:`workbench.markdown.assemble` links them
  (``page-NNNN-rN.png``). PNG encoding is deterministic: the same page gives the same bytes.
"""

from __future__ import annotations

import contextlib
import errno
import io
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from PIL import Image

from workbench.errors import DiskFull
from workbench.markdown.assemble import figure_filename
from workbench.schema import Label, PageResult

TMP_SUFFIX = ".tmp"
#: errno values that mean "no room": the disk is full, or the user's quota is spent.
NO_SPACE = frozenset({errno.ENOSPC, errno.EDQUOT})


def free_bytes(folder: Path) -> int:
    """Bytes free to this user on the disk of ``folder`` (0 when it cannot be told)."""
    try:
        return shutil.disk_usage(folder).free
    except OSError:
        return 0


@contextlib.contextmanager
def room_for(folder: Path, needed: int) -> Iterator[None]:
    """Turn a full disk met inside into :class:`DiskFull` (``folder``, ``needed`` bytes)."""
    try:
        yield
    except OSError as exc:
        if exc.errno not in NO_SPACE:
            raise
        raise DiskFull(folder, free_bytes(folder), needed) from exc


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


def _replace_into(path: Path, write: object, mode: int | None, size: int) -> None:
    with room_for(path.parent, size):
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
    _replace_into(path, lambda fh: fh.write(payload), mode, len(payload))


def plain_write(path: Path, data: bytes | str, *, mode: int | None = None) -> None:
    """Write ``path`` in place (created, or truncated if it is there), for a file no reader
    looks at yet: a new page's files before its ``.json`` lands (the page's commit, written
    last and atomically by :meth:`~workbench.runs.folder.RunWriter.write_page`). One create
    instead of a temporary file and a rename: a page's files cost about half as much."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
    with room_for(path.parent, len(payload)):
        fd = os.open(
            path, flags | getattr(os, "O_CLOEXEC", 0), file_mode() if mode is None else mode
        )
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(payload)
        except BaseException:
            path.unlink(missing_ok=True)  # a part of a file is no file (and frees its room)
            raise


def atomic_png(path: Path, image: Image.Image, *, mode: int | None = None) -> None:
    # compress_level 1: speed over size, pages are big
    size = image.width * image.height * len(image.getbands())  # at most, uncompressed
    _replace_into(path, lambda fh: image.save(fh, format="PNG", compress_level=1), mode, size)


def write_page_files(
    base: Path,
    result: PageResult,
    image: Image.Image | None,
    png: bytes | None,
    *,
    overwrite: bool,
) -> int:
    """A page's files at ``base`` (``page-NNNN``): image (``png`` as is, else ``image``
    encoded), figure crops, Markdown, raw output, its .json last; about the bytes written.
    The page writer is :meth:`~workbench.runs.folder.RunWriter.write_page`."""
    mode = file_mode()  # once for the page's files
    # A new page's files are written in place: nothing reads them before its .json lands
    # (atomically, last), and a crash before that leaves a page that is written again.
    # A page written before is replaced atomically: a reader may have it open.
    write = atomic_write if overwrite else plain_write
    if image is not None:
        # Only a page written before (or cut short by a crash: its image is written first)
        # can have stale crops; listing the folder for every new page would cost O(pages)
        # each, O(pages²) for a long document.
        before = overwrite or base.with_suffix(".png").exists()
        if png is not None:
            write(base.with_suffix(".png"), png, mode=mode)
        else:
            atomic_png(base.with_suffix(".png"), image, mode=mode)
        crops = figure_crops(result, image)
        for stale in base.parent.glob(f"{base.name}-r*.png") if before else ():
            if stale.name not in crops:
                stale.unlink(missing_ok=True)
        for name, data in crops.items():
            write(base.parent / name, data, mode=mode)
    write(base.with_suffix(".md"), result.markdown, mode=mode)
    raw = base.with_name(f"{base.name}.raw.txt")
    if result.raw:
        write(raw, result.raw, mode=mode)
    else:
        raw.unlink(missing_ok=True)
    page_json = json.dumps(result.model_dump(mode="json"), ensure_ascii=False)
    atomic_write(base.with_suffix(".json"), page_json, mode=mode)
    return len(png or b"") + len(result.markdown) + len(result.raw) + len(page_json)


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
