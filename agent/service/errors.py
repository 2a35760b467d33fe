"""Every error the service answers is one line of JSON (``{"detail": ...}``; 422: a list of field errors):
the product's failures through the one table (``agent.entrypoints.errors.http_status``), auth, limits, and a
catch-all that never shows a traceback. Texts are redacted before they leave.
"""
from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from workload_diagnose import guardrails
from workload_diagnose.agent.model.errors import HANDLED, http_status
from workload_diagnose.agent.service.auth import ScopeDenied, Unauthenticated
from workload_diagnose.agent.service.limits import RETRY_AFTER_S
from workload_diagnose.agent.service.runner import Busy

log = logging.getLogger("workload_diagnose.service")


def one_line(text: object, limit: int = 500) -> str:
    line = " ".join(str(text).split())
    return guardrails.redact(line)[:limit]


def error(status: int, detail: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"detail": one_line(detail)}, status_code=status, headers=headers)


def status_and_detail(e: BaseException) -> tuple[int, str]:
    """The HTTP status and one-line detail of a mapped failure (also used for an SSE ``error`` event)."""
    if isinstance(e, ScopeDenied):
        return 403, str(e)
    if isinstance(e, Unauthenticated):
        return 401, str(e)
    if isinstance(e, Busy):
        return 429, "too many diagnoses at once: retry later"
    if isinstance(e, HANDLED):
        return http_status(e), str(e)
    return 500, f"internal error ({type(e).__name__})"


NOT_JSON = ("the request body must be JSON sent with the header Content-Type: application/json (curl: -H "
            "'Content-Type: application/json')")


def is_json(content_type: str | None) -> bool:
    """``application/json`` or ``application/<anything>+json`` (with any parameters)."""
    kind = (content_type or "").split(";", 1)[0].strip().lower()
    return kind == "application/json" or (kind.startswith("application/") and kind.endswith("+json"))


def _message(e: dict) -> str:
    """A field error's message in words (an unparsable body says where and why, not "JSON decode error")."""
    if e.get("type") == "json_invalid":
        why = str((e.get("ctx") or {}).get("error") or "invalid JSON")
        at = next((p for p in e.get("loc", ())[1:] if isinstance(p, int)), None)
        return f"the request body is not valid JSON: {why}" + (f" (at character {at})" if at is not None else "")
    return str(e.get("msg", "invalid")).removeprefix("Value error, ")


def install(app: FastAPI, metrics) -> None:
    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        errs = exc.errors()
        if not is_json(request.headers.get("content-type")) and any(tuple(e.get("loc", ())) == ("body",)
                                                                    and e.get("type") != "missing" for e in errs):
            # a body sent as a form or as text (curl -d without the header): the JSON body was never read
            metrics.rejected.labels(reason="media_type").inc()
            return error(415, NOT_JSON)
        metrics.rejected.labels(reason="invalid").inc()
        fields = [{"loc": [str(p) if not isinstance(p, int) else p for p in e.get("loc", ())],
                   "msg": one_line(_message(e), 300), "type": str(e.get("type", "value_error"))}
                  for e in errs]  # never the input echoed back
        return JSONResponse({"detail": fields}, status_code=422)

    @app.exception_handler(Unauthenticated)
    async def _unauthenticated(request: Request, exc: Unauthenticated) -> JSONResponse:
        metrics.rejected.labels(reason="unauthenticated").inc()
        return error(401, str(exc), {"WWW-Authenticate": "Bearer"})

    @app.exception_handler(Busy)
    async def _busy(request: Request, exc: Busy) -> JSONResponse:
        metrics.rejected.labels(reason="busy").inc()
        return error(429, status_and_detail(exc)[1], {"Retry-After": str(RETRY_AFTER_S)})

    for exc_type in HANDLED:
        @app.exception_handler(exc_type)
        async def _mapped(request: Request, exc: Exception) -> JSONResponse:
            if isinstance(exc, ScopeDenied):
                metrics.rejected.labels(reason="scope").inc()
            status, detail = status_and_detail(exc)
            return error(status, detail)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return error(exc.status_code, str(exc.detail), getattr(exc, "headers", None))

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.error("unexpected %s on %s %s: %s", type(exc).__name__, request.method, request.url.path,
                  one_line(exc, 200))
        return error(500, status_and_detail(exc)[1])
