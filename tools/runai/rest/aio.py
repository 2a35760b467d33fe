"""Run:ai requests made on an asyncio event loop (the service's worker loop), with reads started ahead.

:class:`LoopPool` is one ``httpx.AsyncHTTPTransport`` (one connection pool) on one running loop, for a process.
:meth:`LoopPool.reads` gives one diagnosis its :class:`LoopReads`: a synchronous httpx transport (what the REST
client sends through, under the read-only guard) whose every request runs on the loop; the diagnosis's thread
only waits for the answer. ``LoopReads.start(request)`` sends a request before the client asks for it: the
diagnosis starts at once the reads it is about to make (``RunaiClient.prefetch``), then makes them one after the
other as always, and each takes the answer already under way (matched on method, URL and credentials, used
once). So independent reads overlap on the loop with no thread per read, and every read still passes the same
wire: retries, the body cap, redaction and injection scan, its invocation in ``tool_calls``. Nothing is kept
past the diagnosis (:meth:`LoopReads.close` cancels what was not used).

The loop side reads a 2xx body up to one byte past the cap (never further) and hands the wire the decoded bytes;
the wire then applies the cap exactly as for a socket it reads itself. Each request is bounded on the loop by
the per-read total as well as by httpx's timeouts, and the waiting thread by the diagnosis's deadline.
"""
from __future__ import annotations

import asyncio
import threading
from concurrent.futures import Future, TimeoutError as FutureTimeout
from typing import Any

import httpx

__all__ = ["LoopPool", "LoopReads"]

GRACE_S = 0.25  # past the deadline, before a waiting thread gives up on its read
_DROPPED = ("content-encoding", "transfer-encoding")  # the body handed over is decoded and whole


class _Body(httpx.SyncByteStream):
    def __init__(self, chunks: list[bytes]):
        self._chunks = chunks

    def __iter__(self):
        yield from self._chunks


class LoopPool:
    """One async connection pool on ``loop`` (which must be running) for every diagnosis of the process."""

    def __init__(self, loop: asyncio.AbstractEventLoop, limits: httpx.Limits, *,
                 fallback: httpx.BaseTransport | None = None):
        self.loop = loop
        self.transport = httpx.AsyncHTTPTransport(retries=0, limits=limits)
        self._fallback = fallback  # a request made on the loop's own thread (it cannot wait for itself)

    def reads(self, *, max_body_bytes: int, read_total: float | None, deadline: Any = None) -> "LoopReads":
        return LoopReads(self, max_body_bytes=max_body_bytes, read_total=read_total, deadline=deadline)

    async def aclose(self) -> None:
        await self.transport.aclose()

    async def fetch(self, request: httpx.Request, cap: int, total: float | None) -> httpx.Response:
        """``request`` sent on the loop; a 2xx body read (decoded) to at most ``cap`` + 1 bytes."""
        async def go() -> httpx.Response:
            r = await self.transport.handle_async_request(request)
            r.request = request
            try:
                chunks: list[bytes] = []
                declared = r.headers.get("Content-Length", "")
                if 200 <= r.status_code < 300 and not (declared.isdigit() and int(declared) > cap):
                    size = 0
                    async for chunk in r.aiter_bytes():
                        chunks.append(chunk)
                        size += len(chunk)
                        if size > cap:
                            break  # the wire refuses it (TOO_LARGE): nothing past the cap is read
            finally:
                await r.aclose()
            headers = [(k, v) for k, v in r.headers.multi_items() if k.lower() not in _DROPPED]
            return httpx.Response(r.status_code, headers=headers, stream=_Body(chunks), request=request,
                                  extensions={"http_version": r.extensions.get("http_version", b"HTTP/1.1")})

        if total is None:
            return await go()
        try:
            return await asyncio.wait_for(go(), total)
        except asyncio.TimeoutError:
            raise httpx.ReadTimeout("the read took longer than its total bound", request=request) from None


class LoopReads(httpx.BaseTransport):
    """One diagnosis's transport: each request runs on the pool's loop; ``start`` sends one ahead of its use."""

    sends_ahead = True  # (what the REST client looks for)

    def __init__(self, pool: LoopPool, *, max_body_bytes: int, read_total: float | None, deadline: Any = None):
        self._pool = pool
        self._cap = max_body_bytes
        self._total = read_total
        self._deadline = deadline
        self._lock = threading.Lock()
        self._ahead: dict[tuple, tuple[Any, Future]] = {}  # request key → (its tag, its answer under way)
        self.started = 0  # requests started ahead
        self.used = 0  # … of which the client then made

    @staticmethod
    def _key(request: httpx.Request) -> tuple:
        return request.method, str(request.url), request.headers.get("Authorization")

    def _submit(self, request: httpx.Request) -> Future:
        return asyncio.run_coroutine_threadsafe(self._pool.fetch(request, self._cap, self._total), self._pool.loop)

    def start(self, request: httpx.Request, tag: Any = None) -> bool:
        """Send ``request`` now; the next identical request made through this transport takes its answer. An
        identical request already started and not yet taken is not sent again (False). ``tag``: what
        :meth:`unused` says of it."""
        key = self._key(request)
        with self._lock:
            if key in self._ahead:
                return False
            self._ahead[key] = (tag, self._submit(request))
            self.started += 1
        return True

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if _on_loop(self._pool.loop):
            if self._pool._fallback is None:
                raise RuntimeError("a Run:ai read was made on the event loop's own thread")
            return self._pool._fallback.handle_request(request)
        with self._lock:
            ahead = self._ahead.pop(self._key(request), None)
            fut = ahead[1] if ahead is not None else None
            if fut is not None:
                self.used += 1
        if fut is None:
            fut = self._submit(request)
        # the thread stops waiting a little after the deadline: whoever set it answers first (the service's 504),
        # then the thread's read ends as a timeout and frees its slot; the loop bounds the read by its total
        left = self._deadline.remaining() if self._deadline is not None else None
        try:
            return fut.result(None if left is None else left + GRACE_S)
        except FutureTimeout:
            fut.cancel()
            raise httpx.ReadTimeout("the diagnosis's deadline was reached", request=request) from None

    def unused(self) -> list[tuple[Any, int | None]]:
        """The requests started ahead that no read took (a speculative read the procedure did not make), in the
        order started: (tag, the HTTP status answered, None when no answer had come; it is not waited for).
        They are let go: never read further, never parsed."""
        with self._lock:
            left, self._ahead = self._ahead, {}
        out: list[tuple[Any, int | None]] = []
        for tag, fut in left.values():
            status = None
            if fut.done() and not fut.cancelled() and fut.exception() is None:
                status = fut.result().status_code
            fut.cancel()
            out.append((tag, status))
        return out

    def close(self) -> None:
        with self._lock:
            left, self._ahead = self._ahead, {}
        for _tag, fut in left.values():
            fut.cancel()


def _on_loop(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False
