"""``workload-diagnose lifecycle NAME --namespace NS ...``: the lifecycle-layer view of a Kueue / KubeRay run.

A public contract (issue 11)::

    workload-diagnose lifecycle NAME --namespace NS [--kind auto|job|rayjob] [--kubeconfig PATH] [--context NAME]
        [--run-profile] [--watch [--interval 2s] [--max-iterations N]] [--json]

Exit status: 0 whenever the result is produced (also when no Job/RayJob exists), 2 bad input, 3 API unreachable,
4 credentials refused, 130 a ``--watch`` stopped with Ctrl-C. Heavy modules are imported inside the command so
``--help`` stays fast. Given a Pod's name (no Job or RayJob has it), the command names the Job or RayJob that owns
the pod; ``--watch`` says why it stopped.
"""
from __future__ import annotations

import re
import sys
import time
from typing import Optional

import typer

from workload_diagnose.agent.entrypoints.errors import EXIT_AUTH, EXIT_UNREACHABLE, EXIT_USAGE, fail
from workload_diagnose.agent.entrypoints.output import dump, output_format, output_option
from workload_diagnose.agent.entrypoints.terminal import allow_kube_exec, allow_kube_exec_option, styled, verbose_option

_DNS = re.compile(r"^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$")
_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
_INTERVAL = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m)?\s*$")
MAX_INTERVAL_S = 3600.0
EXIT_INTERRUPTED = 130


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
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object (one per refresh with --watch; as "
                                                       "-o json)."),
    output: Optional[str] = output_option(),
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
    fmt = output_format(output, as_json)

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
    why = ""
    try:
        while True:
            iterations += 1
            req = LifecycleRequest(name=name, namespace=namespace, kind=kind, run_profile=run_profile)
            seen = len(reader.calls)
            try:
                result = refresh(req, reader, metrics=metrics)
                owner = _pod_owner(reader, namespace, name) if result.run.kind is None and iterations == 1 else None
            except LifecycleAuthError as e:
                _err(str(e), EXIT_AUTH)
            except LifecycleUnavailable as e:
                _err(str(e), EXIT_UNREACHABLE)
            finally:
                if verbose:
                    _print_requests(reader.calls[seen:])
            _emit(result, fmt=fmt, watch=watch, iteration=iterations, every=every)
            if owner is not None:
                _point_to(owner, name, namespace, fmt)
            why = _watch_over(result)
            if not why and max_iterations is not None and iterations >= max_iterations:
                why = f"{iterations} refresh(es) done (--max-iterations)"
            if not watch or why:
                break
            time.sleep(every)
    except KeyboardInterrupt:
        if fmt == "text":
            sys.stdout.write("\n")
        typer.echo("workload-diagnose: watch stopped (Ctrl-C)", err=True)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    finally:
        reader.close()
        if metrics is not None:
            metrics.close()
    if watch:
        typer.echo(f"workload-diagnose: watch stopped: {why}", err=True)


def _pod_owner(reader, namespace: str, name: str) -> tuple[str, str] | None:
    """When ``name`` is a Pod's: the Job or RayJob that owns it (through its Job or RayCluster), else the nearest
    owner it has; None when no such pod exists. Every read goes through the same read-only reader."""
    from workload_diagnose.tools.kube import KubeError

    try:
        pod = reader.get_optional(f"/api/v1/namespaces/{namespace}/pods/{name}", f"read Pod {namespace}/{name}")
    except KubeError:
        return None
    if pod is None:
        return None
    owner = _controller(pod) or _labelled(pod)
    for _ in range(2):  # a Job or a RayCluster may itself be a RayJob's
        if owner is None or owner[0] not in ("Job", "RayCluster"):
            break
        try:
            obj = (reader.job if owner[0] == "Job" else reader.raycluster)(namespace, owner[1])
        except (KubeError, ValueError):
            break
        parent = _controller(obj) if obj else None
        if parent is None or parent[0] != "RayJob":
            break
        owner = parent
    return owner or ("Pod", name)


def _controller(obj: dict) -> tuple[str, str] | None:
    refs = (obj.get("metadata") or {}).get("ownerReferences") or []
    ref = next((r for r in refs if r.get("controller")), refs[0] if refs else None)
    if not ref or not ref.get("kind") or not _DNS.match(str(ref.get("name") or "")):
        return None
    return str(ref["kind"]), str(ref["name"])


def _labelled(pod: dict) -> tuple[str, str] | None:
    """The owner a pod's labels name when it has no owner reference (the Job controller's and KubeRay's labels)."""
    labels = (pod.get("metadata") or {}).get("labels") or {}
    for key, kind in (("batch.kubernetes.io/job-name", "Job"), ("job-name", "Job"), ("ray.io/cluster", "RayCluster")):
        if _DNS.match(str(labels.get(key) or "")):
            return kind, str(labels[key])
    return None


def _point_to(owner: tuple[str, str], name: str, namespace: str, fmt: str) -> None:
    kind, owner_name = owner
    if kind in ("Job", "RayJob"):
        line = (f"{name} is a Pod of {kind} {owner_name}: workload-diagnose lifecycle {owner_name} -n {namespace}"
                f"{' --kind rayjob' if kind == 'RayJob' else ''}")
    elif kind == "Pod":
        line = f"{name} is a Pod that no controller owns: the lifecycle view walks a Job or a RayJob"
    else:
        line = f"{name} is a Pod of {kind} {owner_name}, not of a Job or RayJob: the lifecycle view walks those"
    if fmt == "text":
        sys.stdout.write(f"\n{line}\n")
    else:
        typer.echo(f"workload-diagnose: {line}", err=True)


def _print_requests(calls) -> None:
    from workload_diagnose.agent.entrypoints.terminal import request_line

    for c in calls:
        typer.echo(request_line(c.request, c.status, c.ms), err=True)


def _watch_over(result) -> str:
    """Why watching ends now ('' while it goes on): no such run, every phase done, or the first incomplete phase
    failed (a warning: nothing later can progress until it is fixed)."""
    if result.run.kind is None:
        return f"there is no Job or RayJob {result.run.namespace}/{result.run.name}"
    if result.first_incomplete is None:
        return "every lifecycle phase is done"
    first = next(p for p in result.phases if p.name == result.first_incomplete)
    if first.status == "warning":
        return f"{first.name} failed ({first.owner} owns it: {first.next_action or 'see the report'})"
    return ""


def _emit(result, *, fmt: str, watch: bool, iteration: int, every: float) -> None:
    if fmt != "text":
        sys.stdout.write(dump(result.model_dump(mode="json"), fmt, compact=watch))
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
