"""``workload-diagnose health --cluster-id ID|NAME (-p PROJECT | --department D) [--lookback 7d] [--max-diagnoses
5] [-o json|yaml|text | --json] [-v] [--now T]``: what is happening in a project, and which workload needs
attention (the ``health`` procedure, ``agent/procedures/health``).

``--json`` prints the ``health --json`` object (``agent.model.health.HealthResult``). Exit status as ``failed``:
0 with a snapshot, 2 bad input, 3 the API cannot be reached, 4 credentials refused, 5 a question (the cluster or
the scope is missing).
"""
from __future__ import annotations

import sys
from typing import Optional

import typer

from workload_diagnose.agent.entrypoints.errors import EXIT_NEEDS_INPUT, fail, handled
from workload_diagnose.agent.entrypoints.output import dump, output_format, output_option
from workload_diagnose.agent.entrypoints.terminal import verbose_option
from workload_diagnose.tools.runai import registry as tier1_registry


def health(
    cluster_id: Optional[str] = typer.Option(None, "--cluster-id", "--cluster",
                                             help="The Run:ai cluster: its UUID or its exact name (required)."),
    project: Optional[str] = typer.Option(None, "--project", "-p", help="The project (or give --department)."),
    department: Optional[str] = typer.Option(None, "--department", help="The department, instead of a project."),
    lookback: str = typer.Option("7d", "--lookback", help="How far back a failure is recent: 90m, 36h, 7d, 2w."),
    max_diagnoses: int = typer.Option(5, "--max-diagnoses", help="Per-workload diagnoses at most (0-50); the rest "
                                                                  "are listed with the command that answers them."),
    now: Optional[str] = typer.Option(None, "--now", help="Pin the clock (ISO 8601) for replays."),
    runai_url: Optional[str] = typer.Option(None, "--runai-url", help="Run:ai control plane URL "
                                                                     "(default: RUNAI_BASE_URL)."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object (as -o json)."),
    output: Optional[str] = output_option(),
    timeout: str = typer.Option("60", "--timeout", help="Stop every read after this many seconds; what was not "
                                                        "read is stated."),
    ca_file: Optional[str] = typer.Option(None, "--ca-file", help="PEM CA bundle for TLS (default: SSL_CERT_FILE, "
                                                                  "REQUESTS_CA_BUNDLE, else certifi)."),
    tier1: str = typer.Option("rest", "--tier1", metavar=tier1_registry.metavar(),
                              help=tier1_registry.help_text() + "."),
    verbose: bool = verbose_option(),
) -> None:
    """Summarise a Run:ai project's (or department's) health: the workloads by phase, which workload needs
    attention and the command that answers it, recent failures by category, quota per node pool (credentials:
    RUNAI_CLIENT_ID / RUNAI_CLIENT_SECRET)."""
    from workload_diagnose.agent.procedures.health.state import scope_fields

    fmt = output_format(output, as_json)
    extra = handled(lambda: scope_fields(project, department, max_diagnoses))
    if fmt == "text" and not (cluster_id and (project or department)):
        missing = [f for f, v in (("--cluster-id", cluster_id), ("--project or --department",
                                                                 project or department)) if not v]
        fail(f"missing {' and '.join(missing)}: which project (or department) on which cluster?", EXIT_NEEDS_INPUT)
    from workload_diagnose.agent.api import run_procedure
    from workload_diagnose.agent.entrypoints.errors import result_exit_code
    from workload_diagnose.agent.entrypoints.terminal import Progress, print_report, request_printer
    from workload_diagnose.agent.model.request import is_uuid

    by_name = bool(cluster_id) and not is_uuid(cluster_id)
    progress = Progress("listing workloads", quiet=fmt != "text")
    try:
        result = handled(lambda: run_procedure(
            "health", cluster_id=None if by_name else cluster_id, cluster_name=cluster_id if by_name else None,
            project=project, lookback=lookback, now=now, runai_url=runai_url, use_kube=False,
            progress=progress.update, timeout=timeout, ca_file=ca_file, tier1=tier1, extra=extra,
            on_invocation=request_printer(progress.echo) if verbose else None))
    finally:
        progress.stop()
    if fmt != "text":
        sys.stdout.write(dump(result.model_dump(mode="json"), fmt))
    else:
        print_report(result.report)
    code = result_exit_code(result.route)
    if code:
        raise typer.Exit(code)

