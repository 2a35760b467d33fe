"""One MCP ClientSession on a dedicated event-loop thread, called synchronously from any thread.

The official SDK is async; the graph calls its source from several threads at once. :class:`McpSession` runs one
``ClientSession`` in a long-lived task on its own loop and bridges each call with ``run_coroutine_threadsafe``.
Every call has its own bound (``timeout``) cut to what is left of the diagnosis's
:class:`tools.deadline.Deadline`, and no call (nor a connect) starts when less than :data:`MIN_CALL_SECONDS` is
left: a retry never outlives the diagnosis. A dropped session (the server process exited, the HTTP session is
gone) is reconnected once at most, after which every call fails with a stated ``UNREACHABLE`` error. Every
outgoing message passes the allow-list (:mod:`tools.runai.mcp.allow`) on the write stream, beneath the session.
"""
from __future__ import annotations

import asyncio
import logging
import threading
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import AbstractAsyncContextManager
from typing import Any, Callable

from workload_diagnose.tools.base import ErrorKind, ToolFailure
from workload_diagnose.tools.deadline import Deadline
from workload_diagnose.tools.runai.mcp.allow import check_call, check_message

__all__ = ["McpSession", "Connector", "GuardedWriteStream", "MIN_CALL_SECONDS"]

#: a call (or a connect) needs at least this much of the diagnosis's deadline left, or it is not started
MIN_CALL_SECONDS = 0.25
#: how much longer than its own bound the caller waits for the SDK to report a call's timeout
GRACE_SECONDS = 0.5

#: an async context manager factory yielding the transport's (read_stream, write_stream)
Connector = Callable[[], AbstractAsyncContextManager[tuple[Any, Any]]]


class GuardedWriteStream:
    """The transport's write stream behind the allow-list: a refused message raises and is never sent."""

    def __init__(self, inner: Any):
        self._inner = inner

    async def send(self, item: Any, /) -> None:
        check_message(getattr(item, "message", item))
        await self._inner.send(item)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def __aenter__(self):
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc):
        return await self._inner.__aexit__(*exc)


class _Dropped(Exception):
    pass


def _quiet_sdk_logs() -> None:
    """The SDK logs a server's garbage output with tracebacks; without a handler of the application's own,
    Python would print them on stderr. They stay available to an application that configures logging."""
    log = logging.getLogger("mcp")
    if not any(isinstance(h, logging.NullHandler) for h in log.handlers):
        log.addHandler(logging.NullHandler())


