"""The service's HTTP API (FastAPI): :func:`create_app` over a
:class:`~workbench.service.jobs.RunManager`. OpenAPI at ``/openapi.json``, its page at
``/docs``. Every ``/v1`` endpoint but ``/v1/health`` needs the key when one is set
(``Authorization: Bearer KEY`` or ``X-API-Key: KEY``). Errors: :mod:`workbench.service.errors`.

====================================================  ===========================================
``GET  /v1/health``                                   engine, model, version (no key needed)
``POST /v1/runs``                                     multipart ``files`` (+ ``pages``,
                                                      ``password``, ``name``, ``engine``): 202
                                                      and the run's progress; OCR in background
``POST /v1/runs/folder``                              JSON ``{"path", "pages", "name"}``: a
                                                      folder under a ``--folder-root``
``GET  /v1/runs``                                     every run in the store (the app's too)
``GET  /v1/runs/{id}``                                progress: status, pages done/failed
``GET  /v1/runs/{id}/events``                         the same as Server-Sent Events, to the end
``POST /v1/runs/{id}/retry``                          its failed and missing pages again, into
                                                      it (a partial or interrupted run): 202
``DELETE /v1/runs/{id}``                              stops it if running, removes it: 204
``GET  /v1/runs/{id}/documents/{doc}/markdown``       the document's Markdown
``GET  /v1/runs/{id}/documents/{doc}/pages/{n}/markdown``  a page's Markdown
``GET  /v1/runs/{id}/documents/{doc}/pages/{n}/regions``   a page's regions (JSON, page_px)
``GET  /v1/runs/{id}/export/{fmt}``                   md, json, html, zip, coco (``?document=``,
                                                      ``&page=``, ``&model_only=``)
``GET  /v1/engine/telemetry``                         vLLM's numbers (KV cache, queue, tokens/s,
                                                      cut-offs) and the GPUs' NVML readings
====================================================  ===========================================
"""

from __future__ import annotations

import asyncio
import secrets
import shutil
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, File, Form, Request, Response, UploadFile
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import PlainTextResponse
from fastapi.sse import EventSourceResponse, ServerSentEvent
from pydantic import BaseModel

from workbench import __version__
from workbench.errors import StoreError, display_name
from workbench.runs.lock import check_free
from workbench.runs.store import RunStore
from workbench.service import errors, results
from workbench.service.errors import ApiError, ErrorResponse
from workbench.service.intake import (
    FORM_ROOM,
    BodyLimit,
    Limits,
    check_documents,
    folder_inputs,
    save_uploads,
)
from workbench.service.jobs import RunManager, RunProgress, shown_status
from workbench.service.telemetry import EngineTelemetry

#: How often a stream looks for news (a snapshot is sent only when the run changed).
STREAM_TICK_S = 0.2
ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorResponse} for code in (400, 401, 403, 404, 409, 413, 415, 422, 503)
}


class Health(BaseModel):
    status: str
    engine: str
    model: str
    engine_kind: str
    version: str


class FolderRequest(BaseModel):
    path: str  # a folder on the server, under one of the service's --folder-root
    pages: str | None = None  # page range such as 1,3-5 for every document (default: all)
    name: str | None = None


class RunRow(BaseModel):
    id: str
    name: str
    status: str
    engine: str
    model: str
    documents: list[str]
    pages: int
    created: str | None
    source: str | None


def _key_checker(key: str | None) -> Any:
    def check(request: Request) -> None:
        if not key:
            return
        auth = request.headers.get("authorization", "")
        given = auth[7:].strip() if auth.lower().startswith("bearer ") else None
        given = given or request.headers.get("x-api-key")
        if not given or not secrets.compare_digest(given.encode(), key.encode()):
            raise ApiError(
                401,
                "unauthorized",
                "this service needs its key: send 'Authorization: Bearer KEY' or 'X-API-Key: KEY'",
            )

    return check


