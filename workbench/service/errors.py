"""The service's errors: every refusal is JSON ``{"error": {"code", "message"}}`` with a 4xx
status (503 when no engine can be had), ``code`` stable for programs, ``message`` a
sentence for people.

Codes (status): ``unauthorized`` (401), ``not_found`` / ``unknown_run`` / ``unknown_page``
(404), ``not_a_document`` / ``empty_file`` / ``damaged_document`` (415/422),
``encrypted_pdf`` (422: a password is needed or the one given is wrong), ``file_too_large``
and ``too_many_pages`` (413), ``no_files`` / ``bad_request`` / ``bad_page_range`` (400),
``folder_not_allowed`` (403), ``unknown_format`` (400), ``run_in_use`` /
``other_settings`` / ``no_original`` (409), ``invalid_request`` (422: a field of the request
fails its schema), ``engine_unavailable`` (503: a dead engine could not be rebuilt).
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException

from workbench.errors import DocumentError


class ErrorBody(BaseModel):
    code: str
    message: str


class ErrorResponse(BaseModel):
    """What every 4xx/5xx answer holds."""

    error: ErrorBody


class ApiError(Exception):
    """A refusal: its HTTP status, stable code and message."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


#: A DocumentError's reason (the core's words) -> the service's status and code; first match.
_DOCUMENT_CODES: tuple[tuple[str, int, str], ...] = (
    ("encrypted", 422, "encrypted_pdf"),
    ("larger than", 413, "file_too_large"),
    ("the file is empty", 422, "empty_file"),
    ("not a PDF or image", 415, "not_a_document"),
)


def document_error(exc: DocumentError, password_given: bool = False) -> ApiError:
    """The service's refusal of an input the core could not read (its message kept; an
    encrypted PDF sent without a password says where to send one)."""
    for words, status, code in _DOCUMENT_CODES:
        if words in exc.reason:
            asks = code == "encrypted_pdf" and not password_given
            hint = " (or send it in the 'password' field)" if asks else ""
            return ApiError(status, code, str(exc) + hint)
    return ApiError(422, "damaged_document", str(exc))


def _body(code: str, message: str) -> dict[str, Any]:
    return ErrorResponse(error=ErrorBody(code=code, message=message)).model_dump()


_HTTP_CODES = {401: "unauthorized", 404: "not_found", 405: "method_not_allowed"}


def install(app: FastAPI) -> None:
    """Every error the app answers with, as :class:`ErrorResponse` JSON."""

    @app.exception_handler(ApiError)
    async def _api(_request: Request, exc: ApiError) -> JSONResponse:
        headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else None
        return JSONResponse(_body(exc.code, exc.message), exc.status, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        parts = []
        for err in exc.errors():
            where = ".".join(str(p) for p in err.get("loc", ()) if p != "body")
            parts.append(f"{where}: {err.get('msg', 'invalid')}")
        return JSONResponse(_body("invalid_request", "; ".join(parts) or "invalid request"), 422)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if isinstance(exc.__cause__, ApiError):  # FastAPI wraps what stopped the body's parse
            return await _api(request, exc.__cause__)
        code = _HTTP_CODES.get(exc.status_code, "http_error")
        return JSONResponse(_body(code, str(exc.detail)), exc.status_code)
