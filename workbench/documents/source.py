"""An input file known by its facts, opened only when its pages' turn comes (issue 31.5).

A run of many inputs used to hold every input's bytes (and PDF handle) from start to end: 60
files of 8 MB kept 555 MB resident. A :class:`DocumentSource` keeps only what planning needs
(name, sha256, kind, page count); :meth:`DocumentSource.open` reads the file again when the
page feed (:func:`workbench.pipeline.feed.prepare_plans`) reaches it, and the feed closes it
once its last page is consumed, so a run holds about as many inputs as it prepares pages of.

Contract
--------
* :func:`probe_input` reads and opens the file once (every check of :func:`read_input` and
  :func:`open_document`: a bad input is a DocumentError naming it, at once), keeps its facts
  and lets the bytes go.
* :meth:`DocumentSource.open` reads it again; a file whose content changed since (its sha256
  differs) is a DocumentError: its pages fail, named, and the rest of the run goes on.
* It answers what a plan asks of a :class:`~workbench.documents.files.Document`: ``name``,
  ``sha256``, ``kind``, ``page_count``, ``settings``, :meth:`info`, :meth:`select`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from workbench.documents.files import Document, open_document, parse_page_range, read_input
from workbench.documents.unlock import unlock_pdf
from workbench.errors import DocumentError
from workbench.schema import DocumentInfo
from workbench.settings import Settings


@dataclass(frozen=True)
class DocumentSource:
    """An input file by its facts; :meth:`open` gives the Document when it is needed."""

    path: Path
    name: str
    sha256: str
    kind: str
    page_count: int
    settings: Settings = field(default_factory=Settings, repr=False)
    password: str | None = field(default=None, repr=False)  # an encrypted PDF's (never stored)

    def info(self) -> DocumentInfo:
        return DocumentInfo(
            name=self.name, sha256=self.sha256, kind=self.kind, pages=self.page_count
        )

    def select(self, spec: str | None = None) -> list[int]:
        """Page numbers for a range spec, capped at ``settings.max_pages`` (as a Document)."""
        return parse_page_range(spec, self.page_count)[: self.settings.max_pages]

    def open(self) -> Document:
        """The document, read from its file now; the caller closes it."""
        sha, data = _read(self.path, self.settings, self.password)
        if sha != self.sha256:
            raise DocumentError(self.name, "the file changed while the run went on; run again")
        return open_document(self.path.name, data, self.settings)


#: What a run plan holds: an open document (the app), or a source opened at its turn (the CLI).
AnyDocument = Document | DocumentSource


def _read(path: Path, settings: Settings, password: str | None) -> tuple[str, bytes]:
    """The file's sha256 and its bytes to open (an encrypted PDF unlocked with ``password``:
    a plain copy, whose bytes differ at each unlocking; the document is known by its file)."""
    raw = read_input(path, settings)  # refuses FIFOs/devices without blocking
    sha = hashlib.sha256(raw).hexdigest()
    return sha, (unlock_pdf(path.name, raw, password) if password else raw)


def probe_input(path: Path, settings: Settings, password: str | None = None) -> DocumentSource:
    """Read and open ``path`` once for its facts (a DocumentError when it cannot be read);
    ``password`` opens an encrypted PDF (:func:`~workbench.documents.unlock.unlock_pdf`)."""
    sha, data = _read(path, settings, password)
    doc = open_document(path.name, data, settings)
    try:
        return DocumentSource(
            path,
            doc.name,
            sha,
            doc.kind,
            doc.page_count,
            settings,
            password,
        )
    finally:
        doc.close()