def create_app(
    manager: RunManager, limits: Limits, *, key: str | None = None, engine_kind: str = "cpu"
) -> FastAPI:
    """The app: endpoints in the module docstring, on ``manager``'s engine and store."""
    app = FastAPI(
        title="OCR Workbench service",
        version=__version__,
        description="OCR PDFs and images into the workbench's run store; follow runs; fetch "
        "Markdown, regions and exports. Guide: docs/service.md.",
    )
    errors.install(app)
    app.add_middleware(BodyLimit, limit=limits.max_upload_bytes + FORM_ROOM)
    open_v1 = APIRouter(prefix="/v1")
    v1 = APIRouter(prefix="/v1", dependencies=[Depends(_key_checker(key))], responses=ERRORS)
    _engine_routes(open_v1, v1, manager, engine_kind)
    _submit_routes(v1, manager, limits, engine_kind)
    _run_routes(v1, manager)
    _result_routes(v1, manager.store)
    app.include_router(open_v1)
    app.include_router(v1)
    return app


def _engine_routes(open_v1: APIRouter, v1: APIRouter, manager: RunManager, kind: str) -> None:
    @open_v1.get("/health", response_model=Health)
    def health() -> Health:
        engine = manager.engine
        return Health(
            status="ok", engine=engine.name, model=engine.model, engine_kind=kind,
            version=__version__,
        )  # fmt: skip

    readings = EngineTelemetry(lambda: manager.engine)

    @v1.get("/engine/telemetry")
    def telemetry() -> dict[str, Any]:
        """vLLM's own numbers (``vllm``, None for the CPU engine) and the GPUs' NVML readings."""
        return readings.read()


def _submit_routes(v1: APIRouter, manager: RunManager, limits: Limits, kind: str) -> None:
    store = manager.store

    def _check_engine(asked: str | None) -> None:
        engine = manager.engine
        if asked and asked not in (kind, engine.name):
            raise ApiError(
                400,
                "bad_engine",
                f"this service runs the {kind} engine ({engine.name}, {engine.model}), "
                f"not {asked!r}; start another service for it",
            )

    @v1.post("/runs", status_code=202, response_model=RunProgress)
    async def submit_files(
        files: Annotated[list[UploadFile] | None, File(description="PDFs or images")] = None,
        pages: Annotated[str | None, Form(description="page range such as 1,3-5")] = None,
        password: Annotated[str | None, Form(description="opens encrypted PDFs")] = None,
        name: Annotated[str | None, Form(description="the run's name")] = None,
        engine: Annotated[str | None, Form(description="must name this service's engine")] = None,
    ) -> RunProgress:
        _check_engine(engine)
        folder, paths = await save_uploads(files or [], limits)
        try:
            docs = await run_in_threadpool(
                check_documents, paths, manager.settings, limits, pages, password, store
            )
            first = paths[0].name if len(paths) == 1 else f"{len(paths)} files"
            run_name = display_name(name or first)
            return await run_in_threadpool(manager.submit, docs, run_name, folder, pages)
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise

    @v1.post("/runs/folder", status_code=202, response_model=RunProgress)
    async def submit_folder(request: FolderRequest) -> RunProgress:
        paths = folder_inputs(request.path, limits)
        docs = await run_in_threadpool(
            check_documents, paths, manager.settings, limits, request.pages, None, store
        )
        run_name = display_name(request.name or Path(request.path).name)
        return await run_in_threadpool(manager.submit, docs, run_name, None, request.pages)


async def _follow(
    manager: RunManager,
    run_id: str,
    progress: RunProgress,
    look: Callable[[str], RunProgress],
) -> AsyncIterator[ServerSentEvent]:
    """The events of ``run_id`` from ``progress`` on (``run_events`` says which); ``look``
    reads the run again every :data:`STREAM_TICK_S` and raises :class:`ApiError` once it
    is gone."""
    seen, pages = -1, 0
    while True:
        for page in manager.pages_since(run_id, pages):
            pages += 1
            yield ServerSentEvent(event="page", data=page)
        if progress.version != seen:
            seen = progress.version
            yield ServerSentEvent(event="progress", data=progress.model_dump(mode="json"))
        if progress.finished:
            yield ServerSentEvent(event="end", data=progress.model_dump(mode="json"))
            return
        await asyncio.sleep(STREAM_TICK_S)
        try:
            progress = look(run_id)
        except ApiError as exc:  # deleted while followed: said, then the stream ends
            yield ServerSentEvent(event="error", data={"code": exc.code, "message": exc.message})
            return


