"""The embeddable Python API: one call, one DiagnosisResult. Used by the CLI, the eval runner and bots."""
from __future__ import annotations

import os
from typing import Any, Callable

import httpx

from workload_diagnose.agent.model.settings import Settings, make_kube
from workload_diagnose.agent.model.limits import Limits
from workload_diagnose.agent.model.request import DiagnosisRequest, build_request, is_complete
from workload_diagnose.agent.model.result import DiagnosisResult
from workload_diagnose.agent.sources import open_runai, source_settings
from workload_diagnose.tools.deadline import Deadline, parse_timeout
from workload_diagnose.tools.runai import ApiAuthError, ApiUnavailable, InvalidInput, RunaiSource, check_name


__all__ = ["diagnose", "run_procedure", "run_graph", "cluster_id_for", "ApiAuthError", "ApiUnavailable",
           "InvalidInput", "DiagnosisRequest", "DiagnosisResult"]


def run_graph(request: DiagnosisRequest, runai: RunaiSource, kube: Any = None, kube_unavailable: str | None = None,
              progress: Callable[[str], None] | None = None, limits: Limits | None = None, *,
              deadline: Deadline | None = None) -> DiagnosisResult:
    """Run the Run:ai procedure that takes this request's type (``DiagnosisRequest``: the failed-workload one) with
    the given sources (``deadline``: the one of the source's reads, which then bounds the Tier-2 Kubernetes reads as
    well). The runner behind every entry point: ``agent.procedures.run`` with the kit's ``Context``."""
    from workload_diagnose.agent.procedures import for_request, run
    from workload_diagnose.agent.procedures.kit.context import Context

    ctx = Context(runai=runai, kube=kube, kube_unavailable=kube_unavailable, progress=progress,
                  limits=limits or Limits(), deadline=deadline)
    return run(for_request(request).name, request, ctx)


def diagnose(*, cluster_id: str | None = None, workload_id: str | None = None, workload_name: str | None = None,
             project: str | None = None, intent: str = "terminal", lookback: str = "7d", now: str | None = None,
             runai_url: str | None = None, client_id: str | None = None, client_secret: str | None = None,
             kubeconfig: str | None = None, use_kube: bool = True, kube_reader: Any = None,
             transport: httpx.BaseTransport | None = None, retry_sleep: Callable[[float], None] | None = None,
             progress: Callable[[str], None] | None = None, llm: Any = None, timeout: float | str = 60.0,
             ca_file: str | None = None, limits: Limits | None = None,
             on_invocation: Callable[[Any, float], None] | None = None, tier1: str = "rest",
             source: RunaiSource | None = None, cluster_name: str | None = None) -> DiagnosisResult:
    """Diagnose one workload. Raises InvalidInput, ApiUnavailable or ApiAuthError; anything else is a result.

    ``timeout`` (seconds) is the one deadline of every Run:ai read of the diagnosis (and of its Tier-2 Kubernetes
    reads, through ``KubeReader.bounded_by``): when it is reached, reads in progress are abandoned and what was
    not read is a stated limitation (exit 3 when it was the workload itself).
    ``ca_file`` is a PEM CA bundle for TLS (else SSL_CERT_FILE / REQUESTS_CA_BUNDLE, else certifi's); plain
    ``http://`` to a host that is not loopback is allowed (``tools.transport.plain_http_warning`` says why not to:
    the CLI prints it). Ctrl-C
    (in the main thread) cancels every read at once and raises KeyboardInterrupt.
    ``llm`` (optional, any langchain-core chat model) only adds a validated ``explanation``; it never changes
    the outcome, category, evidence or recommendations. ``on_invocation(invocation, elapsed_ms)`` is called after
    each Run:ai read (the ``tools.base.Invocation`` that ``tool_calls`` cite; ``failed -v`` prints them).
    ``tier1`` picks the Run:ai source (a name registered in ``tools.runai.registry``: ``rest`` or ``mcp``, the
    official Run:ai MCP server); ``source`` (optional) is a ready :class:`tools.runai.RunaiSource` used instead
    (the caller closes it). ``cluster_name``: the cluster by its exact name instead of its id (``run_procedure``).
    """
    return run_procedure("runai_failed", **locals())  # (locals: exactly the keywords above)


