"""Reading one run folder, tolerantly: a missing or unreadable page file is skipped, never fatal.

The folder's layout and crash contract are in :mod:`workbench.runs.folder` (which re-exports
:class:`RunReader` and :class:`StoredPage`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from PIL import Image
from pydantic import ValidationError

from workbench.errors import StoreError
from workbench.runs.files import TMP_SUFFIX
from workbench.runs.layout import (
    DOCUMENT_MD,
    Corrections,
    RunManifest,
    join_markdown,
    page_numbers,
    page_stem,
    read_manifest,
    read_page,
    save_corrections,
    scan_folders,
)
from workbench.schema import PageResult, Region

__all__ = ["RunReader", "StoredPage"]


@dataclass(frozen=True)
class StoredPage:
    """A finished page as kept on disk: the model's result and, if any, the hand corrections."""

    result: PageResult
    corrected: list[Region] | None
    image_path: Path | None
    image_file: str  # path relative to the run folder, e.g. "scan/page-0001.png"

    @property
    def regions(self) -> list[Region]:
        """The regions to show: the corrected layer when present, else the model's."""
        return self.corrected if self.corrected is not None else self.result.regions

    def load_image(self) -> Image.Image | None:
        if self.image_path is None or not self.image_path.exists():
            return None
        with Image.open(self.image_path) as im:
            im.load()
            return im.copy()


class RunReader:
    """Read one run folder. Missing or unreadable page files are skipped, never fatal."""

    def __init__(self, run_dir: Path | str) -> None:
        self.path = Path(run_dir)
        self.info: RunManifest = read_manifest(self.path)
        self._folders = dict(self.info.folders) or scan_folders(self.path)

    @property
    def documents(self) -> list[str]:
        return list(self._folders)

    @property
    def folders(self) -> dict[str, str]:
        """Document name -> folder name inside the run."""
        return dict(self._folders)

    def folder(self, doc: str) -> Path:
        try:
            return self.path / self._folders[doc]
        except KeyError:
            raise StoreError(f"{self.info.id}: no document named {doc!r}.") from None

    def page_numbers(self, doc: str) -> list[int]:
        return page_numbers(self.folder(doc))

    def page(self, doc: str, page: int) -> PageResult:
        result = read_page(self.folder(doc) / f"{page_stem(page)}.json")
        if result is None:
            raise StoreError(f"{self.info.id}: {doc} page {page} is missing or unreadable.")
        return result

    def pages(self, doc: str) -> list[PageResult]:
        folder = self.folder(doc)
        found = (read_page(folder / f"{page_stem(n)}.json") for n in page_numbers(folder))
        return [p for p in found if p is not None]

    def image_path(self, doc: str, page: int) -> Path:
        return self.folder(doc) / f"{page_stem(page)}.png"

    def image(self, doc: str, page: int) -> Image.Image:
        path = self.image_path(doc, page)
        try:
            with Image.open(path) as im:
                im.load()
                return im.copy()
        except OSError as exc:
            raise StoreError(f"{self.info.id}: image of {doc} page {page} unreadable.") from exc

    def raw(self, doc: str, page: int) -> str:
        path = self.folder(doc) / f"{page_stem(page)}.raw.txt"
        return path.read_text("utf-8") if path.exists() else ""

    def load_corrections(self, doc: str, page: int) -> list[Region] | None:
        path = self.folder(doc) / f"{page_stem(page)}.corrected.json"
        if not path.exists():
            return None
        try:
            return Corrections.model_validate_json(path.read_bytes()).regions
        except (OSError, ValidationError, ValueError) as exc:
            raise StoreError(f"{self.info.id}: corrections of {doc} p{page} unreadable.") from exc

    def save_corrections(self, doc: str, page: int, regions: list[Region]) -> Path:
        """Keep hand-corrected regions beside the model's page; its .json is never touched."""
        return save_corrections(self.path, self.folder(doc).name, doc, page, regions)

    def stored(self, doc: str, page: int) -> StoredPage:
        """The model's result and the hand corrections (None when there are none) together."""
        image = self.image_path(doc, page)
        return StoredPage(
            result=self.page(doc, page),
            corrected=self.load_corrections(doc, page),
            image_path=image if image.exists() else None,
            image_file=image.relative_to(self.path).as_posix(),
        )

    def iter_stored(self, doc: str | None = None) -> Iterator[StoredPage]:
        for name in [doc] if doc is not None else self.documents:
            for n in self.page_numbers(name):
                try:
                    yield self.stored(name, n)
                except StoreError:
                    continue

    def markdown(self, doc: str) -> str:
        path = self.folder(doc) / DOCUMENT_MD
        if path.exists():
            return path.read_text("utf-8")
        return join_markdown(self.pages(doc))

    def files(self, doc: str | None = None, page: int | None = None) -> list[Path]:
        """The run's files (all, one document's, or one page's), for ZIP export."""
        if doc is None:
            return sorted(
                p for p in self.path.rglob("*") if p.is_file() and not p.name.endswith(TMP_SUFFIX)
            )
        folder = self.folder(doc)
        if page is None:
            return sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))
        return sorted(folder.glob(f"{page_stem(page)}[.-]*"))  # with figure crops -rN.png
