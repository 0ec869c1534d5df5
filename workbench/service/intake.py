"""What a submission brings, checked before any run exists: uploaded files or a folder on
the server, each opened once for its facts (:func:`~workbench.documents.probe_input`, the
CLI's own check), its pages selected and counted against the service's limits.

Any bad input refuses the whole request with its :class:`~workbench.service.errors.ApiError`
(the run is never half-made); uploads are kept in a folder of their own until their run has
read them (:meth:`~workbench.service.jobs.RunManager.submit` removes it).
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePath

from fastapi import UploadFile
from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from workbench.cli.ocr.cmd import expand_inputs
from workbench.documents import DocumentSource, parse_page_range, probe_input
from workbench.errors import DocumentError, PageRangeError, display_name
from workbench.runs.store import RunStore
from workbench.service.errors import ApiError, ErrorBody, ErrorResponse, document_error
from workbench.settings import Settings

CHUNK = 1 << 20


@dataclass(frozen=True)
class Limits:
    """The service's limits: bytes one upload may hold, pages one document may have."""

    max_upload_bytes: int
    max_pages: int
    folder_roots: tuple[Path, ...] = ()  # folders on the server a client may name; none: off

    @classmethod
    def from_settings(cls, settings: Settings, roots: tuple[Path, ...] = ()) -> Limits:
        return cls(settings.max_file_mb * 1024 * 1024, settings.max_pages, roots)


#: Room in a request beside its files (multipart headers, form fields).
FORM_ROOM = 1 << 20


class BodyLimit:
    """ASGI middleware: a POST whose body would pass ``limit`` bytes is refused with 413
    ``file_too_large`` before it is stored: at once when its Content-Length says so, else
    (a chunked body) the moment the bytes received pass it. Without it the multipart parser
    would spool any size to disk before the endpoint could look."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    def _refusal(self) -> ApiError:
        mb = (self.limit - FORM_ROOM) // (1024 * 1024)
        return ApiError(
            413, "file_too_large", f"the upload is larger than {mb} MB (--max-upload-mb)"
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        length = dict(scope["headers"]).get(b"content-length", b"")
        if length.isdigit() and int(length) > self.limit:
            refusal = self._refusal()
            body = ErrorResponse(error=ErrorBody(code=refusal.code, message=refusal.message))
            await JSONResponse(body.model_dump(), 413)(scope, receive, send)
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise self._refusal()  # answered by the app's ApiError handler
            return message

        await self.app(scope, counted, send)


#: Longest name an upload keeps (bytes, UTF-8; file systems take 255), its suffix kept.
NAME_BYTES = 200


def _safe_name(name: str | None, index: int) -> str:
    """The upload's own file name, without any folder part (never a path on the server), no
    NUL, at most :data:`NAME_BYTES` long (its suffix kept)."""
    base = PurePath((name or "").replace("\\", "/").replace("\x00", "")).name.strip()
    if base in ("", ".", ".."):
        return f"upload-{index + 1}"
    stem, suffix = PurePath(base).stem, PurePath(base).suffix[:16]
    while len((stem + suffix).encode()) > NAME_BYTES:
        stem = stem[:-1]
    return stem + suffix


async def save_uploads(files: list[UploadFile], limits: Limits) -> tuple[Path, list[Path]]:
    """The uploads written into a new folder (names made unique), and their paths in the
    order sent; refused past the size limit (``file_too_large``) or with none (``no_files``)."""
    if not files:
        raise ApiError(400, "no_files", "no file was uploaded: send one or more 'files' parts")
    folder = Path(tempfile.mkdtemp(prefix="workbench-upload-"))
    try:
        used: set[str] = set()
        paths: list[Path] = []
        total = 0
        for index, upload in enumerate(files):
            name = _safe_name(upload.filename, index)
            stem, suffix = PurePath(name).stem, PurePath(name).suffix
            n = 2
            while name in used:
                name, n = f"{stem}-{n}{suffix}", n + 1
            used.add(name)
            paths.append(folder / name)
            with open(folder / name, "wb") as out:
                while chunk := await upload.read(CHUNK):
                    total += len(chunk)
                    if total > limits.max_upload_bytes:
                        raise ApiError(
                            413,
                            "file_too_large",
                            f"{display_name(name)}: the upload is larger than "
                            f"{limits.max_upload_bytes // (1024 * 1024)} MB (--max-upload-mb)",
                        )
                    out.write(chunk)
        return folder, paths
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise


def folder_inputs(path: str, limits: Limits) -> list[Path]:
    """The supported files directly inside ``path``, a folder under one of the roots the
    service was started with (``--folder-root``); refused otherwise."""
    if not limits.folder_roots:
        raise ApiError(
            403,
            "folder_not_allowed",
            "this service reads no folder on the server: start it with --folder-root DIR",
        )
    folder = Path(path).expanduser().resolve()
    if not any(folder.is_relative_to(root.resolve()) for root in limits.folder_roots):
        raise ApiError(
            403, "folder_not_allowed", f"{display_name(path)} is not under a --folder-root"
        )
    if not folder.is_dir():
        raise ApiError(404, "not_found", f"{display_name(path)}: no such folder on the server")
    files, _skipped = expand_inputs([folder])
    if not files:
        raise ApiError(400, "no_files", f"{display_name(path)} holds no PDF or image")
    return files


def check_documents(
    paths: list[Path],
    settings: Settings,
    limits: Limits,
    pages: str | None,
    password: str | None,
    store: RunStore | None = None,
) -> list[tuple[DocumentSource, list[int]]]:
    """Every input opened for its facts and its pages selected; the first bad one refuses
    the request. The same content twice is done once (as in the CLI). PDFs are kept in the
    store's originals (as the app keeps them: Compare reads their text layer)."""
    opened: list[tuple[DocumentSource, list[int]]] = []
    seen: set[str] = set()
    for path in paths:
        try:
            doc = probe_input(path, settings, password)
        except DocumentError as exc:
            raise document_error(exc, bool(password)) from None
        if doc.sha256 in seen:
            continue
        seen.add(doc.sha256)
        try:
            wanted = parse_page_range(pages, doc.page_count)
        except PageRangeError as exc:
            raise ApiError(400, "bad_page_range", f"{display_name(doc.name)}: {exc}") from None
        if len(wanted) > limits.max_pages:
            raise ApiError(
                413,
                "too_many_pages",
                f"{display_name(doc.name)}: {len(wanted)} pages asked for, more than the "
                f"{limits.max_pages} this service takes from one document (--max-pages); "
                "send a page range",
            )
        if store is not None and doc.kind == "pdf" and not password:
            store.keep_source(path.read_bytes(), doc.sha256)
        opened.append((doc, wanted))
    return opened
