"""``serve --workers N``: N uvicorn processes, each listening on its own socket of one port (``SO_REUSEPORT``).

uvicorn's own workers share one listening socket, and whichever worker wakes first accepts every connection that
is waiting: a burst of keep-alive connections (a support bot's connection pool, the load test's 32 clients) all
land on one worker while the others idle, and the service runs at one core's speed. With a socket per worker the
kernel spreads new connections over the workers.

The port is the service's alone. Before anything listens, it is bound once without ``SO_REUSEPORT``: a port
another process holds (any process, listening or not, with ``SO_REUSEPORT`` or not) fails there, in one line, exit
1, before the "listening on" line. The supervisor then binds each worker's socket itself (bound, not yet
listening: a worker listens once its app has loaded, so no connection waits on a worker still starting) and keeps
reading the kernel's socket table (``/proc/net/tcp``, ``tcp6``): a socket listening on the service's address and
port that is not one of its own means another process of the same user joined the port's group (the kernel lets
same-user sockets share it, and would hand it a share of the connections), and the service stops with a one-line
error, exit 1. A worker that dies is started again on a fresh socket (its old one closed: connections go to the
live workers meanwhile); one that cannot start (bad settings) stops the service with a one-line error. The
workers' Prometheus figures are kept in one directory (``PROMETHEUS_MULTIPROC_DIR``: the one given, else a
temporary one) so that every worker's ``/metrics`` answers for the whole service.
"""
from __future__ import annotations

import multiprocessing
import os
import shutil
import signal
import socket
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from uvicorn.config import STARTUP_FAILURE  # a worker's exit status when it could not start serving

from workload_diagnose.agent.service.connections import ConnectionLimits, server_config
from workload_diagnose.agent.service.metrics import SHARED_DIR_ENV

APP = "workload_diagnose.agent.service.app:from_env"
RESTART_BACKOFF_S = 1.0
STOP_GRACE_S = 15.0
SHARE_CHECK_S = 2.0  # how often the supervisor looks for a foreign listener on the port


def available() -> bool:
    """Whether the kernel spreads connections over sockets sharing a port (Linux, FreeBSD; not macOS)."""
    return hasattr(socket, "SO_REUSEPORT") and sys.platform.startswith(("linux", "freebsd"))