def _run_routes(v1: APIRouter, manager: RunManager) -> None:
    store = manager.store

    @v1.get("/runs", response_model=list[RunRow])
    def list_runs() -> list[RunRow]:
        return [
            RunRow(
                id=r.id,
                name=r.name,
                status=shown_status(r),
                engine=r.engine,
                model=r.model,
                documents=r.documents,
                pages=r.pages,
                created=r.created.isoformat() if r.created else None,
                source=r.settings.get("source"),
            )
            for r in store.list()
        ]

    def _progress(run_id: str) -> RunProgress:
        try:
            progress = manager.progress(run_id)
        except StoreError as exc:
            raise ApiError(404, "unknown_run", str(exc)) from None
        if progress is None:
            raise ApiError(404, "unknown_run", f"no run with id {run_id} in the store")
        return progress

    @v1.get("/runs/{run_id}", response_model=RunProgress)
    def run_progress(run_id: str) -> RunProgress:
        return _progress(run_id)

    @v1.get("/runs/{run_id}/events", response_class=EventSourceResponse)
    async def run_events(
        run_id: str,
        progress: RunProgress = Depends(_progress),  # noqa: B008 - a local: no Annotated
    ) -> AsyncIterator[ServerSentEvent]:
        """``page`` events (``{"document", "page", "status"}``, one per page as it finished,
        none coalesced), ``progress`` events (a :class:`RunProgress` each, when it changed),
        then ``end`` (or ``error`` with a code, when the run is deleted while followed). An
        unknown run is a 404 before the stream starts (a dependency: looked up before the
        headers go)."""
        async for event in _follow(manager, run_id, progress, _progress):
            yield event

    @v1.post("/runs/{run_id}/retry", status_code=202, response_model=RunProgress)
    async def retry_run(run_id: str) -> RunProgress:
        """Process the run's failed and missing pages again, into the same run (a run that
        ended ``partial`` or ``cancelled``, or is ``interrupted``: its service was killed),
        from the originals the store keeps; the pages done are kept. 409 while it is being
        written, or when it was made with other engine settings than this service's."""
        results.open_run(store, run_id)
        return await run_in_threadpool(manager.retry, run_id)

    @v1.delete("/runs/{run_id}", status_code=204)
    async def delete_run(run_id: str) -> Response:
        results.open_run(store, run_id)
        if manager.running(run_id):
            await run_in_threadpool(manager.cancel, run_id)
        try:
            check_free(store.path(run_id))  # the app (another process) writing it
            await run_in_threadpool(store.delete, run_id)
        except StoreError as exc:
            raise ApiError(409, "run_in_use", str(exc)) from None
        manager.forget(run_id)
        return Response(status_code=204)


def _result_routes(v1: APIRouter, store: RunStore) -> None:
    doc_path = "/runs/{run_id}/documents/{document}"

    @v1.get(f"{doc_path}/markdown", response_class=PlainTextResponse)
    def document_markdown(run_id: str, document: str) -> PlainTextResponse:
        reader = results.open_run(store, run_id)
        text = results.document_markdown(reader, document)
        return PlainTextResponse(text, media_type="text/markdown; charset=utf-8")

    @v1.get(f"{doc_path}/pages/{{page}}/markdown", response_class=PlainTextResponse)
    def page_markdown(run_id: str, document: str, page: int) -> PlainTextResponse:
        reader = results.open_run(store, run_id)
        text = results.page_markdown(reader, document, page)
        return PlainTextResponse(text, media_type="text/markdown; charset=utf-8")

    @v1.get(f"{doc_path}/pages/{{page}}/regions")
    def page_regions(run_id: str, document: str, page: int) -> dict[str, Any]:
        return results.page_regions(results.open_run(store, run_id), document, page)

    @v1.get("/runs/{run_id}/export/{fmt}")
    def export(
        run_id: str,
        fmt: str,
        document: str | None = None,
        page: int | None = None,
        model_only: bool = False,
    ) -> Response:
        """One of ``md``, ``json``, ``html``, ``zip``, ``coco``: the run, a document, a page."""
        reader = results.open_run(store, run_id)
        made = results.export(reader, fmt, document, page, model_only)
        disposition = f'attachment; filename="{made.file_name}"'
        return Response(
            made.build(), media_type=made.mime, headers={"Content-Disposition": disposition}
        )
