"""One overall deadline per diagnosis, shared by every read of a source (and cancelled at once by Ctrl-C).

A :class:`Deadline` is absolute: every socket operation of the REST transport clamps its timeout to what is left
(:meth:`Deadline.clamp`), so no read, however slow or silent the server, outlives it; a read in progress when it
is cancelled (Ctrl-C) has its socket shut down, so a blocked ``recv`` returns at once. :meth:`Deadline.scope`
adds a per-read total bound in the calling thread (a server that drips one byte a second ends when the read's own
time is up, not only at the diagnosis deadline).
"""
from __future__ import annotations

import contextlib
import math
import signal
import socket
import threading
import time
from typing import Any, Callable, Iterator

__all__ = ["Deadline", "parse_timeout", "MAX_TIMEOUT_SECONDS"]

MAX_TIMEOUT_SECONDS = 24 * 3600.0


def parse_timeout(value: Any, what: str = "--timeout") -> float:
    """A diagnosis timeout in seconds: a finite number above 0 and at most a day. ValueError with one line else."""
    try:
        seconds = float(value) if not isinstance(value, bool) else math.nan
    except (TypeError, ValueError):
        seconds = math.nan
    if not (0 < seconds <= MAX_TIMEOUT_SECONDS):  # also false for NaN
        raise ValueError(f"{what} must be a number of seconds above 0 and at most {int(MAX_TIMEOUT_SECONDS)} "
                         f"(e.g. 60), not {value!r}")
    return seconds


def _seconds_text(seconds: float) -> str:
    return f"{seconds:g}"


class Deadline:
    """An absolute point in time (``seconds`` from now; None = no overall bound) that can also be cancelled."""

    def __init__(self, seconds: float | None = None, *, clock: Callable[[], float] = time.monotonic):
        self.seconds = seconds
        self._clock = clock
        self._at = None if seconds is None else clock() + seconds
        self._cancelled = threading.Event()
        self.reason: str | None = None  # "interrupted" once cancelled
        self._lock = threading.RLock()  # re-entrant: cancel() runs in a signal handler of the main thread
        self._socks: set[socket.socket] = set()
        self._local = threading.local()

    # ------------------------------------------------------------------ time left
    def _until(self) -> float | None:
        """The earliest bound for the calling thread: the overall deadline or the current read's own one."""
        scope = getattr(self._local, "until", None)
        if self._at is None:
            return scope
        return self._at if scope is None else min(self._at, scope)

    def remaining(self) -> float | None:
        """Seconds left for the calling thread (None = unbounded; 0 once expired or cancelled)."""
        if self._cancelled.is_set():
            return 0.0
        until = self._until()
        return None if until is None else max(0.0, until - self._clock())

    @property
    def expired(self) -> bool:
        """The overall deadline passed or the diagnosis was cancelled (a read's own bound does not count)."""
        return self._cancelled.is_set() or (self._at is not None and self._clock() >= self._at)

    def clamp(self, timeout: float | None, exc: type[BaseException]) -> float | None:
        """``timeout`` cut to the time left; raises ``exc`` when none is left (a 0 timeout would mean
        non-blocking, not "now")."""
        left = self.remaining()
        if left is None:
            return timeout
        if left <= 0.001:
            raise exc(self.reason or "the deadline was reached")
        return left if timeout is None else min(timeout, left)

    @contextlib.contextmanager
    def scope(self, seconds: float | None) -> Iterator[None]:
        """Bound everything the calling thread reads inside the block by ``seconds`` as well."""
        prev = getattr(self._local, "until", None)
        self._local.until = None if seconds is None else self._clock() + seconds
        try:
            yield
        finally:
            self._local.until = prev

    @contextlib.contextmanager
    def excluding(self) -> Iterator[None]:
        """Time spent inside the block does not count: the deadline moves later by it (a chat turn's model call
        has its own bound and does not use up the Run:ai reads' time)."""
        t0 = self._clock()
        try:
            yield
        finally:
            with self._lock:
                if self._at is not None:
                    self._at += self._clock() - t0

    def sleep(self, seconds: float) -> None:
        """Back off for ``seconds``, but never past the deadline, and wake at once when cancelled."""
        left = self.remaining()
        self._cancelled.wait(max(0.0, seconds if left is None else min(seconds, left)))

    def stopped(self, what: str) -> str:
        """The limitation's wording for a read the deadline (or Ctrl-C) cut off."""
        if self._cancelled.is_set():
            return f"interrupted: {what} was not read"
        return f"stopped after {_seconds_text(self.seconds or 0)} s (--timeout): {what} was not read"

    # ------------------------------------------------------------------ cancellation
    def track(self, sock: socket.socket | None) -> None:
        if sock is None:
            return
        with self._lock:
            self._socks.add(sock)
        if self._cancelled.is_set():
            self._abort(sock)

    def untrack(self, sock: socket.socket | None) -> None:
        with self._lock:
            self._socks.discard(sock)  # type: ignore[arg-type]

    def cancel(self, reason: str = "interrupted") -> None:
        """Stop every read now: later reads fail at once and the sockets of reads in progress are shut down."""
        self.reason = reason
        self._cancelled.set()
        with self._lock:
            socks = list(self._socks)
        for s in socks:
            self._abort(s)

    @staticmethod
    def _abort(sock: socket.socket) -> None:
        try:
            sock.shutdown(socket.SHUT_RDWR)  # wakes a recv blocked in another thread (close() would not)
        except OSError:
            pass

    @contextlib.contextmanager
    def interruptible(self) -> Iterator[None]:
        """While the block runs, Ctrl-C (SIGINT) first cancels this deadline, then raises KeyboardInterrupt as
        usual: worker threads blocked on the network return at once instead of when their reads time out.
        Only in the main thread (the only one Python delivers signals to); elsewhere a no-op."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        previous = signal.getsignal(signal.SIGINT)
        if previous is signal.SIG_IGN or previous is None:  # Ctrl-C is ignored (or not set from Python): keep it so
            yield
            return

        def on_sigint(signum, frame):
            self.cancel("interrupted")
            if callable(previous):
                previous(signum, frame)
            else:
                raise KeyboardInterrupt

        signal.signal(signal.SIGINT, on_sigint)
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, previous)
