"""``workload-diagnose lifecycle NAME --namespace NS ...``: the lifecycle-layer view of a Kueue / KubeRay run.

A public contract (issue 11)::

    workload-diagnose lifecycle NAME --namespace NS [--kind auto|job|rayjob] [--kubeconfig PATH] [--context NAME]
        [--run-profile] [--watch [--interval 2s] [--max-iterations N]] [--json]

Exit status: 0 whenever the result is produced (also when no Job/RayJob exists), 2 bad input, 3 API unreachable,
4 credentials refused. Heavy modules are imported inside the command so ``--help`` stays fast.
"""
from __future__ import annotations

import json
import re
import sys
import time
from typing import Optional

import typer

from workload_diagnose.agent.entrypoints.errors import EXIT_AUTH, EXIT_UNREACHABLE, EXIT_USAGE, fail
from workload_diagnose.agent.entrypoints.terminal import allow_kube_exec, allow_kube_exec_option, styled, verbose_option

_DNS = re.compile(r"^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$")
_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
_INTERVAL = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m)?\s*$")
MAX_INTERVAL_S = 3600.0


_err = fail


def parse_interval(text: str) -> float:
    """``2s``, ``500ms``, ``1m`` or plain seconds → seconds; must be > 0 (and at most an hour)."""
    m = _INTERVAL.match(text or "")
    if not m:
        raise ValueError(f"--interval {text!r} is not a duration like 2s, 500ms or 1m")
    value = float(m.group(1)) * {"ms": 0.001, "s": 1.0, "m": 60.0, None: 1.0}[m.group(2)]
    if value <= 0:
        raise ValueError(f"--interval must be greater than 0, not {text!r}")
    if value > MAX_INTERVAL_S:
        raise ValueError(f"--interval {text!r} is longer than an hour")
    return value


def lifecycle(
    name: str = typer.Argument(..., help="The Job or RayJob name."),
    namespace: str = typer.Option(..., "--namespace", "-n", help="Its namespace."),
    kind: str = typer.Option("auto", "--kind", help="auto, job or rayjob (auto: a Job owned by a same-name "
                                                    "RayJob means the RayJob)."),
    kubeconfig: Optional[str] = typer.Option(None, "--kubeconfig", help="Read-only kubeconfig (default: "
                                                                        "$KUBECONFIG or ~/.kube/config)."),
    context: Optional[str] = typer.Option(None, "--context", help="The kubeconfig context to use."),
    allow_exec: bool = allow_kube_exec_option(),
    run_profile: bool = typer.Option(False, "--run-profile", help="Add GPU evidence from dcgm-exporter "
                                                                   "(read through the Kubernetes API)."),
    watch: bool = typer.Option(False, "--watch", help="Refresh in place until the first incomplete phase fails "
                                                      "or every phase is done (Ctrl-C stops)."),
    interval: str = typer.Option("2s", "--interval", help="Refresh interval with --watch (> 0)."),
    max_iterations: Optional[int] = typer.Option(None, "--max-iterations", help="Stop --watch after N refreshes."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object (one per refresh with --watch)."),
    verbose: bool = verbose_option(),
) -> None:
    """Walk the lifecycle layers of one Job or RayJob and name the first one that is not done, its owner and the
    next action (read-only)."""
    if not _DNS.match(name or ""):
        _err(f"run name {name!r} is not a Kubernetes object name (lower-case letters, digits, '-' and '.')",
             EXIT_USAGE)
    if not _LABEL.match(namespace or ""):
        _err(f"--namespace {namespace!r} is not a Kubernetes namespace name", EXIT_USAGE)
    if kind not in ("auto", "job", "rayjob"):
        _err(f"--kind must be auto, job or rayjob, not {kind!r}", EXIT_USAGE)
    try:
        every = parse_interval(interval)
    except ValueError as e:
        _err(str(e), EXIT_USAGE)
    if max_iterations is not None and max_iterations < 1:
        _err(f"--max-iterations must be at least 1, not {max_iterations}", EXIT_USAGE)

    from workload_diagnose.agent.procedures.lifecycle.api import LifecycleAuthError, LifecycleRequest, LifecycleUnavailable, refresh
    from workload_diagnose.tools.kube import KubeError
    from workload_diagnose.tools.kube.lifecycle import LifecycleReader

    allow_kube_exec(allow_exec)
    try:
        reader = LifecycleReader.from_kubeconfig(kubeconfig, context)
    except KubeError as e:
        _err(e.message, EXIT_USAGE)
    metrics = None
    if run_profile:
        from workload_diagnose.tools.kube.metrics import DcgmProfileReader

        metrics = DcgmProfileReader.for_reader(reader)
    iterations = 0
    try:
        while True:
            iterations += 1
            req = LifecycleRequest(name=name, namespace=namespace, kind=kind, run_profile=run_profile)
            try:
                result = refresh(req, reader, metrics=metrics)
            except LifecycleAuthError as e:
                _err(str(e), EXIT_AUTH)
            except LifecycleUnavailable as e:
                _err(str(e), EXIT_UNREACHABLE)
            finally:
                if verbose:
                    _print_requests(reader.calls)
            _emit(result, as_json=as_json, watch=watch, iteration=iterations, every=every)
            if not watch or _watch_over(result) or (max_iterations is not None and iterations >= max_iterations):
                break
            time.sleep(every)
    except KeyboardInterrupt:
        if not as_json:
            sys.stdout.write("\n")
        typer.echo("workload-diagnose: watch stopped (Ctrl-C)", err=True)
    finally:
        reader.close()
        if metrics is not None:
            metrics.close()


def _print_requests(calls) -> None:
    from workload_diagnose.agent.entrypoints.terminal import request_line

    for c in calls:
        typer.echo(request_line(c.request, c.status, c.ms), err=True)


def _watch_over(result) -> bool:
    """Stop watching once every phase is done or the first incomplete phase failed (a warning)."""
    if result.first_incomplete is None:
        return True
    first = next(p for p in result.phases if p.name == result.first_incomplete)
    return first.status == "warning"


def _emit(result, *, as_json: bool, watch: bool, iteration: int, every: float) -> None:
    if as_json:
        data = result.model_dump(mode="json")
        sys.stdout.write((json.dumps(data) if watch else json.dumps(data, indent=2)) + "\n")
        sys.stdout.flush()
        return
    text = result.report
    if watch:
        header = f"# refresh {iteration}, every {every:g}s (Ctrl-C to stop)\n"
        if styled(sys.stdout):  # a terminal, and not NO_COLOR (no escape sequence at all then)
            sys.stdout.write("\x1b[H\x1b[2J")  # refresh in place
        text = header + text
    sys.stdout.write(text)
    sys.stdout.flush()
