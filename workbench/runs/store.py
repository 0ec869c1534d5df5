"""The run store: every processing is a run folder under one root, kept until deleted.

The root defaults to ``Settings.store_dir`` (the user's data directory, or
``WORKBENCH_STORE_DIR``). Each run lives in ``<root>/<run id>/`` with the layout described in
:mod:`workbench.runs.folder` -- the same layout the CLI writes under ``--out DIR``. Run ids sort
by creation time: ``20260105-120102-<slug>-<4 hex>`` (UTC).

:meth:`RunStore.list` never raises for one bad run: a corrupt manifest or missing page files
show up as a row with ``status="corrupt"`` or a ``problem`` sentence.

Originals: ``<root>/.sources/<sha256>.pdf`` keeps the PDF a run was made from
(:meth:`RunStore.keep_source`), once per content whatever the number of its runs, outside every
run folder (the folders stay byte-identical, whoever wrote them). Compare reads the PDF's own
text layer from it as the reference text, with no upload. :meth:`RunStore.delete` removes the
originals no remaining run holds.
"""

from __future__ import annotations

import builtins
import contextlib
import hashlib
import re
import secrets
import shutil
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from workbench.errors import StoreError
from workbench.runs.folder import (
    Corrections,
    PageEntry,
    RunManifest,
    RunReader,
    RunWriter,
    StoredPage,
    atomic_write,
    page_stem,
)
from workbench.schema import Region, RunInfo
from workbench.settings import Settings

__all__ = [
    "Corrections",
    "PageEntry",
    "RunManifest",
    "RunReader",
    "RunStore",
    "RunSummary",
    "RunWriter",
    "StoredPage",
    "atomic_write",
    "new_run_id",
    "page_stem",
]

_SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
CORRUPT = "corrupt"
SOURCES = ".sources"  # the original PDFs, by content (dot folder: never listed as a run)


@dataclass(frozen=True)
class RunSummary:
    """One row of :meth:`RunStore.list`. ``status`` is a RunStatus value, or ``corrupt``."""

    id: str
    name: str
    path: Path
    created: datetime | None
    engine: str
    model: str
    documents: list[str]
    pages: int  # finished pages (page-NNNN.json files present)
    seconds_per_page: float | None
    status: str
    problem: str | None = None  # why the run is corrupt or incomplete, in words
    settings: dict[str, str] = field(default_factory=dict)  # the manifest's settings, as text


def new_run_id(name: str = "", when: datetime | None = None) -> str:
    """A sortable, filesystem-safe id: ``20260105-120102-<slug>-<4 hex>`` (UTC)."""
    stamp = (when or datetime.now(UTC)).astimezone(UTC).strftime("%Y%m%d-%H%M%S")
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:24].strip("-")
    return "-".join(p for p in (stamp, slug, secrets.token_hex(2)) if p)


def _count_pages(run_dir: Path, folders: list[str]) -> int:
    return sum(
        1
        for folder in folders
        if (run_dir / folder).is_dir()
        for p in (run_dir / folder).glob("page-*.json")
        if not p.name.endswith(".corrected.json")
    )


def summarize(run_dir: Path) -> RunSummary:
    """Describe one run folder without raising (a bad one gets ``status="corrupt"``)."""
    try:
        reader = RunReader(run_dir)
    except (StoreError, OSError) as exc:
        folders = [p.name for p in run_dir.iterdir() if p.is_dir()] if run_dir.is_dir() else []
        return RunSummary(
            id=run_dir.name,
            name=run_dir.name,
            path=run_dir,
            created=None,
            engine="?",
            model="?",
            documents=folders,
            pages=_count_pages(run_dir, folders),
            seconds_per_page=None,
            status=CORRUPT,
            problem=str(exc),
        )
    info = reader.info
    pages = _count_pages(run_dir, list(reader.folders.values()))
    entries = info.pages
    problem = None
    if len(entries) > pages:
        problem = f"{len(entries) - pages} page file(s) listed in the manifest are missing."
    seconds = [e.seconds for e in entries]
    return RunSummary(
        id=info.id,
        name=info.name,
        path=run_dir,
        created=info.created,
        engine=info.engine,
        model=info.model,
        documents=[d.name for d in info.documents] or reader.documents,
        pages=pages,
        seconds_per_page=sum(seconds) / len(seconds) if seconds else None,
        status=info.status.value,
        problem=problem,
        settings={k: str(v) for k, v in info.settings.items()},
    )