def run_procedure(name: str, *, cluster_id: str | None = None, workload_id: str | None = None,
                  workload_name: str | None = None, project: str | None = None, intent: str = "terminal",
                  lookback: str = "7d", now: str | None = None, runai_url: str | None = None,
                  client_id: str | None = None, client_secret: str | None = None, kubeconfig: str | None = None,
                  use_kube: bool = True, kube_reader: Any = None, transport: httpx.BaseTransport | None = None,
                  retry_sleep: Callable[[float], None] | None = None, progress: Callable[[str], None] | None = None,
                  llm: Any = None, timeout: float | str = 60.0, ca_file: str | None = None,
                  limits: Limits | None = None, on_invocation: Callable[[Any, float], None] | None = None,
                  tier1: str = "rest", source: RunaiSource | None = None, cluster_name: str | None = None,
                  extra: dict[str, Any] | None = None) -> Any:
    """``diagnose`` for any registered runai procedure (``agent.procedures.specs()``): the same keywords, the same
    errors; returns the procedure's result. Every runai command, and the eval runner, run procedures through it.
    ``extra``: the fields a procedure's own request adds (e.g. the health snapshot's ``department``), already
    checked by the caller (its ``params`` function's rules).

    ``cluster_name`` (instead of ``cluster_id``): the cluster by its exact name, resolved to its id through the
    source before anything else is read (``cluster_id_for``: none or several is an ``InvalidInput`` line listing
    what exists, never a guess). An incomplete request reads nothing: the name then stands for the cluster."""
    from workload_diagnose.agent.procedures import graph, spec

    proc = spec(name)
    if proc.kind != "runai":
        raise InvalidInput(f"procedure {name!r} does not take a Run:ai request")
    if source is None and proc.needs:
        from workload_diagnose.agent.sources import check_tier1
        from workload_diagnose.tools.runai.registry import require

        for capability in proc.needs:
            require(check_tier1(tier1), capability, f"answer `{proc.command.name if proc.command else name}`")
    try:
        seconds = parse_timeout(timeout)
    except ValueError as e:
        raise InvalidInput(str(e)) from None
    if cluster_name and cluster_id:
        raise InvalidInput("give a cluster id or a cluster name, not both")
    if cluster_name:
        check_name(cluster_name, "cluster name")
    def request(cid: str | None) -> Any:
        base = build_request(cluster_id=cid, workload_id=workload_id, workload_name=workload_name, project=project,
                             intent=intent, lookback=lookback, now=now)
        return proc.input_type.model_validate({**dict(base), **extra}) if extra else proc.as_input(base)

    if extra:  # what is complete is the procedure's own request's rule (a scope instead of a workload)
        resolve = bool(cluster_name) and request(None).model_copy(update={"cluster_id": cluster_name}).complete
    else:
        resolve = bool(cluster_name) and is_complete(cluster_name, workload_id, workload_name, project)
    req = request(cluster_id or (None if resolve else cluster_name))
    settings = Settings.from_env()
    url, cid, secret = settings.runai(runai_url, client_id, client_secret)
    limits = limits or Limits()
    graph(name)  # compiled (and its modules imported) before the clock of the deadline starts
    deadline = Deadline(seconds)
    runai = source if source is not None else _open_source(
        settings, tier1, runai_url=runai_url, url=url, client_id=cid, client_secret=secret,
        needed=req.complete or resolve,
        transport=transport, retry_sleep=retry_sleep, ca_file=ca_file, limits=limits, deadline=deadline,
        on_invocation=on_invocation)
    if kube_reader is not None:
        kube, why = kube_reader, None
    else:
        kube, why = make_kube(kubeconfig, use_kube, settings)
    try:
        with deadline.interruptible():
            if resolve:
                req = req.model_copy(update={"cluster_id": cluster_id_for(runai, cluster_name or "")})
            result = run_graph(req, runai, kube, why, progress, limits, deadline=deadline)
    finally:
        if source is None:
            runai.close()
    if llm is not None:
        from workload_diagnose.agent.llm import explain

        result.explanation = explain(result, llm)
    return result


def cluster_id_for(source: RunaiSource, name: str) -> str:
    """A cluster NAME → its id, resolved exactly as the chat resolves one (``tools.runai.clusters``: the exact name
    among the clusters the source lists). None or several, or a list that cannot be read, is an ``InvalidInput``
    line saying what exists; the unreachable API is ``ApiUnavailable``. Never a guess."""
    from workload_diagnose.tools.runai.clusters import resolve_cluster_name

    match = resolve_cluster_name(source, name)
    if match.cluster_id:
        return match.cluster_id
    if match.error:
        raise InvalidInput(f"cannot look up the cluster named {name!r} ({match.error}): give the cluster's UUID")
    if match.ambiguous:
        ids = ", ".join(c.uuid for c in match.matches)
        raise InvalidInput(f"{len(match.matches)} clusters are named {name!r} ({ids}): give the cluster's UUID")
    known = ", ".join(match.known) if match.known else "none"
    raise InvalidInput(f"no cluster is named exactly {name!r} (clusters you can see: {known})")


def _open_source(settings: Settings, tier1: str, *, runai_url: str | None, url: str | None, client_id: str | None,
                 client_secret: str | None, needed: bool, transport: Any, retry_sleep: Any, ca_file: str | None,
                 limits: Limits, deadline: Deadline, on_invocation: Any = None) -> RunaiSource:
    """The Tier-1 source of one diagnosis or chat turn, with every bound of a Run:ai read (``agent.sources``)."""
    return open_runai(tier1, runai_settings(settings, runai_url=runai_url, url=url, client_id=client_id,
                                              client_secret=client_secret, needed=needed, transport=transport,
                                              retry_sleep=retry_sleep, ca_file=ca_file, limits=limits,
                                              deadline=deadline, on_invocation=on_invocation))


def runai_settings(settings: Settings, *, runai_url: str | None, url: str | None, client_id: str | None,
                     client_secret: str | None, needed: bool, transport: Any, retry_sleep: Any,
                     ca_file: str | None, limits: Limits, deadline: Deadline, on_invocation: Any = None) -> Any:
    """The settings a Tier-1 source of one diagnosis or chat turn is built from (``agent.sources``); a CA file that
    does not exist is bad input."""
    ca_path, ca_origin = settings.ca_file(ca_file)
    if ca_path is not None and not os.path.isfile(ca_path):
        raise InvalidInput(f"{ca_origin} {ca_path}: no such file")
    return source_settings(settings, url=url, client_id=client_id, client_secret=client_secret, needed=needed,
                           limits=limits, deadline=deadline, ca_file=ca_path, transport=transport, sleep=retry_sleep,
                           url_origin="--runai-url" if runai_url else "RUNAI_BASE_URL", on_invocation=on_invocation)
