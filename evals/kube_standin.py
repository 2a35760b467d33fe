"""A tiny HTTPS kubelet stand-in: enough of ``GET /containerLogs/<ns>/<pod>/<container>`` for the real
kube-apiserver to proxy pod logs (``kubectl logs``) in tests and in the memory bench (``evals.bench_memory``).

* Logs are served from an in-memory dict keyed by ``(ns, pod, container, previous)``; ``tailLines``,
  ``limitBytes`` and ``previous`` are honoured like the kubelet does (tail first, then the byte cap).
* :meth:`KubeletStandin.add_generated_log` registers a *streamed* log of any size (e.g. 50 MB) generated on the
  fly, optionally ignoring ``tailLines``/``limitBytes`` (a misbehaving backend); the handler counts the bytes it
  actually hands to the socket, so a test can show that nobody had to send the whole log.
* The certificate is self-signed, made with ``cryptography`` when installed, else with the openssl CLI (the
  apiserver does not verify the kubelet's certificate).

Usage::

    with KubeletStandin(workdir) as kubelet:
        kubelet.add_log("runai-p", "pod-0", "main", "line 1\\nline 2\\n", previous=True)
        ... node.status.daemonEndpoints.kubeletEndpoint.Port = kubelet.port ...
"""
from __future__ import annotations

import shutil
import ssl
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

STREAM_BLOCK = 64 * 1024


