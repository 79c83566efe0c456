"""The service's own errors, each owning its HTTP status, and the handlers that render them.

Every error body is JSON ``{"detail": "<human-readable text>"}``, whatever raised it: our errors,
FastAPI's request validation, Starlette's 404/405 for unknown routes, and (last resort) a bug.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.headers import SECURITY_HEADERS

log = logging.getLogger("judge.http")


class JudgeError(Exception):
    """Base of the errors a request can end with; ``status`` and ``detail`` make the response."""

    status: int = 500
    detail: str = "Internal server error."

    def __init__(self, detail: str | None = None, *, headers: Mapping[str, str] | None = None):
        if detail is not None:
            self.detail = detail
        self.headers: dict[str, str] = dict(headers or {})
        super().__init__(self.detail)


class BadRequest(JudgeError):
    status = 400
    detail = "Bad request."


class Forbidden(JudgeError):
    status = 403
    detail = "Forbidden."


class NotFound(JudgeError):
    status = 404
    detail = "Not found."


class PayloadTooLarge(JudgeError):
    status = 413
    detail = "Request body too large."


def code_bytes(code: str) -> int:
    """The size the code cap counts: UTF-8 bytes (a lone surrogate as the 3 bytes it would take,
    so no code slips under the cap by being unencodable)."""
    return len(code.encode("utf-8", "surrogatepass"))


def no_such_hint(n: int, total: int) -> str:
    """The 404 of a hint number outside 1..total."""
    return f"Hint {n} does not exist: this exercise has {total} hints."


def code_over_cap(size: int, cap: int, what: str = "The code") -> str:
    """The one wording of the code cap, for the API, the judge and the command line."""
    return f"{what} is {size} bytes; the limit is {cap} bytes."


class InvalidRequest(JudgeError):
    status = 422
    detail = "Malformed request."


class Saturated(JudgeError):
    """Every worker is busy and the queue is full: the client should retry after a pause."""

    status = 503
    detail = "The judge is busy; retry shortly."

    def __init__(self, detail: str | None = None, *, retry_after: int = 1):
        self.retry_after = max(1, int(retry_after))
        super().__init__(detail, headers={"Retry-After": str(self.retry_after)})


class UnsafeStart(RuntimeError):
    """A production start with a mandatory confinement layer missing (not an HTTP error)."""


# The JSON parser's words for a \uD800-\uDFFF escape without its other half, which read as if
# the escape were cut short ("unexpected end of hex escape") or name the wrong half.
_SURROGATE_WORDS = ("unexpected end of hex escape", "lone leading surrogate in hex escape")
_SURROGATE_TEXT = "an unpaired UTF-16 surrogate escape (\\ud800 to \\udfff) is not a character"


def describe_validation(errors: Iterable[Mapping[str, Any]], prefix: str = "") -> str:
    """Pydantic/FastAPI error dicts as one line, e.g. ``body.code: Field required``."""
    parts = []
    for error in errors:
        loc = [str(p) for p in error.get("loc", ())]
        if prefix and (not loc or loc[0] != prefix):
            loc.insert(0, prefix)
        where = ".".join(loc) or "request"
        message = str(error.get("msg", "invalid"))
        for words in _SURROGATE_WORDS:
            if error.get("type") == "json_invalid" and words in message:
                message = message.replace(words, _SURROGATE_TEXT)
        parts.append(f"{where}: {message}")
    return "; ".join(parts) or "Malformed request."


def error_response(
    status: int, detail: str, headers: Mapping[str, str] | None = None
) -> JSONResponse:
    """The one JSON error shape of the service."""
    return JSONResponse({"detail": detail}, status_code=status, headers=dict(headers or {}))


async def _judge_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, JudgeError)
    return error_response(exc.status, exc.detail, exc.headers)


async def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    return error_response(422, describe_validation(exc.errors()))


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    return error_response(exc.status_code, str(exc.detail), exc.headers)


async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    # Rendered outside every middleware (Starlette's outermost layer), so it sets its own headers.
    log.exception("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    headers = {**SECURITY_HEADERS, "Cache-Control": "no-store"}
    return error_response(500, JudgeError.detail, headers)


def install_error_handlers(app: FastAPI) -> None:
    """Render every error the app can raise as ``{"detail": ...}`` JSON with its status."""
    app.add_exception_handler(JudgeError, _judge_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(Exception, _unexpected)
