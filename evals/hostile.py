"""A hostile Run:ai server (tests/hostile, the bench's ``hostile`` item): a real TCP server on 127.0.0.1 in front
of the scenario simulator.

Each request is answered by the first rule whose method and path regex match (the rule writes raw bytes to the
socket: endless bodies, one byte a second, silence, a reset mid-body, HTML, damaged JSON); every other request is
relayed to the simulator unchanged, so a test damages exactly one endpoint of an otherwise real world.
"""
from __future__ import annotations

import contextlib
import http.client
import json
import re
import socket
import socketserver
import ssl
import struct
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterator
from urllib.parse import urlsplit


@dataclass
class Request:
    method: str
    target: str  # path?query as received
    headers: dict[str, str]
    body: bytes
    sock: socket.socket
    server: "HostileServer"

    @property
    def path(self) -> str:
        return urlsplit(self.target).path

    def relay(self, target: str | None = None) -> tuple[int, bytes]:
        """The simulator's answer to this request (optionally to another target: a prefix stripped)."""
        up = urlsplit(self.server.upstream)
        conn = http.client.HTTPConnection(up.hostname, up.port, timeout=10)
        try:
            hdrs = {k: v for k, v in self.headers.items() if k.lower() in ("authorization", "content-type")}
            conn.request(self.method, target or self.target, body=self.body or None, headers=hdrs)
            r = conn.getresponse()
            return r.status, r.read()
        finally:
            conn.close()

    def send(self, status: int, body: bytes, ctype: str = "application/json", extra: str = "") -> None:
        head = (f"HTTP/1.1 {status} X\r\nContent-Type: {ctype}\r\nContent-Length: {len(body)}\r\n{extra}"
                "Connection: close\r\n\r\n")
        self.sock.sendall(head.encode() + body)

    def head(self, lines: str) -> None:
        self.sock.sendall(f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n{lines}Connection: close\r\n\r\n"
                          .encode())


Action = Callable[[Request], None]


class HostileServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, upstream: str, rules: list[tuple[str, str, Action]], tls: ssl.SSLContext | None = None):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.upstream = upstream
        self.rules = [(m.upper(), re.compile(p), a) for m, p, a in rules]
        self.tls = tls
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.seen: list[tuple[str, str]] = []  # (method, path?query) of every request, in arrival order
        self.first_at: float | None = None  # time.monotonic() of the first request (the CLI's imports are done)
        self.sent: dict[str, int] = {}  # body bytes a streaming rule wrote, by path

    @property
    def url(self) -> str:
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.server_address[1]}"

    def count(self, method: str, rx: str) -> int:
        with self.lock:
            return sum(1 for m, t in self.seen if m == method and re.search(rx, t))

    def handle_error(self, request, client_address):  # a client that gave up is the point of these tests
        pass


class _Handler(socketserver.BaseRequestHandler):
    server: HostileServer

    def handle(self) -> None:
        sock = self.request
        if self.server.tls is not None:
            try:
                sock = self.server.tls.wrap_socket(sock, server_side=True)
            except (ssl.SSLError, OSError):
                return  # the client refused our certificate: that is what a TLS test checks
        f = sock.makefile("rb")
        line = f.readline(65536).decode("latin-1").strip()
        if not line:
            return
        method, target, _ = line.split(" ", 2)
        headers: dict[str, str] = {}
        while (h := f.readline(65536).decode("latin-1").strip()):
            k, _, v = h.partition(":")
            headers[k.strip().lower()] = v.strip()
        body = f.read(int(headers.get("content-length") or 0))
        with self.server.lock:
            self.server.seen.append((method, target))
            if self.server.first_at is None:
                self.server.first_at = time.monotonic()
        req = Request(method, target, headers, body, sock, self.server)
        for m, rx, action in self.server.rules:
            if m == method and rx.search(urlsplit(target).path):
                with contextlib.suppress(OSError):
                    action(req)
                return
        status, data = req.relay()
        with contextlib.suppress(OSError):
            req.send(status, data)


# ------------------------------------------------------------------------------------------ actions
def hang(req: Request) -> None:
    """Accept the request and never answer."""
    req.server.stop.wait(120)


def raw(status: int, body: bytes, ctype: str = "application/json") -> Action:
    return lambda req: req.send(status, body, ctype)


def endless(prefix: bytes = b'{"events": [', unit: bytes = b'{"reason": "Normal", "message": "x"},',
            declared: int | None = None, limit: int | None = None) -> Action:
    """A body that never ends (chunked, or with a huge Content-Length): streams until the client hangs up (or
    ``limit`` bytes were sent)."""

    def act(req: Request) -> None:
        req.head(f"Content-Length: {declared}\r\n" if declared else "Transfer-Encoding: chunked\r\n")
        block = prefix + unit * (65536 // len(unit))
        sent = 0
        while not req.server.stop.is_set() and (limit is None or sent < limit):
            data = block if declared else b"%x\r\n%s\r\n" % (len(block), block)
            req.sock.sendall(data)
            sent += len(block)
            with req.server.lock:
                req.server.sent[req.path] = sent
            block = unit * (65536 // len(unit))
        if not declared and not req.server.stop.is_set():
            req.sock.sendall(b"0\r\n\r\n")  # the chunked body's end (not valid JSON: the client stops first)

    return act


def drip(interval: float = 0.2) -> Action:
    """Headers at once, then one byte of body every ``interval`` seconds, forever."""

    def act(req: Request) -> None:
        req.head("Content-Length: 1000000\r\n")
        while not req.server.stop.is_set():
            req.sock.sendall(b" ")
            time.sleep(interval)

    return act


def reset_mid_body(req: Request) -> None:
    """Promise 100 kB, send 100 bytes, then reset the connection (RST, not a clean close)."""
    req.head("Content-Length: 100000\r\n")
    req.sock.sendall(b'{"pods": [' + b" " * 90)
    req.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    req.sock.close()


def mutate(fn: Callable[[Any], Any]) -> Action:
    """The simulator's real answer, damaged by ``fn`` (which edits the parsed JSON in place or returns a new one)."""

    def act(req: Request) -> None:
        status, data = req.relay()
        body = json.loads(data)
        out = fn(body)
        req.send(status, json.dumps(body if out is None else out).encode())

    return act


def strip_prefix(prefix: str) -> Action:
    """A reverse proxy mounted at ``prefix``: relays ``<prefix>/api/...`` as ``/api/...``; anything else is 404."""

    def act(req: Request) -> None:
        if not req.target.startswith(prefix + "/"):
            return req.send(404, b'{"message": "not under the prefix"}')
        status, data = req.relay(req.target[len(prefix):])
        req.send(status, data)

    return act


@contextlib.contextmanager
def hostile(world: Any, rules: list[tuple[str, str, Action]], tls: ssl.SSLContext | None = None
            ) -> Iterator[tuple[HostileServer, Any]]:
    """(hostile server, simulator) for ``world``; both stop on exit, every streaming rule is told to stop."""
    from workload_diagnose.evals.simulator import running_simulator

    with running_simulator(world) as sim:
        srv = HostileServer(sim.url, rules, tls)
        t = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        t.start()
        try:
            yield srv, sim
        finally:
            srv.stop.set()
            srv.shutdown()
            srv.server_close()