def make_self_signed_cert(directory: Path, cn: str = "kubelet-standin") -> tuple[Path, Path]:
    """Write ``tls.crt``/``tls.key`` (SAN IP:127.0.0.1, DNS:localhost) into ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    crt, key = directory / "tls.crt", directory / "tls.key"
    if crt.exists() and key.exists():
        return crt, key
    try:
        _cert_with_cryptography(crt, key, cn)
    except ImportError:
        openssl = shutil.which("openssl")
        if not openssl:
            raise RuntimeError("neither the cryptography package nor the openssl CLI is available")
        subprocess.run(
            [openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", f"/CN={cn}",
             "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", str(key), "-out", str(crt)],
            check=True, capture_output=True, timeout=60,
        )
    return crt, key


def _cert_with_cryptography(crt: Path, key: Path, cn: str) -> None:
    import datetime as dt
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    k = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])
    now = dt.datetime.now(dt.timezone.utc)
    cert = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(k.public_key())
        .serial_number(x509.random_serial_number()).not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=2))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                                                    x509.DNSName("localhost")]), critical=False)
        .sign(k, hashes.SHA256())
    )
    key.write_bytes(k.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                    serialization.NoEncryption()))
    crt.write_bytes(cert.public_bytes(serialization.Encoding.PEM))


@dataclass
class GeneratedLog:
    total_bytes: int
    honour_limits: bool = True
    line_bytes: int = 100

    def line(self, i: int) -> bytes:
        head = f"{i:09d} step={i} loss={1.0 / (1 + i):.6f} "
        return (head + "x" * max(0, self.line_bytes - len(head) - 1) + "\n").encode()

    def n_lines(self) -> int:
        return max(1, self.total_bytes // self.line_bytes)


@dataclass
class ServedRequest:
    path: str
    query: dict[str, str]
    status: int = 0
    bytes_sent: int = 0  # body bytes handed to the socket (sendall returned)
    total_bytes: int = 0  # body bytes the handler would have sent if nobody stopped reading
    completed: bool = False  # the whole body was sent
    client_gone: bool = False  # the reader (apiserver) closed the connection mid-body
    done: threading.Event = field(default_factory=threading.Event)


class KubeletStandin:
    def __init__(self, workdir: str | Path | None = None, host: str = "127.0.0.1", port: int = 0):
        self._tmp = None
        if workdir is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="kubelet-standin-")
            workdir = self._tmp.name
        self.workdir = Path(workdir)
        self.logs: dict[tuple[str, str, str, bool], bytes] = {}
        self.generated: dict[tuple[str, str, str, bool], GeneratedLog] = {}
        self.requests: list[ServedRequest] = []
        self._lock = threading.Lock()
        crt, key = make_self_signed_cert(self.workdir / "kubelet-pki")
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(str(crt), str(key))
        standin = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def do_GET(self):  # noqa: N802
                standin._handle(self)

        self.server = ThreadingHTTPServer((host, port), Handler)
        self.server.daemon_threads = True
        self.server.socket = ctx.wrap_socket(self.server.socket, server_side=True)
        self.host, self.port = self.server.server_address[:2]
        self._thread = threading.Thread(target=self.server.serve_forever, name="kubelet-standin", daemon=True)

    # -- lifecycle ---------------------------------------------------------------------------------
    def start(self) -> "KubeletStandin":
        self._thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        if self._tmp is not None:
            self._tmp.cleanup()

    def __enter__(self) -> "KubeletStandin":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- content -----------------------------------------------------------------------------------
    def add_log(self, ns: str, pod: str, container: str, text: str | bytes, previous: bool = False) -> None:
        data = text.encode() if isinstance(text, str) else text
        with self._lock:
            self.logs[(ns, pod, container, previous)] = data

    def add_generated_log(self, ns: str, pod: str, container: str, total_bytes: int, *,
                          previous: bool = True, honour_limits: bool = True) -> GeneratedLog:
        g = GeneratedLog(total_bytes=total_bytes, honour_limits=honour_limits)
        with self._lock:
            self.generated[(ns, pod, container, previous)] = g
        return g

    def requests_for(self, ns: str, pod: str, container: str) -> list[ServedRequest]:
        p = f"/containerLogs/{ns}/{pod}/{container}"
        with self._lock:
            return [r for r in self.requests if r.path == p]

    # -- serving -----------------------------------------------------------------------------------
    def _handle(self, h: BaseHTTPRequestHandler) -> None:
        u = urlsplit(h.path)
        q = {k: v[-1] for k, v in parse_qs(u.query).items()}
        rec = ServedRequest(path=u.path, query=q)
        with self._lock:
            self.requests.append(rec)
        try:
            parts = [unquote(p) for p in u.path.split("/") if p]
            if len(parts) != 4 or parts[0] != "containerLogs":
                return self._error(h, rec, 404, f"unknown path {u.path}")
            _, ns, pod, container = parts
            previous = q.get("previous", "false").lower() in ("true", "1")
            tail = int(q["tailLines"]) if "tailLines" in q else None
            limit = int(q["limitBytes"]) if "limitBytes" in q else None
            key = (ns, pod, container, previous)
            with self._lock:
                data, gen = self.logs.get(key), self.generated.get(key)
            if gen is not None:
                return self._stream_generated(h, rec, gen, tail, limit)
            if data is None:
                if previous:
                    msg = f'previous terminated container "{container}" in pod "{pod}" not found'
                else:
                    msg = f'container "{container}" in pod "{pod}" is waiting to start: no log'
                return self._error(h, rec, 400, msg)
            if tail is not None:
                lines = data.splitlines(keepends=True)
                data = b"".join(lines[-tail:]) if tail > 0 else b""
            if limit is not None:
                data = data[:limit]
            rec.total_bytes = len(data)
            h.send_response(200)
            h.send_header("Content-Type", "text/plain")
            h.send_header("Content-Length", str(len(data)))
            h.end_headers()
            rec.status = 200
            h.wfile.write(data)
            rec.bytes_sent = len(data)
            rec.completed = True
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError, OSError):
            rec.client_gone = True
            h.close_connection = True
        finally:
            rec.done.set()

    def _error(self, h: BaseHTTPRequestHandler, rec: ServedRequest, status: int, msg: str) -> None:
        body = msg.encode()
        rec.status = status
        h.send_response(status)
        h.send_header("Content-Type", "text/plain")
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        h.wfile.write(body)
        rec.completed = True

    def _stream_generated(self, h, rec: ServedRequest, g: GeneratedLog, tail: int | None, limit: int | None):
        n = g.n_lines()
        first = 0
        cap = None
        if g.honour_limits:
            if tail is not None:
                first = max(0, n - tail)
            cap = limit
        total = (n - first) * g.line_bytes
        if cap is not None:
            total = min(total, cap)
        rec.total_bytes = total
        h.send_response(200)
        h.send_header("Content-Type", "text/plain")
        h.send_header("Content-Length", str(total))
        h.end_headers()
        rec.status = 200
        h.close_connection = True
        block = bytearray()
        remaining = total
        i = first
        while remaining > 0:
            while len(block) < STREAM_BLOCK and i < n:
                block += g.line(i)
                i += 1
            piece = bytes(block[: min(STREAM_BLOCK, remaining)])
            del block[: len(piece)]
            if not piece:
                break
            h.wfile.write(piece)  # sendall: counted only once handed to the kernel
            rec.bytes_sent += len(piece)
            remaining -= len(piece)
        rec.completed = remaining == 0


def wait_done(rec: ServedRequest, timeout: float = 15.0) -> bool:
    return rec.done.wait(timeout)


if __name__ == "__main__":  # manual smoke test: python -m workload_diagnose.evals.kube_standin
    with KubeletStandin() as k:
        k.add_log("ns", "pod", "c", "hello\nworld\n", previous=True)
        print(f"kubelet stand-in on https://{k.host}:{k.port}")
        time.sleep(3600)
