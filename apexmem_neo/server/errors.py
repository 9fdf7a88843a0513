"""JSON errors of the REST server: every failure answers
``{"error": {"code": "...", "message": "one line"}}`` with the HTTP status its kind calls for.

The typed errors of ``apexmem_neo.errors`` map by class (``STATUS``, first match wins): bad
input 400, an unknown entity, session or job 404, a service the memory needs that is down or
missing 503. The server's own refusals (no key, another scope, too large) are ``ApiError``.
Anything else is a bug: 500, logged with its traceback, and its message is not shown.
"""

from __future__ import annotations

import logging
from typing import Final

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from neo4j.exceptions import ServiceUnavailable, SessionExpired
from pydantic import BaseModel
from starlette.exceptions import HTTPException

from apexmem_neo.errors import (
    AmbiguousEntityError,
    ApexMemError,
    EmbedderError,
    EmbedderMismatchError,
    LanguageModelError,
    NoLanguageModelError,
    NoSearchIndexError,
    NothingToForgetError,
    ServiceUnavailableError,
    StoreNotReadyError,
    ToolError,
    UnknownEntityError,
    UnknownSessionError,
    UnscopedIndexError,
)

logger = logging.getLogger(__name__)

STATUS: Final[tuple[tuple[type[BaseException], int, str], ...]] = (
    (AmbiguousEntityError, 400, "ambiguous_entity"),
    (UnknownEntityError, 404, "unknown_entity"),
    (UnknownSessionError, 404, "unknown_session"),
    (NothingToForgetError, 404, "nothing_to_forget"),
    (ToolError, 400, "query_refused"),
    (ServiceUnavailableError, 503, "service_unavailable"),
    (LanguageModelError, 503, "language_model_unavailable"),
    (NoLanguageModelError, 503, "no_language_model"),
    (NoSearchIndexError, 503, "no_search_index"),
    (EmbedderMismatchError, 503, "search_index_unusable"),
    (UnscopedIndexError, 503, "search_index_unusable"),
    (EmbedderError, 503, "embedder_unavailable"),
    (StoreNotReadyError, 503, "store_unavailable"),
    (ServiceUnavailable, 503, "store_unavailable"),
    (SessionExpired, 503, "store_unavailable"),
    (ValueError, 400, "bad_input"),
)
"""Typed errors by HTTP status and code; ``ValueError`` covers the input errors
(``InvalidInputError``, ``InvalidCursorError``, ``UnknownModeError``, ``EmptyQueryError``)."""
HTTP_CODES: Final = {401: "unauthorized", 403: "forbidden", 404: "not_found",
                     405: "method_not_allowed", 413: "too_large"}  # fmt: skip


class ApiError(ApexMemError):
    """A refusal of the server's own: ``status`` and ``code`` as the client gets them."""

    def __init__(self, status: int, code: str, message: str) -> None:
        self.status = status
        self.code = code
        super().__init__(message)


class ErrorBody(BaseModel):
    code: str
    message: str


class ErrorResponse(BaseModel):
    """What every failed request answers."""

    error: ErrorBody


def one_line(text: str) -> str:
    return " ".join(text.split())


def error_response(status: int, code: str, message: str) -> JSONResponse:
    body = ErrorResponse(error=ErrorBody(code=code, message=one_line(message)))
    return JSONResponse(body.model_dump(), status_code=status)


def classify(exc: BaseException) -> tuple[int, str, str]:
    """The status, code and message an error answers with."""
    if isinstance(exc, ApiError):
        return exc.status, exc.code, str(exc)
    for kind, status, code in STATUS:
        if isinstance(exc, kind):
            return status, code, str(exc) or type(exc).__name__
    logger.error("unexpected failure in a REST route", exc_info=exc)
    return 500, "internal", f"internal error ({type(exc).__name__}); see the server log"


def _validation_message(exc: RequestValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first.get("loc", ()) if p != "body")
    return f"{where}: {first.get('msg', 'invalid')}" if where else str(first.get("msg"))


def install_error_handlers(app: FastAPI) -> None:
    """Answer every failure of ``app`` with an ``ErrorResponse``."""

    async def on_validation(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        return error_response(400, "bad_input", _validation_message(exc))

    async def on_http(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, HTTPException)
        code = HTTP_CODES.get(exc.status_code, "http_error")
        return error_response(exc.status_code, code, str(exc.detail))

    async def on_error(request: Request, exc: Exception) -> JSONResponse:
        return error_response(*classify(exc))

    app.add_exception_handler(RequestValidationError, on_validation)
    app.add_exception_handler(HTTPException, on_http)
    for kind in (ApexMemError, ValueError, ServiceUnavailable, SessionExpired):
        app.add_exception_handler(kind, on_error)
    app.add_exception_handler(Exception, on_error)  # a bug: 500, and Starlette logs it
