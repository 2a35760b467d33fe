"""What one caller can make the service do: request body size (413) and time (408), concurrent diagnoses (429).

All are decided before a diagnosis starts, so a rejected request makes no Run:ai read.
"""
from __future__ import annotations

import asyncio
import json
import threading
from typing import Any, Awaitable, Callable

MAX_BODY_BYTES = 64 * 1024
# paths whose bodies may be larger: an Alertmanager group of alerts with their annotations (routes/alertmanager.py)
LARGER_BODIES = {"/v1/alertmanager": 1024 * 1024}
RETRY_AFTER_S = 1

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict]]
Send = Callable[[dict], Awaitable[None]]


class _TooLarge(BaseException):
    """Raised from ``receive``: a BaseException, so the framework's body parser (which turns any Exception into
    a 400) lets it through to this middleware."""


class _TooSlow(BaseException):
    """Raised from ``receive`` when the body stops arriving (a BaseException, as :class:`_TooLarge`)."""


class BodySizeLimit:
    """ASGI middleware: a body over ``limit`` bytes is answered 413 (by its Content-Length before it is read, or
    as soon as the streamed body passes the limit), never handed to the app; a body that has not all arrived
    ``timeout_s`` after the app first asks for it is answered 408 (a client that sends headers and then holds
    its body back would keep a request, and a connection the worker cannot close for another, for ever)."""

    def __init__(self, app: Callable, limit: int = MAX_BODY_BYTES, on_reject: Callable[[str], None] | None = None,
                 timeout_s: float | None = None, larger: dict[str, int] | None = None):
        self.app = app
        self.default = limit
        self.larger = larger or {}
        self.on_reject = on_reject
        self.timeout_s = timeout_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        limit = self.larger.get(scope.get("path", ""), self.default)
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None:
            try:
                too_big = int(declared) > limit
            except ValueError:
                too_big = False  # the server rejects a malformed Content-Length itself
            if too_big:
                return await self._reject(send, limit)
        seen = 0
        started = False
        loop = asyncio.get_running_loop()
        body_by: float | None = None  # when the whole body must have arrived
        body_done = False

        async def limited_receive() -> dict:
            nonlocal seen, body_by, body_done
            if body_done or self.timeout_s is None:  # after the body: the app waits for a disconnect, unbounded
                msg = await receive()
            else:
                body_by = body_by or loop.time() + self.timeout_s
                try:
                    msg = await asyncio.wait_for(receive(), max(0.0, body_by - loop.time()))
                except asyncio.TimeoutError:
                    raise _TooSlow() from None
            if msg["type"] == "http.request":
                seen += len(msg.get("body") or b"")
                if seen > limit:
                    raise _TooLarge()
                body_done = body_done or not msg.get("more_body", False)
            else:
                body_done = True
            return msg

        async def tracking_send(msg: dict) -> None:
            nonlocal started
            if msg["type"] == "http.response.start":
                started = True
            await send(msg)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except _TooLarge:
            if not started:
                await self._reject(send, limit)
        except _TooSlow:
            if not started:
                await self._reject(send, limit, 408, "body_too_slow", f"the request body did not arrive within "
                                                               f"{self.timeout_s:g} s")

    async def _reject(self, send: Send, limit: int, status: int = 413, reason: str = "body_too_large",
                      detail: str | None = None) -> None:
        if self.on_reject:
            self.on_reject(reason)
        detail = detail or f"the request body is larger than {limit // 1024} KiB"
        body = json.dumps({"detail": detail}).encode()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})


class ConcurrencyLimiter:
    """At most ``limit`` diagnoses at once in this process. ``try_acquire`` never waits: a full limiter is a 429
    with ``Retry-After``. A slot is released when its diagnosis has really finished (not when the caller gave
    up), so the thread pool never holds more than ``limit`` diagnoses."""

    def __init__(self, limit: int):
        self.limit = limit
        self._in_use = 0
        self._lock = threading.Lock()

    def try_acquire(self) -> bool:
        with self._lock:
            if self._in_use >= self.limit:
                return False
            self._in_use += 1
            return True

    def release(self) -> None:
        with self._lock:
            self._in_use = max(0, self._in_use - 1)

    @property
    def in_use(self) -> int:
        return self._in_use
