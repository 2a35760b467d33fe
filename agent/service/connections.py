"""How long and how many connections one worker holds: slow or idle clients cannot exhaust it.

uvicorn bounds an idle keep-alive connection (``timeout_keep_alive``) and the size of a request head (h11's
incomplete-event limit, 16 KiB), but not the time a client may take to send its request line and headers, nor the
number of open connections (``limit_concurrency`` answers 503 to every request once that many are open, ``/healthz``
included: what a flood of slow clients would cause). So each connection of :class:`GuardedH11` (uvicorn's h11
protocol) must send a complete request head within ``header_timeout_s`` of starting one (a fresh connection, or
the first byte of its next request) or is closed, and a worker holds at most ``max_connections``: one more closes
the connection that has been waiting for a request head (or idle) longest, so a new caller, a probe, is answered
while slow clients wait their turn to be dropped. The open-file limit is raised to its hard limit (at most
``MAX_OPEN_FILES``), the connection cap kept to half of it and the accept batch to an eighth, so accepting does
not run out of descriptors.
"""
from __future__ import annotations

import asyncio
import errno
import functools
import logging
import time
from dataclasses import dataclass
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger("workload_diagnose.service")
MAX_OPEN_FILES = 65536


@dataclass(frozen=True)
class ConnectionLimits:
    header_timeout_s: float = 10.0
    keepalive_s: float = 5.0
    max_connections: int = 1000
    backlog: int = 2048  # the listen queue, also how many connections asyncio accepts in one go


def open_files() -> int:
    """Raise this process's soft open-file limit to its hard limit (at most ``MAX_OPEN_FILES``); the soft limit."""
    try:
        import resource
    except ImportError:  # not POSIX
        return MAX_OPEN_FILES
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = MAX_OPEN_FILES if hard == resource.RLIM_INFINITY else min(hard, MAX_OPEN_FILES)
    if soft != resource.RLIM_INFINITY and soft < want:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
            soft = want
        except (ValueError, OSError):
            pass
    return MAX_OPEN_FILES if soft == resource.RLIM_INFINITY else soft


def limits_for(config: Any) -> ConnectionLimits:
    """The limits of a :class:`agent.service.config.ServiceConfig` within the open files: connections at most half
    of them, one accept batch (the backlog) an eighth, so that the connections held, a batch just accepted and
    the ones being closed to make room for it stay below the limit with room for the rest of the process."""
    files = open_files()
    return ConnectionLimits(header_timeout_s=config.header_timeout_s, keepalive_s=config.keepalive_s,
                            max_connections=max(1, min(config.max_connections, files // 2)),
                            backlog=max(16, min(ConnectionLimits.backlog, files // 8)))


@functools.cache
def _env_limits() -> ConnectionLimits:
    """The limits from the environment: a worker that uvicorn started with this protocol but no limits."""
    from workload_diagnose.agent.service.config import ServiceConfig

    return limits_for(ServiceConfig.from_env())


def server_config(app: Any, limits: ConnectionLimits, **options: Any) -> Any:
    """A ``uvicorn.Config`` serving ``app`` with :class:`GuardedH11` under ``limits``."""
    import uvicorn

    options.setdefault("backlog", limits.backlog)
    config = uvicorn.Config(app, http=GuardedH11, timeout_keep_alive=limits.keepalive_s,  # type: ignore[arg-type]
                            **options)
    config.connection_limits = limits  # type: ignore[attr-defined]  (read by GuardedH11)
    return config


class GuardedH11(H11Protocol):
    """uvicorn's h11 protocol with a request-head deadline and the worker's connection cap (module docstring)."""

    def __init__(self, config: Any, server_state: Any, app_state: dict[str, Any], _loop: Any = None) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.limits: ConnectionLimits = getattr(config, "connection_limits", None) or _env_limits()
        self._head_timer: asyncio.TimerHandle | None = None
        self._waiting_since = time.monotonic()

    def _waiting(self) -> bool:
        """No request in progress: reading a request head, or idle between requests."""
        return self.cycle is None or self.cycle.response_complete

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > self.limits.max_connections:
            self._make_room()
        if not transport.is_closing():
            self._arm()

    def _make_room(self) -> None:
        waiting = [c for c in self.connections if c is not self and isinstance(c, GuardedH11) and c._waiting()
                   and c.transport is not None and not c.transport.is_closing()]
        if waiting:
            min(waiting, key=lambda c: c._waiting_since).transport.close()
        else:  # every connection is serving a request: this one waits for none of them
            self.transport.close()

    def _arm(self) -> None:
        if self._head_timer is None:
            self._waiting_since = time.monotonic()
            self._head_timer = self.loop.call_later(self.limits.header_timeout_s, self._head_timeout)

    def _disarm(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_timeout(self) -> None:
        self._head_timer = None
        if self._waiting() and not self.transport.is_closing():
            self.transport.close()

    def data_received(self, data: bytes) -> None:
        if self._waiting():
            self._arm()  # a request starts: its head has header_timeout_s from now, however it trickles in
        super().data_received(data)
        if not self._waiting():
            self._disarm()

    def on_response_complete(self) -> None:
        self._waiting_since = time.monotonic()
        super().on_response_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)


def quiet_descriptor_exhaustion(loop: asyncio.AbstractEventLoop) -> None:
    """Say "out of file descriptors" in one line instead of asyncio's traceback when accepting fails with
    EMFILE/ENFILE (asyncio pauses accepting and retries by itself)."""
    default = loop.get_exception_handler()

    def handler(lp: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        exc = context.get("exception")
        if isinstance(exc, OSError) and exc.errno in (errno.EMFILE, errno.ENFILE):
            log.warning("out of file descriptors: new connections wait (%s)", exc.strerror)
            return
        if default is not None:
            default(lp, context)
        else:
            lp.default_exception_handler(context)

    loop.set_exception_handler(handler)
