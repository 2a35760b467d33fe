"""Read-only enforcement at the HTTP transport.

Every request the Run:ai client sends passes through :class:`ReadOnlyTransport` (and, for defence in depth,
:class:`ReadOnlyClient.send`). A request is classified *before* it is handed to the network layer:

* ``GET`` / ``HEAD`` → read, allowed.
* ``POST`` to exactly ``<prefix>/api/v1/token`` or ``<prefix>/api/v2/token`` → the credential exchange, allowed
  (``<prefix>`` is the path of the configured base URL, e.g. ``/runai`` behind a reverse proxy; empty otherwise).
* anything else → :class:`tools.base.WriteRefused`; no byte leaves the process.

Unknown is refused (the kubectl-ai rule): there is no allow-by-default branch.

The real network layer is httpcore's own, with every socket timeout clamped to the diagnosis :class:`Deadline`
(:class:`DeadlineBackend`): no connect, write or read outlives it, and a cancelled deadline shuts the sockets of
reads in progress. TLS verification uses certifi's bundle, or the CA file given (``--ca-file``/``SSL_CERT_FILE``).
"""
from __future__ import annotations

import ipaddress
from functools import lru_cache
from typing import Any

import httpcore
import httpx

from workload_diagnose.tools.base import WriteRefused
from workload_diagnose.tools.deadline import Deadline

READ_METHODS = frozenset({"GET", "HEAD"})
TOKEN_PATHS = frozenset({"/api/v1/token", "/api/v2/token"})


def classify_request(method: str, path: str, prefix: str = "") -> str:
    """Return 'read', 'token' or 'write' for a request. Anything not recognised as a read is a write.

    ``prefix`` is the base URL's path (``/runai``): only ``<prefix>/api/v1/token`` (or v2) is the token exchange."""
    m = method.upper()
    if m in READ_METHODS:
        return "read"
    if m == "POST" and path.rstrip("/") in {prefix + p for p in TOKEN_PATHS}:
        return "token"
    return "write"


def check_request(request: httpx.Request, prefix: str = "") -> None:
    kind = classify_request(request.method, request.url.path, prefix)
    if kind == "write":
        raise WriteRefused(
            f"refused {request.method} {request.url.path}: workload-diagnose is read-only "
            "(only GET and the token exchange may be sent)"
        )


@lru_cache(maxsize=4)
def tls_context(ca_file: str | None = None):
    """A verified TLS context per CA bundle (certifi's when ``ca_file`` is None); building one loads the bundle
    (~20 ms), so share it. Raises ValueError (one line) for a CA file that is missing or not PEM certificates."""
    import os
    import ssl

    import certifi

    if ca_file is not None and not os.path.isfile(ca_file):
        raise ValueError(f"the CA file {ca_file} does not exist")
    try:
        return ssl.create_default_context(cafile=ca_file or certifi.where())
    except (ssl.SSLError, OSError) as e:
        raise ValueError(f"the CA file {ca_file} holds no usable PEM certificate ({type(e).__name__})") from None


def is_loopback(host: str) -> bool:
    h = host.strip("[]").lower()
    if h == "localhost" or h.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(h).is_loopback
    except ValueError:
        return False


def plain_http_warning(base_url: str) -> str | None:
    """Why plain ``http://`` to this host is a risk (the client secret and token cross the network in clear), or
    None for https and for loopback hosts (a local simulator or a port-forward)."""
    try:
        url = httpx.URL(base_url)
    except (httpx.InvalidURL, TypeError):
        return None  # not a URL at all: the client refuses it with its own one-line error
    if url.scheme != "http" or not url.host or is_loopback(url.host):
        return None
    where = f"http://{url.host}" + (f":{url.port}" if url.port else "")  # never the path, query or userinfo
    return (f"{where} is plain http:// to a host that is not loopback: the client secret, the token and the "
            "evidence cross the network unencrypted; use https://")


