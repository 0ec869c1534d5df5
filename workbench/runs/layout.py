"""The run folder's names and records: file naming, the manifest, identities, tolerant reads.

Shared by :mod:`workbench.runs.folder` (reader and writer); see its docstring for the layout.
Every ``read_*`` here returns None (or raises StoreError for the manifest) instead of failing
on a half-written or foreign file.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path, PurePath

from pydantic import BaseModel, Field, ValidationError

from workbench.errors import StoreError
from workbench.markdown.assemble import assemble_document
from workbench.runs.files import atomic_write
from workbench.schema import CoordSpace, DocumentInfo, PageResult, PageStatus, Region, RunInfo

MANIFEST = "manifest.json"
DOCUMENT_MD = "document.md"
_PAGE_JSON = re.compile(r"^page-(\d{4,})\.json$")
DOCUMENT_JSON = "document.json"


class PageEntry(BaseModel):
    """One finished page in the manifest."""

    document: str
    page: int
    status: PageStatus
    seconds: float = 0.0
    tokens: int = 0
    retries: int = 0
    error: str | None = None


class RunManifest(RunInfo):
    """``manifest.json``: the run's RunInfo plus per-page bookkeeping."""

    folders: dict[str, str] = Field(default_factory=dict)  # document name -> folder name
    pages: list[PageEntry] = Field(default_factory=list)
    updated: datetime | None = None
    finished: datetime | None = None


class Corrections(BaseModel):
    """``page-NNNN.corrected.json``: regions fixed by hand, in the same page_px space."""

    document: str
    page: int
    coordinate_space: CoordSpace = CoordSpace.PAGE_PX
    regions: list[Region] = Field(default_factory=list)
    saved: datetime = Field(default_factory=lambda: datetime.now(UTC))


def page_stem(page: int) -> str:
    return f"page-{page:04d}"


def read_manifest(run_dir: Path) -> RunManifest:
    path = run_dir / MANIFEST
    try:
        return RunManifest.model_validate_json(path.read_bytes())
    except FileNotFoundError:
        raise StoreError(f"{run_dir.name}: no {MANIFEST}; this folder is not a run.") from None
    except (ValidationError, ValueError, OSError) as exc:
        raise StoreError(f"{run_dir.name}: {MANIFEST} is unreadable ({exc}).") from exc


def file_stamp(path: Path) -> tuple[int, int, int] | None:
    """What tells one version of a file from another (inode, size, mtime); None when absent."""
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def merge_manifest(ours: RunManifest, disk: RunManifest, run_dir: Path) -> list[PageEntry]:
    """Take into ``ours`` what another writer put in ``disk``: documents (by content, else by
    name) and folders it lacks; returns the page entries it lacks whose page file is there
    (a page is finished iff its .json exists: an entry never outlives its file)."""
    known = {d.sha256 or d.name for d in ours.documents}
    ours.documents.extend(d for d in disk.documents if (d.sha256 or d.name) not in known)
    for doc, folder in disk.folders.items():
        ours.folders.setdefault(doc, folder)
    have = {(e.document, e.page) for e in ours.pages}
    return [
        e
        for e in disk.pages
        if (e.document, e.page) not in have
        and e.document in ours.folders
        and (run_dir / ours.folders[e.document] / f"{page_stem(e.page)}.json").exists()
    ]


def read_page(path: Path) -> PageResult | None:
    try:
        return PageResult.model_validate_json(path.read_bytes())
    except (OSError, ValidationError, ValueError):
        return None


def page_numbers(folder: Path) -> list[int]:
    if not folder.is_dir():
        return []
    return sorted(int(m.group(1)) for p in folder.iterdir() if (m := _PAGE_JSON.match(p.name)))


def stem_folder(name: str, taken: set[str]) -> str:
    stem = Path(name).stem or "document"
    stem = re.sub(r"[^\w.-]+", "_", stem).strip("._") or "document"
    folder, n = stem, 1
    while folder.lower() in {t.lower() for t in taken} or folder == MANIFEST:
        n += 1
        folder = f"{stem}-{n}"
    return folder


def read_identity(folder: Path) -> DocumentInfo | None:
    try:
        return DocumentInfo.model_validate_json((folder / DOCUMENT_JSON).read_bytes())
    except (OSError, ValidationError, ValueError):
        return None


def scan_documents(run_dir: Path) -> list[DocumentInfo]:
    """The documents whose identity (``document.json``) survives in their folders."""
    subs = sorted(p for p in run_dir.iterdir() if p.is_dir())
    return [doc for sub in subs if (doc := read_identity(sub)) is not None]


def unique_name(name: str, taken: set[str]) -> str:
    """``name``, or ``stem-2.ext``, ``stem-3.ext``... when it is taken."""
    if name not in taken:
        return name
    path = PurePath(name)
    n = 2
    while (candidate := f"{path.stem}-{n}{path.suffix}") in taken:
        n += 1
    return candidate


def scan_folders(run_dir: Path) -> dict[str, str]:
    """Rebuild the document -> folder map from page files (when the manifest is lost)."""
    found: dict[str, str] = {}
    for sub in sorted(p for p in run_dir.iterdir() if p.is_dir()):
        identity = read_identity(sub)
        if identity is not None:
            found.setdefault(identity.name, sub.name)
            continue
        for n in page_numbers(sub):
            page = read_page(sub / f"{page_stem(n)}.json")
            if page is not None:
                found.setdefault(page.document, sub.name)
                break
    return found


def save_corrections(
    run_dir: Path, folder: str, doc: str, page: int, regions: list[Region]
) -> Path:
    base = run_dir / folder / page_stem(page)
    if read_page(base.with_suffix(".json")) is None:
        raise StoreError(f"{doc} page {page}: no finished page to correct in {run_dir.name}.")
    record = Corrections(document=doc, page=page, regions=list(regions))
    path = base.with_name(f"{base.name}.corrected.json")
    atomic_write(path, record.model_dump_json(indent=1))
    return path


def join_markdown(pages: list[PageResult]) -> str:
    """The document Markdown, joined as everywhere else (``<!-- page N -->`` markers)."""
    return assemble_document((p.page, p.markdown) for p in sorted(pages, key=lambda p: p.page))
