"""``PacedTransport``: honours ``429 Retry-After`` for every concurrent reader of a fleet at once: after a 429 no
request of the fleet is sent before the server's delay has passed (each request's own retries stay in the client).
"""
from __future__ import annotations

import threading
import time
from typing import Callable

import httpx

__all__ = ["PacedTransport"]


class PacedTransport(httpx.BaseTransport):
    """Counts every request and, after a ``429``, holds every request of the fleet until ``Retry-After`` passed.

    Sits under the read-only guard (``RunaiClient(paced=True)``). Without ``inner``, each thread of the fleet reads
    through a connection pool of its own (the REST client's network transport: TLS trust, ``ca_file``, bounded socket
    reads): one pool shared by a fleet's threads had every request contend for its lock and walk every connection
    (httpcore's pool bookkeeping), measured at a fifth of the HTTP CPU of a triage; a thread's diagnoses read one
    after the other, so its pool holds one connection, reused."""

    def __init__(self, inner: httpx.BaseTransport | None = None, *, max_pause: float = 30.0,
                 sleep: Callable[[float], None] = time.sleep, clock: Callable[[], float] = time.monotonic,
                 ca_file: str | None = None):
        self._shared = inner
        self._ca_file = ca_file
        self._local = threading.local()
        self._pools: list[httpx.BaseTransport] = []
        self._lock = threading.Lock()
        self._until = 0.0
        self._sleep, self._clock, self.max_pause = sleep, clock, max_pause
        self.sent = 0
        self.rate_limited = 0
        self.paused_s = 0.0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        with self._lock:
            wait = self._until - self._clock()
            self.sent += 1
        if wait > 0:
            with self._lock:
                self.paused_s += wait
            self._sleep(wait)
        resp = self._inner().handle_request(request)
        if resp.status_code == 429:
            delay = _retry_after(resp.headers.get("Retry-After"), self.max_pause)
            with self._lock:
                self.rate_limited += 1
                self._until = max(self._until, self._clock() + delay)
        return resp

    def _inner(self) -> httpx.BaseTransport:
        if self._shared is not None:
            return self._shared
        pool = getattr(self._local, "pool", None)
        if pool is None:
            from workload_diagnose.tools.deadline import Deadline
            from workload_diagnose.tools.transport import network_transport

            # each diagnosis keeps its own deadline in its client; the fleet as a whole has none
            pool = self._local.pool = network_transport(Deadline(None), self._ca_file)
            with self._lock:
                self._pools.append(pool)
        return pool

    def close(self) -> None:
        if self._shared is not None:
            self._shared.close()
        with self._lock:
            pools, self._pools = self._pools, []
        for p in pools:
            p.close()


def _retry_after(value: str | None, cap: float) -> float:
    try:
        return min(max(float(value), 0.0), cap) if value else 1.0
    except ValueError:
        return 1.0  # an HTTP-date or garbage: a short pause, never an unbounded one