class RunStore:
    """Many runs under one root folder."""

    def __init__(self, root: Path | str | None = None) -> None:
        self.root = Path(root) if root is not None else Settings.from_env().store_dir

    def path(self, run_id: str) -> Path:
        if not _SAFE_ID.match(run_id) or run_id in {".", ".."}:
            raise StoreError(f"{run_id!r} is not a valid run id.")
        return self.root / run_id

    def create(self, info: RunInfo) -> RunWriter:
        """Start a new run; an empty ``info.id`` gets a fresh id from ``info.name``."""
        if not info.id:
            info = info.model_copy(update={"id": new_run_id(info.name)})
        path = self.path(info.id)
        if path.exists():
            raise StoreError(f"a run with id {info.id} already exists.")
        self.root.mkdir(parents=True, exist_ok=True)
        return RunWriter.create(path, info)

    def resume(self, run_id: str) -> RunWriter:
        return RunWriter.open(self._existing(run_id))

    def open(self, run_id: str) -> RunReader:
        return RunReader(self._existing(run_id))

    def list(self) -> list[RunSummary]:
        """Every run, newest first; never raises for one bad run."""
        if not self.root.is_dir():
            return []
        runs = [
            summarize(p) for p in self.root.iterdir() if p.is_dir() and not p.name.startswith(".")
        ]
        return sorted(runs, key=lambda r: r.id, reverse=True)

    def document_runs(self, sha256: str) -> builtins.list[RunReader]:
        """Readable runs that hold the document with this content, newest first (the Viewer
        goes on in a document's run instead of starting another)."""
        if not sha256 or not self.root.is_dir():
            return []
        found = []
        for path in sorted(self.root.iterdir(), reverse=True):
            if not path.is_dir() or path.name.startswith("."):
                continue
            try:
                reader = RunReader(path)
            except (StoreError, OSError):
                continue
            if any(d.sha256 == sha256 for d in reader.info.documents):
                found.append(reader)
        return found

    def find_by_name(self, name: str) -> builtins.list[RunSummary]:
        """Runs whose name (or id) is ``name``, newest first."""
        return [r for r in self.list() if name in (r.name, r.id)]

    def delete(self, run_id: str) -> None:
        """Remove the run's folder, and the originals (:meth:`keep_source`) no run holds now."""
        path = self._existing(run_id)
        if path.resolve().parent != self.root.resolve():
            raise StoreError(f"{run_id}: not inside the store at {self.root}.")
        shutil.rmtree(path)
        sources = self.root / SOURCES
        if not sources.is_dir():
            return
        held: set[str] = set()
        for run in self.root.iterdir():
            if run.is_dir() and not run.name.startswith("."):
                with contextlib.suppress(StoreError, OSError):
                    held.update(d.sha256 for d in RunReader(run).info.documents)
        for original in sources.glob("*.pdf"):
            if original.stem not in held:
                original.unlink(missing_ok=True)

    def keep_source(self, data: bytes, sha256: str) -> Path | None:
        """Keep the original PDF whose content hashes to ``sha256`` (once: a kept one is not
        written again); its path, or None when ``data`` is not a PDF or does not match."""
        if not _SHA256.match(sha256) or b"%PDF" not in data[:1024]:
            return None
        path = self.root / SOURCES / f"{sha256}.pdf"
        if path.is_file():
            return path
        if hashlib.sha256(data).hexdigest() != sha256:
            return None
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, data)
        return path

    def source(self, sha256: str) -> Path | None:
        """The original PDF kept for ``sha256`` (:meth:`keep_source`); None when none is kept:
        runs made before originals were kept, from images, or by the CLI outside the store."""
        if not _SHA256.match(sha256 or ""):
            return None
        path = self.root / SOURCES / f"{sha256}.pdf"
        return path if path.is_file() else None

    def save_corrections(
        self, run_id: str, doc: str, page: int, regions: builtins.list[Region]
    ) -> Path:
        """Keep hand-corrected regions beside the model's page; the model's .json is untouched."""
        return self.open(run_id).save_corrections(doc, page, regions)

    def load_corrections(self, run_id: str, doc: str, page: int) -> builtins.list[Region] | None:
        return self.open(run_id).load_corrections(doc, page)

    def _existing(self, run_id: str) -> Path:
        path = self.path(run_id)
        if not path.is_dir():
            raise StoreError(f"no run with id {run_id} in {self.root}.")
        return path