def bound_socket(host: str, port: int, *, reuseport: bool = True) -> socket.socket:
    """A TCP socket bound to ``host:port`` (not yet listening), in the port's ``SO_REUSEPORT`` group unless told
    otherwise. Raises OSError."""
    info = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    family, kind, proto, _, addr = info[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if reuseport:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind(addr)
    except OSError:
        sock.close()
        raise
    return sock


SHARED = "cannot listen on {host}:{port}: another process listens on that port too (SO_REUSEPORT)"


def cannot_listen(host: str, port: int, e: OSError) -> str:
    return f"cannot listen on {host}:{port}: {e.strerror or e}"


def listening_socket(host: str, port: int, backlog: int) -> socket.socket:
    """The one listening socket of ``serve --workers 1``: bound without ``SO_REUSEPORT``, so no other process
    can share the port. Raises OSError with the one-line reason."""
    try:
        sock = bound_socket(host, port, reuseport=False)
    except OSError as e:
        raise OSError(cannot_listen(host, port, e)) from None
    sock.listen(backlog)
    return sock


def _worker(sock: socket.socket, host: str, port: int, options: dict[str, Any], limits: ConnectionLimits) -> None:
    """One worker process: one uvicorn server on the socket the supervisor bound for it (asyncio listens on it
    when the server starts, after the app has loaded)."""
    import uvicorn

    config = server_config(APP, limits, factory=True, host=host, port=port, **options)
    server = uvicorn.Server(config)
    server.run(sockets=[sock])
    if not server.started:  # the app's startup failed: starting it again would fail the same way
        sys.exit(STARTUP_FAILURE)


class Supervisor:
    """Starts the workers, starts again one that exits while the service runs, stops them all on SIGINT/SIGTERM."""

    def __init__(self, sockets: list[socket.socket], host: str, port: int, options: dict[str, Any],
                 limits: ConnectionLimits):
        self.sockets, self.host, self.port, self.options, self.limits = sockets, host, port, options, limits
        self._ctx = multiprocessing.get_context("spawn")  # a fresh interpreter: no thread or lock of the parent
        self._procs: list[Any] = []
        self._stopping = False

    def _start(self, i: int, fresh: bool = False) -> Any:
        if fresh:  # the dead worker's socket still queues connections: a new one, listening only when ready
            self.sockets[i].close()
            try:
                self.sockets[i] = bound_socket(self.host, self.port)
            except OSError as e:
                raise OSError(cannot_listen(self.host, self.port, e)) from None
        p = self._ctx.Process(target=_worker, args=(self.sockets[i], self.host, self.port, self.options, self.limits),
                              name="wd-serve-worker")
        p.start()
        p.started_at = time.monotonic()  # type: ignore[attr-defined]
        return p

    def _stop(self, *_: Any) -> None:
        self._stopping = True

    def run(self) -> int:
        """Serve until told to stop; the exit status (0, or 1 when a worker could not start)."""
        made = _metrics_dir()
        previous = {s: signal.signal(s, self._stop) for s in (signal.SIGINT, signal.SIGTERM)}
        status = 0
        try:
            self._procs = [self._start(i) for i in range(len(self.sockets))]
            checked = time.monotonic()
            while not self._stopping:
                time.sleep(0.2)
                if time.monotonic() - checked >= SHARE_CHECK_S:
                    checked = time.monotonic()
                    if shared_with_another(self.port, self.sockets):
                        sys.stderr.write(f"workload-diagnose: error: {SHARED.format(host=self.host, port=self.port)}\n")
                        status, self._stopping = 1, True
                        break
                for i, p in enumerate(self._procs):
                    if p.is_alive() or self._stopping:
                        continue
                    if p.exitcode == STARTUP_FAILURE:
                        status, self._stopping = 1, True
                        break
                    sys.stderr.write(f"workload-diagnose serve: worker {p.pid} exited ({p.exitcode}): starting "
                                     "another\n")
                    _forget_worker(p.pid)
                    if time.monotonic() - p.started_at < RESTART_BACKOFF_S:
                        time.sleep(RESTART_BACKOFF_S)
                    self._procs[i] = self._start(i, fresh=True)
        finally:
            self._terminate()
            for sock in self.sockets:
                sock.close()
            for s, h in previous.items():
                signal.signal(s, h)
            if made is not None:
                shutil.rmtree(made, ignore_errors=True)
        return status

    def _terminate(self) -> None:
        for p in self._procs:
            if p.is_alive():
                p.terminate()  # SIGTERM: uvicorn's graceful shutdown (in-flight requests finish)
        end = time.monotonic() + STOP_GRACE_S
        for p in self._procs:
            p.join(max(0.0, end - time.monotonic()))
            if p.is_alive():
                p.kill()
                p.join(5)


def _metrics_dir() -> str | None:
    """The workers' shared metrics directory, set in the environment they inherit: the one given (emptied of a
    previous run's files, as prometheus_client requires) or a new temporary one (returned, to be removed)."""
    given = os.environ.get(SHARED_DIR_ENV)
    if given:
        if not Path(given).is_dir():
            raise OSError(f"{SHARED_DIR_ENV}={given} is not a directory")
        for f in Path(given).glob("*.db"):
            f.unlink(missing_ok=True)
        return None
    try:
        made = tempfile.mkdtemp(prefix="wd-metrics-")
    except OSError as e:
        raise OSError(f"no directory for the workers' metrics ({e.strerror or e} in {tempfile.gettempdir()}): set "
                      f"{SHARED_DIR_ENV} to a writable directory, or run one worker") from None
    os.environ[SHARED_DIR_ENV] = made
    return made


def _forget_worker(pid: int) -> None:
    """A dead worker's in-flight gauge stops counting (its counters stay: they happened)."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(pid)


def _listeners(port: int) -> dict[int, str] | None:
    """inode → local address of every socket listening on ``port`` (IPv4 and IPv6), from the kernel's table;
    None where there is no such table (not Linux)."""
    found: dict[int, str] = {}
    tables = [Path("/proc/net/tcp"), Path("/proc/net/tcp6")]
    if not tables[0].exists():
        return None
    for table in tables:
        try:
            lines = table.read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            f = line.split()
            if len(f) > 9 and f[3] == "0A" and int(f[1].rsplit(":", 1)[1], 16) == port:
                found[int(f[9])] = f[1]
    return found


def _proc_address(sock: socket.socket) -> str:
    """A socket's local address as the kernel's table writes it (each 32-bit word in host order, then the port):
    127.0.0.1:8080 is ``0100007F:1F90`` on a little-endian machine."""
    host, port = sock.getsockname()[:2]
    packed = socket.inet_pton(sock.family, host)
    words = [int.from_bytes(packed[i:i + 4], sys.byteorder) for i in range(0, len(packed), 4)]
    return "".join(f"{w:08X}" for w in words) + f":{port:04X}"


def shared_with_another(port: int, socks: list[socket.socket]) -> bool:
    """Whether a socket that is not one of ``socks`` listens on their address and port."""
    listening = _listeners(port)
    if listening is None:
        return False
    ours = {os.fstat(s.fileno()).st_ino for s in socks}
    addresses = {_proc_address(s) for s in socks}
    return any(addr in addresses for i, addr in listening.items() if i not in ours)


def group_sockets(n: int, host: str, port: int) -> list[socket.socket]:
    """``n`` sockets bound in the port's ``SO_REUSEPORT`` group (each worker listens on its own), the port checked
    to be this service's alone (module docstring). Raises OSError with the one-line reason."""
    try:
        bound_socket(host, port, reuseport=False).close()
    except OSError as e:
        raise OSError(cannot_listen(host, port, e)) from None
    socks: list[socket.socket] = []
    try:
        for _ in range(n):
            socks.append(bound_socket(host, port))
        if shared_with_another(port, socks):
            raise OSError(SHARED.format(host=host, port=port))
    except OSError as e:
        for sock in socks:
            sock.close()
        if str(e).startswith("cannot listen"):
            raise
        raise OSError(cannot_listen(host, port, e)) from None
    return socks


def serve_workers(workers: int, host: str, port: int, options: dict[str, Any],
                  limits: ConnectionLimits | None = None, sockets: list[socket.socket] | None = None) -> int:
    """Run ``workers`` worker processes on the port (on ``sockets`` when the caller has made them with
    :func:`group_sockets`); the exit status."""
    limits = limits or ConnectionLimits()
    socks = sockets if sockets is not None else group_sockets(workers, host, port)
    return Supervisor(socks, host, port, options, limits).run()
