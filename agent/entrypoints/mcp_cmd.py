"""``workload-diagnose mcp [--transport stdio|streamable-http] [--port 8081]``: the MCP server (issue 13).

Tools ``diagnose_failed_workload`` and ``lifecycle_status`` (read-only; ``agent.service.mcp``). Run:ai settings
as for ``failed`` (``RUNAI_BASE_URL``, ``RUNAI_CLIENT_ID``/``_SECRET``), Kubernetes from ``KUBECONFIG``. The
streamable HTTP transport has no caller auth: it listens on 127.0.0.1 only (endpoint ``/mcp``); a port another
process holds is one line and exit 1, before anything is said to listen (as for ``serve``).
"""
from __future__ import annotations

import typer

from workload_diagnose.agent.entrypoints.errors import EXIT_USAGE, fail

BACKLOG = 128


def mcp(
    transport: str = typer.Option("stdio", "--transport", help="stdio or streamable-http."),
    port: int = typer.Option(8081, "--port", help="TCP port for streamable-http (on 127.0.0.1, path /mcp)."),
) -> None:
    """Serve the read-only diagnosis tools over the Model Context Protocol.

    Kubernetes from KUBECONFIG; a credential plugin of its user (exec, auth-provider) is refused unless
    WD_KUBE_ALLOW_EXEC=1."""
    if transport not in ("stdio", "streamable-http"):
        fail(f"--transport must be stdio or streamable-http, not {transport!r}", EXIT_USAGE)
    if not 0 < port < 65536:
        fail(f"--port must be between 1 and 65535, not {port}", EXIT_USAGE)
    from workload_diagnose.agent.service.config import ConfigError, ServiceConfig
    from workload_diagnose.agent.service.mcp import build_server

    try:
        server = build_server(ServiceConfig.from_env())
    except ConfigError as e:
        fail(str(e), EXIT_USAGE)
    if transport == "stdio":
        server.run("stdio")
        return
    from workload_diagnose.agent.service.workers import listening_socket

    try:  # the port first, as for serve: nothing is said to be listening before it is this server's
        sock = listening_socket("127.0.0.1", port, BACKLOG)
    except OSError as e:
        fail(str(e), 1)
    typer.echo(f"workload-diagnose mcp: streamable HTTP on http://127.0.0.1:{port}/mcp (no caller auth: "
               "loopback only)", err=True)
    _serve_http(server, sock, port)


def _serve_http(server, sock, port: int) -> None:
    """The SDK's streamable HTTP app (DNS-rebinding protection for loopback, as its own run() sets up) under
    uvicorn, on the socket already bound."""
    import uvicorn

    app = server.streamable_http_app(host="127.0.0.1")
    uv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    try:
        uv.run(sockets=[sock])
    except KeyboardInterrupt:  # re-raised by uvicorn once it has shut down
        pass