class _DeadlineStream(httpcore.NetworkStream):
    """A socket stream whose every timeout is clamped to the deadline, tracked so a cancel can shut it down."""

    def __init__(self, inner: httpcore.NetworkStream, deadline: Deadline):
        self._inner, self._deadline = inner, deadline
        self._sock = inner.get_extra_info("socket")
        deadline.track(self._sock)

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, self._deadline.clamp(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, self._deadline.clamp(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._deadline.untrack(self._sock)
        self._inner.close()

    def start_tls(self, ssl_context, server_hostname: str | None = None, timeout: float | None = None):
        inner = self._inner.start_tls(ssl_context, server_hostname,
                                      self._deadline.clamp(timeout, httpcore.ConnectTimeout))
        self._deadline.untrack(self._sock)
        return _DeadlineStream(inner, self._deadline)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class DeadlineBackend(httpcore.NetworkBackend):
    """httpcore's synchronous socket backend under a :class:`Deadline`."""

    def __init__(self, deadline: Deadline):
        self._inner = httpcore.SyncBackend()
        self._deadline = deadline

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        stream = self._inner.connect_tcp(host, port, self._deadline.clamp(timeout, httpcore.ConnectTimeout),
                                         local_address, socket_options)
        return _DeadlineStream(stream, self._deadline)

    def connect_unix_socket(self, path, timeout=None, socket_options=None):  # pragma: no cover - never configured
        raise httpcore.ConnectError("unix sockets are not used")

    def sleep(self, seconds: float) -> None:
        self._deadline.sleep(seconds)


def _no_tls_context():
    """The context of a client whose base URL is plain ``http://``: no request of it uses TLS (every request goes
    to that base URL, and no redirect is followed), so no CA bundle is loaded (certifi's or the CA file's: ~15 ms
    of CPU per process, 50+ under load, more for a system bundle). It still verifies (CERT_REQUIRED, host names
    checked) and trusts no CA: were a TLS connection ever made through it, it would fail, never go unverified."""
    import ssl

    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)


def network_transport(deadline: Deadline, ca_file: str | None = None, *, tls: bool = True) -> httpx.HTTPTransport:
    """httpx's HTTP transport (its request/response mapping) over a connection pool on :class:`DeadlineBackend`
    (``tls=False``: for a plain ``http://`` base URL, see ``_no_tls_context``)."""
    ssl_context = tls_context(ca_file) if tls else _no_tls_context()
    t = httpx.HTTPTransport(retries=0, verify=ssl_context)
    limits = httpx.Limits(max_connections=100, max_keepalive_connections=20, keepalive_expiry=5.0)
    t._pool = httpcore.ConnectionPool(  # httpx builds its pool without a way to pass the network backend
        ssl_context=ssl_context, max_connections=limits.max_connections,
        max_keepalive_connections=limits.max_keepalive_connections, keepalive_expiry=limits.keepalive_expiry,
        http1=True, http2=False, retries=0, network_backend=DeadlineBackend(deadline))
    return t


class ReadOnlyTransport(httpx.BaseTransport):
    """Wraps a real transport; refuses non-read requests before delegating."""

    def __init__(self, inner: httpx.BaseTransport | None = None, *, prefix: str = "",
                 deadline: Deadline | None = None, ca_file: str | None = None, tls: bool = True):
        self.prefix = prefix
        self._inner = inner or network_transport(deadline or Deadline(None), ca_file, tls=tls)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        check_request(request, self.prefix)
        return self._inner.handle_request(request)

    def close(self) -> None:
        self._inner.close()


class ReadOnlyClient(httpx.Client):
    """An httpx.Client whose every send is checked (also when a test tool patches the transport layer)."""

    prefix = ""
    read_transport: ReadOnlyTransport  # the one it sends through (set by make_client, which builds every client)

    def send(self, request: httpx.Request, **kwargs):  # type: ignore[override]
        check_request(request, self.prefix)
        return super().send(request, **kwargs)

    def send_streamed(self, request: httpx.Request) -> httpx.Response:
        """``send(request, stream=True)`` straight to the checked transport, without the client's cookie jar,
        auth flow, redirect loop and event hooks: none is used (no redirect is followed, credentials are explicit
        headers, and a cookie Run:ai sets must not be kept), and they cost a third of a request's CPU. The
        request carries its own timeout (``extensions``); the caller closes the response."""
        check_request(request, self.prefix)
        response = self.read_transport.handle_request(request)
        response.request = request
        return response


def make_client(base_url: str, *, timeout: float, transport: httpx.BaseTransport | None = None,
                deadline: Deadline | None = None, ca_file: str | None = None) -> ReadOnlyClient:
    url = httpx.URL(base_url)
    prefix = url.path.rstrip("/")
    read_transport = ReadOnlyTransport(transport, prefix=prefix, deadline=deadline, ca_file=ca_file,
                                       tls=url.scheme != "http")
    client = ReadOnlyClient(
        base_url=base_url,
        transport=read_transport,
        timeout=httpx.Timeout(timeout, connect=min(timeout, 5.0)),
        follow_redirects=False,
        headers={"Accept": "application/json", "User-Agent": "workload-diagnose/0.1 (read-only)"},
    )
    client.prefix, client.read_transport = prefix, read_transport
    return client