class McpSession:
    """A read-only MCP client session (see the module docstring). Thread-safe."""

    def __init__(self, connect: Connector, *, describe: str, timeout: float = 10.0, connect_timeout: float = 15.0,
                 reconnects: int = 1, deadline: Deadline | None = None):
        self._connect = connect
        self.describe = describe
        self.timeout = timeout
        self.connect_timeout = connect_timeout
        self.deadline = deadline or Deadline(None)
        self._reconnects_left = reconnects
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._session: Any = None
        self._holds: list[tuple[asyncio.Event, Any]] = []  # (stop event, task) of every connection made
        self._dead: str | None = None  # why the session is gone for good
        self.tools: dict[str, Any] = {}  # advertised name -> mcp Tool (from tools/list at connect)
        self.connects = 0
        self._closed = False

    # ------------------------------------------------------------------ loop thread
    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        if self._loop is None:
            loop = asyncio.new_event_loop()
            t = threading.Thread(target=loop.run_forever, name="runai-mcp-session", daemon=True)
            t.start()
            self._loop, self._thread = loop, t
        return self._loop

    async def _hold(self, ready: asyncio.Future) -> None:
        """Enter the transport and the session, publish them, and keep them open until stopped or dropped."""
        from mcp.client.session import ClientSession

        _quiet_sdk_logs()
        stop = self._holds[-1][0]
        s = None
        try:
            async with self._connect() as (read, write):
                async with ClientSession(read, GuardedWriteStream(write)) as s:
                    await s.initialize()
                    listed = await s.list_tools()
                    tools = {t.name: t for t in listed.tools}
                    cursor = getattr(listed, "next_cursor", None) or getattr(listed, "nextCursor", None)
                    for _ in range(20):  # a paginator that never ends cannot hang the connect
                        if not cursor:
                            break
                        from mcp.types import PaginatedRequestParams

                        more = await s.list_tools(params=PaginatedRequestParams(cursor=cursor))
                        tools.update({t.name: t for t in more.tools})
                        cursor = getattr(more, "next_cursor", None) or getattr(more, "nextCursor", None)
                    self._session, self.tools = s, tools
                    if not ready.done():
                        ready.set_result(None)
                    await stop.wait()
        except BaseException as e:  # noqa: BLE001 - any way the transport ends is a dropped session
            if not ready.done():
                ready.set_exception(e if isinstance(e, Exception) else _Dropped(type(e).__name__))
            if isinstance(e, (KeyboardInterrupt, SystemExit)):
                raise
        finally:
            if s is not None and self._session is s:
                self._session = None

    def _open(self) -> None:
        """Connect (under the lock). Raises ToolFailure(UNREACHABLE/TIMEOUT) when the server cannot be reached."""
        loop = self._ensure_loop()

        async def start() -> None:
            ready = loop.create_future()
            stop = asyncio.Event()
            self._holds.append((stop, None))
            task = loop.create_task(self._hold(ready))
            self._holds[-1] = (stop, task)
            await ready

        bound = self._bound(self.connect_timeout, f"the MCP server {self.describe}")
        fut = asyncio.run_coroutine_threadsafe(start(), loop)
        self.connects += 1
        try:
            fut.result(timeout=bound)
        except FutureTimeout:
            fut.cancel()
            if self.deadline.expired:
                raise ToolFailure(ErrorKind.TIMEOUT, self.deadline.stopped(
                    f"the MCP server {self.describe}")) from None
            raise ToolFailure(ErrorKind.TIMEOUT, f"the MCP server {self.describe} did not complete the handshake "
                                                 f"within {bound:g} s") from None
        except ToolFailure:
            raise
        except Exception as e:  # noqa: BLE001
            leaf = _leaf(e)
            status = getattr(leaf, "status_code", None) or getattr(getattr(leaf, "response", None), "status_code", None)
            why = f"HTTP {status}" if isinstance(status, int) else f"{type(leaf).__name__}: {_first_line(leaf)}"
            raise ToolFailure(ErrorKind.UNREACHABLE, f"cannot connect to the MCP server {self.describe} ({why})",
                              status if isinstance(status, int) else None) from None

    def _bound(self, own: float, what: str) -> float:
        """``own`` cut to what is left of the deadline; TIMEOUT (nothing sent) when too little is left."""
        left = self.deadline.remaining()
        if left is None:
            return own
        if left < MIN_CALL_SECONDS:
            raise _failure(ErrorKind.TIMEOUT, self.deadline.stopped(what), 0, deadline=True)
        return min(own, left)

    def connect(self) -> None:
        with self._lock:
            if self._closed:
                raise ToolFailure(ErrorKind.UNREACHABLE, "the MCP session is closed")
            if self._session is None and self._dead is None:
                self._open()

    # ------------------------------------------------------------------ calls
    def call(self, name: str, arguments: dict[str, Any]) -> tuple[Any, int]:
        """``tools/call name arguments`` → (CallToolResult, attempts). Raises McpCallRefused (allow-list, before
        anything is sent) or ToolFailure (TIMEOUT, UNREACHABLE for a dropped session)."""
        check_call(name, arguments)
        attempts = 0
        while True:
            self.connect()
            if self._dead is not None:
                raise ToolFailure(ErrorKind.UNREACHABLE, self._dead)
            session, loop = self._session, self._loop
            if session is None or loop is None:
                raise ToolFailure(ErrorKind.UNREACHABLE, self._dead or "the MCP session is not connected")
            try:
                bound = self._bound(self.timeout, f"tools/call {name}")
            except ToolFailure as f:
                f.attempts = attempts  # type: ignore[attr-defined]
                raise
            attempts += 1
            fut = asyncio.run_coroutine_threadsafe(
                session.call_tool(name, arguments, read_timeout_seconds=bound), loop)
            try:
                return fut.result(timeout=bound + GRACE_SECONDS), attempts
            except FutureTimeout:
                fut.cancel()
                raise self._timed_out(name, attempts) from None
            except Exception as e:  # noqa: BLE001 - classified below
                e = _leaf(e)
                if _is_timeout(e):
                    raise self._timed_out(name, attempts) from None
                if self._session is session and not _is_drop(e):
                    raise _failure(ErrorKind.OTHER, f"tools/call {name} failed: {type(e).__name__}: "
                                                    f"{_first_line(e)}", attempts) from None
                self._dropped(session, name, e)  # reconnects once at most, then the session is dead

    def _timed_out(self, name: str, attempts: int) -> ToolFailure:
        """A call without an answer in time: the diagnosis's deadline (as REST words it) or the call's own bound."""
        left = self.deadline.remaining()
        if left is not None and left < MIN_CALL_SECONDS:
            return _failure(ErrorKind.TIMEOUT, self.deadline.stopped(f"tools/call {name}"), attempts, deadline=True)
        return _failure(ErrorKind.TIMEOUT, f"tools/call {name} timed out (no answer by the deadline)", attempts)

    def _dropped(self, session: Any, name: str, e: BaseException) -> None:
        with self._lock:
            if self._session is not None and self._session is not session:
                return  # another thread already reconnected
            self._session = None
            if self._holds and self._loop is not None:  # let the dropped connection's task leave its contexts
                self._loop.call_soon_threadsafe(self._holds[-1][0].set)
            if self._reconnects_left <= 0:
                self._dead = (f"the MCP session with {self.describe} was dropped during tools/call {name} "
                              f"({type(e).__name__}) and the one reconnect was already used")
                return
            self._reconnects_left -= 1
            try:
                self._open()
            except ToolFailure as f:
                self._dead = f"the MCP session with {self.describe} was dropped and could not be re-established " \
                             f"({f.message})"

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            loop, holds = self._loop, list(self._holds)
        if loop is None:
            return

        async def join():
            for stop, _ in holds:
                stop.set()
            tasks = [t for _, t in holds if t is not None]
            if tasks:
                _, pending = await asyncio.wait(tasks, timeout=5.0)
                for t in pending:
                    t.cancel()
                if pending:
                    await asyncio.wait(pending, timeout=1.0)

        try:
            asyncio.run_coroutine_threadsafe(join(), loop).result(timeout=7.0)
        except Exception:  # noqa: BLE001 - closing is best effort
            pass
        loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(timeout=5.0)
        loop.close()


