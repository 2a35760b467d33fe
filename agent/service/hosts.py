"""Which names the service answers to: the defence against DNS rebinding.

A web page whose name is made to resolve to 127.0.0.1 is same-origin with a service on loopback: without a check
it could read diagnoses made with the service account. So a request is answered only when its ``Host`` names a
trusted host (421 otherwise, as the MCP SDK's streamable HTTP transport answers), and a browser's ``Origin``, when
there is one, must name a trusted host too (403 otherwise). Trusted: the loopback names (``localhost``,
``127.0.0.1``, ``[::1]``, any port) and the configured ones (``WD_ALLOWED_HOSTS`` / ``serve --allowed-host``).

The check is on without auth (loopback only) and whenever hosts are configured. With auth and no configured hosts
it is off: a rebinding page has no API token, and probes or load balancers reach a replica by its pod IP.
"""
from __future__ import annotations

import ipaddress
from typing import Any, Callable
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.responses import JSONResponse

LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})
BAD_HOST = "this service does not answer to that host name (Host header)"
BAD_ORIGIN = "requests from that web origin are not allowed (Origin header)"


def host_name(value: str | None) -> str | None:
    """The host name of a ``Host`` header value (``name``, ``name:port``, ``[v6]:port``), lower case, or None
    when it is missing or malformed."""
    if not value or any(c.isspace() or c in "/?#@\\" for c in value):
        return None
    try:
        parts = urlsplit("//" + value)
        parts.port  # noqa: B018  (ValueError for a port that is not a number in range)
    except ValueError:
        return None
    return _normal(parts.hostname)


def _normal(hostname: str | None) -> str | None:
    """A host name as the trusted set holds it: lower case (urlsplit's), no trailing dot, an IP address in its
    compressed form (``[0:0::1]`` is ``::1``)."""
    name = (hostname or "").rstrip(".")
    try:
        return str(ipaddress.ip_address(name))
    except ValueError:
        return name or None


def origin_host(value: str) -> str | None:
    """The host name of an ``Origin`` header (``scheme://host[:port]``), or None for ``null`` or anything else."""
    try:
        parts = urlsplit(value.strip())
        parts.port  # noqa: B018
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or parts.path or parts.query or parts.username:
        return None
    return _normal(parts.hostname)


class TrustedHosts:
    """ASGI middleware: 421 for a ``Host`` outside ``hosts`` (plus loopback), 403 for a browser ``Origin`` outside
    them; both before the app sees the request."""

    def __init__(self, app: Callable, hosts: frozenset[str] = frozenset(),
                 on_reject: Callable[[str], None] | None = None):
        self.app = app
        self.hosts = LOOPBACK_HOSTS | {h.lower() for h in hosts}
        self.on_reject = on_reject

    async def __call__(self, scope: dict[str, Any], receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":  # lifespan (the app has no WebSocket route)
            return await self.app(scope, receive, send)
        headers = Headers(scope=scope)
        if host_name(headers.get("host")) not in self.hosts:
            return await self._reject(scope, receive, send, 421, BAD_HOST, "host")
        origin = headers.get("origin")
        if origin is not None and origin_host(origin) not in self.hosts:
            return await self._reject(scope, receive, send, 403, BAD_ORIGIN, "origin")
        await self.app(scope, receive, send)

    async def _reject(self, scope: dict[str, Any], receive: Callable, send: Callable, status: int, detail: str,
                      reason: str) -> None:
        if self.on_reject:
            self.on_reject(reason)
        await JSONResponse({"detail": detail}, status_code=status)(scope, receive, send)
