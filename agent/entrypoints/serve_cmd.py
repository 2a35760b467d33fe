"""``workload-diagnose serve [--host 127.0.0.1] [--port 8080] [--workers N] [--allowed-host NAME]…``: HTTP.

Settings come from the environment (``agent.service.config``). Without auth (``WD_AUTH`` / API tokens) the
server binds to loopback only, says so at start, and refuses a non-loopback ``--host``. Exit status: 2 for bad
settings, 1 when the port cannot be had (taken, by any process: ``agent.service.workers``), both one line before
anything listens; the "listening on" line comes once the port is the service's.
"""
from __future__ import annotations

import ipaddress
import sys
from pathlib import Path

import typer

from workload_diagnose.agent.entrypoints.errors import EXIT_USAGE, fail

# docs/service.md: in a checkout beside agent/, in an installed wheel at workload_diagnose/docs/ (setup.py ships it)
SERVICE_DOC = Path(__file__).resolve().parents[2] / "docs" / "service.md"


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def serve(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to bind (non-loopback needs auth configured)."),
    port: int = typer.Option(8080, "--port", help="TCP port."),
    workers: int = typer.Option(1, "--workers", help="Worker processes (each with its own Run:ai pool)."),
    allowed_host: list[str] = typer.Option([], "--allowed-host", metavar="NAME",
                                           help="A host name the service answers to besides loopback (Host and "
                                                "a browser's Origin); repeatable; adds to WD_ALLOWED_HOSTS."),
) -> None:
    """Serve the diagnosis over HTTP: POST /v1/diagnoses, the Alertmanager webhook (/v1/alertmanager), the Slack
    adapter (/v1/slack/*), /docs (offline), /healthz, /readyz, /metrics. One access-log line per request on
    stderr.

    Every endpoint, setting and status (docs/service.md, installed with the package): SERVICE_DOC

    Tier 2 reads the kubeconfig in KUBECONFIG (else the pod's service account); a credential plugin of its user
    (exec, auth-provider) is refused unless WD_KUBE_ALLOW_EXEC=1."""
    import dataclasses
    import os

    from workload_diagnose.agent.service.config import ConfigError, ServiceConfig, parse_hosts

    if not 0 < port < 65536:
        fail(f"--port must be between 1 and 65535, not {port}", EXIT_USAGE)
    if workers < 1:
        fail(f"--workers must be at least 1, not {workers}", EXIT_USAGE)
    try:
        config = ServiceConfig.from_env()
        hosts = parse_hosts([*config.allowed_hosts, *allowed_host])
    except ConfigError as e:
        fail(str(e), EXIT_USAGE)
    if hosts:  # the workers read their settings from the environment
        config = dataclasses.replace(config, allowed_hosts=hosts)
        os.environ["WD_ALLOWED_HOSTS"] = ",".join(hosts)
    if not config.authenticated and not is_loopback(host):
        fail(f"no auth is configured (WD_AUTH, WD_API_TOKENS_FILE): refusing to listen on {host}; configure "
             "API tokens or pass-through auth, or bind to 127.0.0.1", EXIT_USAGE)

    import uvicorn

    from workload_diagnose.agent.service import workers as procs
    from workload_diagnose.agent.service.access import configure
    from workload_diagnose.agent.service.connections import limits_for, server_config

    limits = limits_for(config)  # header and keep-alive timeouts, connections per worker (open files raised)
    per_worker = workers > 1 and procs.available()
    try:  # the port first: nothing is said to be listening before it is the service's
        sockets = (procs.group_sockets(workers, host, port) if per_worker
                   else [procs.listening_socket(host, port, limits.backlog)])
    except OSError as e:
        fail(str(e), 1)
    _announce(config, host, port)
    configure(config.access_log)
    common = dict(host=host, port=port, log_level="warning", access_log=False, server_header=False,
                  timeout_graceful_shutdown=10)
    if workers == 1:
        from workload_diagnose.agent.service.app import create_app

        from uvicorn.config import STARTUP_FAILURE

        import signal

        server = uvicorn.Server(server_config(create_app(config), limits, **common))
        # uvicorn shuts down gracefully on SIGTERM, then raises the signal again to the handler it found: this one
        # makes that a clean exit 0, as the supervisor of --workers N exits (Kubernetes stops pods with SIGTERM)
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        try:
            server.run(sockets=sockets)
        except KeyboardInterrupt:  # re-raised by uvicorn once it has shut down (as uvicorn.run)
            pass
        sys.exit(0 if server.started else STARTUP_FAILURE)
    if not per_worker:  # no per-worker sockets here: uvicorn's workers, sharing the one socket checked above
        from workload_diagnose.agent.service.connections import GuardedH11  # its limits from the environment, in each worker

        sockets[0].close()  # uvicorn binds its own (the port was free a moment ago)
        uvicorn.run(procs.APP, factory=True, workers=workers, http=GuardedH11, timeout_keep_alive=limits.keepalive_s,
                    backlog=limits.backlog, **common)
        sys.exit(0)
    options = {k: v for k, v in common.items() if k not in ("host", "port")}
    try:
        sys.exit(procs.serve_workers(workers, host, port, options, limits, sockets))
    except OSError as e:
        fail(str(e), 1)


serve.__doc__ = (serve.__doc__ or "").replace("SERVICE_DOC", str(SERVICE_DOC))  # where it is on this machine


def _announce(config, host: str, port: int) -> None:
    if not config.authenticated:
        typer.echo(f"workload-diagnose serve: no auth configured: listening on {host}:{port} (loopback) only",
                   err=True)
    else:
        typer.echo(f"workload-diagnose serve: auth {config.auth}, listening on {host}:{port}", err=True)
    from workload_diagnose.agent.service.upstream import unconfigured

    if (why := unconfigured(config)) is not None:
        typer.echo(f"workload-diagnose serve: {why}: /readyz answers 503", err=True)
