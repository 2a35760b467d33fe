"""One access-log line per request, on the ``workload_diagnose.access`` logger (stderr under ``serve``)::

    access method=POST path=/v1/diagnoses status=200 ms=412 token=ml-bot client=10.1.2.3

``token`` is who the service took the request to be: an API token's *name* (never its text or hash),
``passthrough`` (a caller's own Run:ai token, never shown), ``none`` (no auth configured), ``slack:NAME`` (a Slack
request read within API token NAME's scope), or ``-`` when the request carried no credential the service accepted.
``path`` is the request's path as sent (percent-encoded, no query string, at most 200 characters, redacted); every
value is one token without spaces or quotes, so the line is logfmt that log pipelines parse as is. A request the
server answered before the app saw it (a malformed request line, a slow client dropped) is not logged here.
``WD_ACCESS_LOG=off`` turns the lines off.
"""
from __future__ import annotations

import logging
import time
from typing import Any, Callable

from workload_diagnose import guardrails

log = logging.getLogger("workload_diagnose.access")
CALLER_KEY = "wd.caller"  # set in the request's state by whatever authenticated it (agent.service.app)
MAX_PATH = 200


def set_caller(scope: dict[str, Any], name: str) -> None:
    """Record who the request's caller is, for its access-log line."""
    scope.setdefault("state", {})[CALLER_KEY] = name


def _value(text: str) -> str:
    """A logfmt value: printable ASCII, no space, quote or backslash (anything else percent-encoded)."""
    return "".join(c if 0x21 <= ord(c) < 0x7f and c not in '"\\=' else f"%{ord(c):02X}" for c in text) or "-"


def _path(scope: dict[str, Any]) -> str:
    raw = scope.get("raw_path") or scope.get("path", "").encode("utf-8", "replace")
    text = raw.split(b"?", 1)[0].decode("latin-1")[:MAX_PATH]
    return _value(guardrails.redact(text))


class AccessLog:
    """ASGI middleware (outermost): times each HTTP request and logs its line when the response has started and
    the app has returned (a request the app did not answer is logged with status 500)."""

    def __init__(self, app: Callable, enabled: bool = True):
        self.app = app
        self.enabled = enabled

    async def __call__(self, scope: dict[str, Any], receive: Callable, send: Callable) -> None:
        if scope["type"] != "http" or not self.enabled:
            return await self.app(scope, receive, send)
        t0 = time.perf_counter()
        status = 500

        async def tracking_send(msg: dict) -> None:
            nonlocal status
            if msg["type"] == "http.response.start":
                status = int(msg["status"])
            await send(msg)

        try:
            await self.app(scope, receive, tracking_send)
        finally:
            ms = round((time.perf_counter() - t0) * 1000)
            caller = (scope.get("state") or {}).get(CALLER_KEY, "-")
            client = (scope.get("client") or ("-",))[0]
            log.info("access method=%s path=%s status=%d ms=%d token=%s client=%s", _value(scope.get("method", "-")),
                     _path(scope), status, ms, _value(str(caller)), _value(str(client)))


def configure(enabled: bool) -> None:
    """Send the access lines to stderr (once per process: ``serve``, each worker)."""
    if not enabled or any(getattr(h, "_wd_access", False) for h in log.handlers):
        return
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(message)s"))
    handler._wd_access = True  # type: ignore[attr-defined]
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    log.propagate = False
