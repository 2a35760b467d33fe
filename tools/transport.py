"""Read-only enforcement at the HTTP transport.

Every request the Run:ai client sends passes through :class:`ReadOnlyTransport` (and, for defence in depth,
:class:`ReadOnlyClient.send`). A request is classified *before* it is handed to the network layer:

* ``GET`` / ``HEAD`` → read, allowed.
* ``POST`` to exactly ``/api/v1/token`` or ``/api/v2/token`` → the credential exchange, allowed.
* anything else → :class:`tools.base.WriteRefused`; no byte leaves the process.

Unknown is refused (the kubectl-ai rule): there is no allow-by-default branch.
"""
from __future__ import annotations

from functools import lru_cache

import httpx

from tools.base import WriteRefused

READ_METHODS = frozenset({"GET", "HEAD"})
TOKEN_PATHS = frozenset({"/api/v1/token", "/api/v2/token"})


def classify_request(method: str, path: str) -> str:
    """Return 'read', 'token' or 'write' for a request. Anything not recognised as a read is a write."""
    m = method.upper()
    if m in READ_METHODS:
        return "read"
    if m == "POST" and path.rstrip("/") in TOKEN_PATHS:
        return "token"
    return "write"


def check_request(request: httpx.Request) -> None:
    kind = classify_request(request.method, request.url.path)
    if kind == "write":
        raise WriteRefused(
            f"refused {request.method} {request.url.path}: workload-diagnose is read-only "
            "(only GET and the token exchange may be sent)"
        )


@lru_cache(maxsize=1)
def _tls_context():
    """One verified TLS context per process: building it loads the CA bundle (~20 ms), so share it."""
    import ssl

    import certifi

    return ssl.create_default_context(cafile=certifi.where())


class ReadOnlyTransport(httpx.BaseTransport):
    """Wraps a real transport; refuses non-read requests before delegating."""

    def __init__(self, inner: httpx.BaseTransport | None = None):
        self._inner = inner or httpx.HTTPTransport(retries=0, verify=_tls_context())

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        check_request(request)
        return self._inner.handle_request(request)

    def close(self) -> None:
        self._inner.close()


class ReadOnlyClient(httpx.Client):
    """An httpx.Client whose every send is checked (also when a test tool patches the transport layer)."""

    def send(self, request: httpx.Request, **kwargs):  # type: ignore[override]
        check_request(request)
        return super().send(request, **kwargs)


def make_client(base_url: str, *, timeout: float, transport: httpx.BaseTransport | None = None) -> ReadOnlyClient:
    return ReadOnlyClient(
        base_url=base_url,
        transport=ReadOnlyTransport(transport),
        timeout=httpx.Timeout(timeout, connect=min(timeout, 5.0)),
        follow_redirects=False,
        headers={"Accept": "application/json", "User-Agent": "workload-diagnose/0.1 (read-only)"},
    )
