"""``workload-diagnose triage --cluster-id ID|NAME [-p P | --department D] [--since 24h] [-o json|yaml|text |
--json | --html FILE]``: every failed workload of a cluster, project or department in one concurrent pass.

``--json`` prints one object: ``{cluster_id, window, counts, routed, workloads: [{workload, outcome, category,
route, headline, recurrence}], clusters: [{kind, key, workloads, categories, evidence}], actions, limitations,
tool_calls}``; each workload's verdict is what ``failed --json`` says for it. ``--html FILE`` writes a
self-contained page (no external resource). A progress bar is drawn on a terminal (stderr), never in --json.
Exit status as ``failed``: 0 with a result, 2 bad input, 3 the API cannot be reached, 4 credentials refused.
"""
from __future__ import annotations

import os
import sys
from typing import Optional

import typer

from workload_diagnose.agent.entrypoints.errors import EXIT_USAGE, fail
from workload_diagnose.agent.entrypoints.output import dump, output_format, output_option
from workload_diagnose.agent.entrypoints.terminal import print_report, request_printer, verbose_option

UI_URL_ENV = "WD_RUNAI_UI_URL"


def _columns() -> int | None:
    """The terminal's width when stdout is one (the table's headline column is cut to fit), else None."""
    import shutil

    return shutil.get_terminal_size((0, 0)).columns or None if sys.stdout.isatty() else None


def triage(
    cluster_id: Optional[str] = typer.Option(None, "--cluster-id", "--cluster",
                                             help="The Run:ai cluster: its UUID or its exact name (required)."),
    project: Optional[str] = typer.Option(None, "--project", "-p", help="Only this project."),
    department: Optional[str] = typer.Option(None, "--department", help="Only this department."),
    since: str = typer.Option("24h", "--since", help="Terminal failures whose phase changed in this window "
                                                     "(90m, 24h, 7d)."),
    lookback: str = typer.Option("7d", "--lookback", help="Each diagnosis's history window (as failed)."),
    now: Optional[str] = typer.Option(None, "--now", help="Pin the clock (ISO 8601) for replays."),
    runai_url: Optional[str] = typer.Option(None, "--runai-url", help="Run:ai control plane URL "
                                                                     "(default: RUNAI_BASE_URL)."),
    kubeconfig: Optional[str] = typer.Option(None, "--kubeconfig", help="Read-only kubeconfig for Tier 2."),
    no_kube: bool = typer.Option(False, "--no-kube", help="Do not use Kubernetes (Tier 2) at all."),
    concurrency: int = typer.Option(16, "--concurrency", help="Diagnoses in flight at once (1-256)."),
    processes: Optional[int] = typer.Option(None, "--processes", show_default="auto: 2 on 2+ cores from 500 "
                                            "workloads, else 1", help="Processes that diagnose (1-64): this one and "
                                            "N-1 spawned workers, for more CPU cores on a large fleet."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object (as -o json)."),
    output: Optional[str] = output_option(),
    html: Optional[str] = typer.Option(None, "--html", help="Write a self-contained HTML page to FILE."),
    ui_url: Optional[str] = typer.Option(None, "--ui-url", metavar="TEMPLATE",
                                         help="Link each workload of the HTML page to the Run:ai UI: a URL with "
                                              "{workload_id}, {cluster_id} and/or {project} (default: "
                                              "WD_RUNAI_UI_URL)."),
    verbose: bool = verbose_option(),
) -> None:
    """Triage every failed workload of a cluster (or a project / department) since a point in time."""
    from workload_diagnose.agent.entrypoints.errors import handled
    from workload_diagnose.agent.model.request import is_uuid

    fmt = output_format(output, as_json)
    if fmt != "text" and html:
        fail(f"{'--json' if as_json else '-o ' + fmt} and --html cannot be used together", EXIT_USAGE)
    if kubeconfig and no_kube:
        fail("--kubeconfig and --no-kube cannot be used together", EXIT_USAGE)
    from workload_diagnose.agent.triage import triage as run_triage
    from workload_diagnose.agent.triage.html import ui_link_template

    template = handled(lambda: ui_link_template(ui_url if ui_url is not None else os.environ.get(UI_URL_ENV)))
    _calm_gc()
    bar = _Bar() if fmt == "text" and sys.stderr.isatty() else None
    by_name = bool(cluster_id) and not is_uuid(cluster_id)
    echo = bar.echo if bar else (lambda line: typer.echo(line, err=True))
    try:
        result = handled(lambda: run_triage(
            cluster_id=None if by_name else cluster_id, cluster_name=cluster_id if by_name else None,
            project=project, department=department, since=since, lookback=lookback, now=now,
            runai_url=runai_url, kubeconfig=kubeconfig, use_kube=not no_kube, concurrency=concurrency,
            processes=processes, on_invocation=request_printer(echo) if verbose else None,
            on_total=bar.total if bar else None, on_done=bar.advance if bar else None))
    finally:
        if bar is not None:
            bar.stop()
    if html:
        from pathlib import Path

        from workload_diagnose.agent.triage.html import render_html

        try:
            Path(html).write_text(render_html(result, ui_url=template), encoding="utf-8")
        except OSError as e:
            fail(f"cannot write {html}: {e.strerror or e}", EXIT_USAGE)
        typer.echo(f"wrote {html}: {len(result.workloads)} workload(s)", err=True)
    elif fmt != "text":
        sys.stdout.write(dump(result.model_dump(mode="json"), fmt))
    else:
        from workload_diagnose.agent.triage.report import render

        print_report(render(result, columns=_columns()))


def _calm_gc() -> None:
    """A triage keeps thousands of results alive: move what is loaded out of the collector's sight and collect
    less often (measured: about 5 % of the CPU of a 400-workload triage; a CLI process, so it is ours to tune)."""
    import gc

    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 20, 100)


class _Bar:
    """A rich progress bar on stderr: listing first, then one step per diagnosed workload."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self._p = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                           console=Console(stderr=True), transient=False)
        self._task = self._p.add_task("listing workloads…", total=None)
        self._p.start()

    def total(self, n: int) -> None:
        self._p.update(self._task, description="diagnosing", total=n, completed=0)

    def advance(self, _item) -> None:
        self._p.advance(self._task)

    def echo(self, line: str) -> None:
        """A ``-v`` request line above the bar (never torn by it)."""
        self._p.console.print(line, highlight=False, markup=False, soft_wrap=True)

    def stop(self) -> None:
        self._p.stop()
