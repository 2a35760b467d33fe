"""Run:ai requests made on an asyncio event loop (the service's worker loop), with reads started ahead.

:class:`LoopPool` is the async connections (``httpx.AsyncHTTPTransport``) on one running loop, for a process.
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

import httpcore
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
    """The async connections of every diagnosis of the process, on ``loop`` (which must be running): ``shards``
    connection pools (``limits`` split between them), a diagnosis reading through one of them.

    Why shards: httpcore's pool, on every request sent and every response closed, checks each of its connections
    (``has_expired``: a readability probe of the socket, costly on anyio streams) and, for each idle one, counts
    them all again: CPU that grows with the square of the open connections. Reads made at once by many diagnoses
    keep a hundred and more connections open; in pools of a few each, that cost is small (measured with py-spy:
    over half the service's CPU in ``_assign_requests_to_connections`` with one pool of ~130 connections, 7.5%
    with 16 pools, 5.6% with 64)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, limits: httpx.Limits, *,
                 fallback: httpx.BaseTransport | None = None, shards: int = 64, verify: Any = True):
        """``verify``: TLS verification as httpx takes it (True: certifi's bundle; an ``ssl.SSLContext``)."""
        self.loop = loop
        # (a shard has room for a few diagnoses reading at once: the diagnoses are spread over them in turn)
        each = httpx.Limits(max_connections=max(16, -(-(limits.max_connections or 64) // shards)),
                            max_keepalive_connections=max(1, -(-(limits.max_keepalive_connections or 32) // shards)),
                            keepalive_expiry=limits.keepalive_expiry)
        self.transports = [_transport(each, verify) for _ in range(shards)]
        self._next = 0
        self._fallback = fallback  # a request made on the loop's own thread (it cannot wait for itself)

    def reads(self, *, max_body_bytes: int, read_total: float | None, deadline: Any = None) -> "LoopReads":
        self._next = (i := self._next) + 1  # (a race between two threads only picks the same shard twice)
        return LoopReads(self, self.transports[i % len(self.transports)], max_body_bytes=max_body_bytes,
                         read_total=read_total, deadline=deadline)

    async def aclose(self) -> None:
        for t in self.transports:
            await t.aclose()

    @staticmethod
    async def fetch(transport: httpx.AsyncBaseTransport, request: httpx.Request, cap: int,
                    total: float | None) -> httpx.Response:
        """``request`` sent on the loop; a 2xx body read (decoded) to at most ``cap`` + 1 bytes."""
        async def go() -> httpx.Response:
            r = await transport.handle_async_request(request)
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


def _transport(limits: httpx.Limits, verify: Any = True) -> httpx.AsyncHTTPTransport:
    """httpx's async transport (its request/response mapping and TLS context) over a connection pool on
    :class:`_Asyncio` sockets."""
    t = httpx.AsyncHTTPTransport(retries=0, limits=limits, verify=verify)
    t._pool = httpcore.AsyncConnectionPool(  # httpx builds its pool without a way to pass the network backend
        ssl_context=t._pool._ssl_context, max_connections=limits.max_connections,
        max_keepalive_connections=limits.max_keepalive_connections, keepalive_expiry=limits.keepalive_expiry,
        http1=True, http2=False, retries=0, network_backend=_Asyncio())
    return t


class _Asyncio(httpcore.AsyncNetworkBackend):
    """httpcore's network on asyncio's own streams. Its default (anyio) answers the pool's readability probe of
    every connection, on every request, by building the socket's attribute table (``getpeername`` and all):
    measured at a fifth of the service's CPU; here it is two flags."""

    async def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                          socket_options: Any = None) -> httpcore.AsyncNetworkStream:
        try:
            async with asyncio.timeout(timeout):
                reader, writer = await asyncio.open_connection(
                    host, port, local_addr=(local_address, 0) if local_address else None)
        except TimeoutError:
            raise httpcore.ConnectTimeout(f"connecting to {host}:{port} timed out") from None
        except OSError as e:
            raise httpcore.ConnectError(str(e)) from e
        sock = writer.get_extra_info("socket")
        if sock is not None:
            import socket

            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            for opt in socket_options or ():
                sock.setsockopt(*opt)
        return _Stream(reader, writer)

    async def connect_unix_socket(self, path: str, timeout: float | None = None,
                                  socket_options: Any = None) -> httpcore.AsyncNetworkStream:  # pragma: no cover
        raise httpcore.ConnectError("unix sockets are not used")

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


class _Stream(httpcore.AsyncNetworkStream):
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self._r, self._w = reader, writer

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        try:
            async with asyncio.timeout(timeout):
                return await self._r.read(max_bytes)
        except TimeoutError:
            raise httpcore.ReadTimeout("the read timed out") from None
        except OSError as e:
            raise httpcore.ReadError(str(e)) from e

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if not buffer:
            return
        try:
            self._w.write(buffer)
            async with asyncio.timeout(timeout):
                await self._w.drain()
        except TimeoutError:
            raise httpcore.WriteTimeout("the write timed out") from None
        except OSError as e:
            raise httpcore.WriteError(str(e)) from e

    async def aclose(self) -> None:
        self._w.close()

    async def start_tls(self, ssl_context: Any, server_hostname: str | None = None,
                        timeout: float | None = None) -> httpcore.AsyncNetworkStream:
        import ssl

        try:
            async with asyncio.timeout(timeout):
                await self._w.start_tls(ssl_context, server_hostname=server_hostname)
        except TimeoutError:
            raise httpcore.ConnectTimeout("the TLS handshake timed out") from None
        except (OSError, ssl.SSLError) as e:
            raise httpcore.ConnectError(str(e)) from e
        return self

    def get_extra_info(self, info: str) -> Any:
        if info == "is_readable":  # an idle connection the server closed (or wrote to): not to be reused
            return self._r.at_eof() or self._w.transport.is_closing()
        if info in ("ssl_object", "socket"):
            return self._w.get_extra_info(info)
        if info == "client_addr":
            return self._w.get_extra_info("sockname")
        if info == "server_addr":
            return self._w.get_extra_info("peername")
        return None


class LoopReads(httpx.BaseTransport):
    """One diagnosis's transport: each request runs on the pool's loop; ``start`` sends one ahead of its use."""

    sends_ahead = True  # (what the REST client looks for)

    def __init__(self, pool: LoopPool, transport: httpx.AsyncBaseTransport, *, max_body_bytes: int,
                 read_total: float | None, deadline: Any = None):
        self._pool = pool
        self._transport = transport
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
        return asyncio.run_coroutine_threadsafe(self._pool.fetch(self._transport, request, self._cap, self._total),
                                                self._pool.loop)

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
