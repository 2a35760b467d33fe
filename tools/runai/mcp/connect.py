"""The two transports of the official Run:ai MCP server, as :data:`tools.runai.mcp.session.Connector` factories.

* stdio — ``RUNAI_MCP_COMMAND`` (e.g. ``docker run -i --rm -e RUNAI_BASE_URL -e RUNAI_CLIENT_ID -e
  RUNAI_CLIENT_SECRET nvcr.io/nvidia/runai/runai-mcp-server``): the child gets ``RUNAI_BASE_URL``,
  ``RUNAI_CLIENT_ID`` and ``RUNAI_CLIENT_SECRET``; its stderr is discarded (it is the server's log, not evidence).
* streamable HTTP — ``RUNAI_MCP_URL`` (``RUNAI_TRANSPORT=http`` on the server, port 8080, endpoint ``/mcp``; a URL
  without a path gets ``/mcp``), the caller's Run:ai bearer token (``RUNAI_MCP_TOKEN``) on every request.
"""
from __future__ import annotations

import os
import shlex
from contextlib import asynccontextmanager
from urllib.parse import urlsplit, urlunsplit

from workload_diagnose.tools.runai.errors import InvalidInput
from workload_diagnose.tools.runai.mcp.session import Connector

__all__ = ["stdio_connector", "http_connector", "mcp_url", "Refused"]


class Refused(Exception):
    """The MCP endpoint refused the bearer token (HTTP 401/403)."""

    def __init__(self, status_code: int):
        super().__init__(f"HTTP {status_code}: the MCP endpoint refused the bearer token")
        self.status_code = status_code


def stdio_connector(command: str, env: dict[str, str]) -> tuple[Connector, str]:
    """(connector, description) for a server started as a child process speaking MCP on stdin/stdout."""
    try:
        argv = shlex.split(command or "")
    except ValueError as e:
        raise InvalidInput(f"RUNAI_MCP_COMMAND cannot be parsed as a command line ({e})") from None
    if not argv:
        raise InvalidInput("RUNAI_MCP_COMMAND is empty")
    child_env = {k: v for k, v in env.items() if v is not None}

    @asynccontextmanager
    async def connect():
        from mcp.client.stdio import StdioServerParameters, stdio_client

        with open(os.devnull, "w") as errlog:
            params = StdioServerParameters(command=argv[0], args=argv[1:], env=child_env)
            async with stdio_client(params, errlog=errlog) as streams:
                yield streams

    return connect, f"stdio:{argv[0]}"


def mcp_url(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise InvalidInput(f"RUNAI_MCP_URL {url!r} is not an http(s) URL")
    path = parts.path if parts.path not in ("", "/") else "/mcp"
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


def http_connector(url: str, token: str | None, *, timeout: float = 10.0) -> tuple[Connector, str]:
    """(connector, description) for a streamable-HTTP server; ``token`` is sent as a bearer token."""
    endpoint = mcp_url(url)
    headers = {"Authorization": f"Bearer {token}"} if token else {}

    @asynccontextmanager
    async def connect():
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        refused: list[int] = []  # the SDK turns an HTTP 401/403 into a generic error: the status is kept here

        async def on_response(response):
            if response.status_code in (401, 403):
                refused.append(response.status_code)

        async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(timeout, read=timeout * 3),
                                      event_hooks={"response": [on_response]}) as client:
            async with streamable_http_client(endpoint, http_client=client) as streams:
                try:
                    yield streams[0], streams[1]
                except Exception as e:
                    if refused:
                        raise Refused(refused[0]) from e
                    raise

    p = urlsplit(endpoint)
    return connect, f"{p.scheme}://{p.hostname}{':' + str(p.port) if p.port else ''}{p.path}"