def _failure(kind: ErrorKind, message: str, attempts: int, *, deadline: bool = False) -> ToolFailure:
    """``deadline``: the diagnosis's deadline ended it (``stopped``), so no retry can be made."""
    f = ToolFailure(kind, message)
    f.attempts = attempts  # type: ignore[attr-defined]
    f.stopped = deadline  # type: ignore[attr-defined]
    return f


def _leaf(e: BaseException) -> BaseException:
    """The first real exception inside (nested) exception groups: what actually went wrong."""
    while isinstance(e, BaseExceptionGroup) and e.exceptions:
        e = e.exceptions[0]
    return e


def _first_line(e: BaseException) -> str:
    text = str(e) or type(e).__name__
    return text.splitlines()[0][:200] if text else ""


def _is_timeout(e: BaseException) -> bool:
    from mcp.shared.exceptions import MCPError

    if isinstance(e, (TimeoutError, asyncio.TimeoutError)):
        return True
    if isinstance(e, MCPError):
        code = getattr(getattr(e, "error", None), "code", None)
        return code == 408 or "timed out" in str(e).lower()
    return False


def _is_drop(e: BaseException) -> bool:
    import anyio
    from mcp.shared.exceptions import MCPError

    if isinstance(e, (anyio.ClosedResourceError, anyio.EndOfStream, anyio.BrokenResourceError, ConnectionError,
                      EOFError)):
        return True
    if isinstance(e, MCPError):
        text = str(e).lower()
        return "closed" in text or "connection" in text or "terminated" in text or "session" in text
    return False
