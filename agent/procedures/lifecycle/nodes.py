"""The procedure's steps: one small function per step (``graph.py`` wires them).

Each node takes the State and the run's ``Runtime[Context]`` and returns only what it adds. The run's own read
decides where the procedure goes: a ``Command`` straight to the phase walk when no Job or RayJob exists (nothing
else to read: ``Submitted`` is pending).
"""
from __future__ import annotations

from typing import Any, Callable

from langgraph.runtime import Runtime
from langgraph.types import Command

from workload_diagnose.agent.model.findings import Call, Limitation
from workload_diagnose.agent.procedures.kit import layers as ph
from workload_diagnose.agent.procedures.lifecycle.context import Context
from workload_diagnose.agent.procedures.lifecycle.state import State, Step
from workload_diagnose.tools.kube import KubeError
from workload_diagnose.tools.runai import ApiAuthError, ApiUnavailable


class LifecycleAuthError(ApiAuthError):
    """The cluster refused the credentials (the one failure table: exit 4)."""


class LifecycleUnavailable(ApiUnavailable):
    """The Kubernetes API could not be reached (the one failure table: exit 3)."""


def _tracked(ctx: Context, step: int, fn: Callable[[], Any]) -> tuple[Any, dict]:
    """Run reads; return their value and the findings they add (calls, injections, a limitation on failure)."""
    r = ctx.kube
    n_calls, n_inj = len(r.calls), len(r.injections)
    err: KubeError | None = None
    value = None
    try:
        value = fn()
    except KubeError as e:
        err = e
    upd: dict = {"calls": [Call(step=step, tool="kubernetes", request=c.request, status=c.status)
                           for c in r.calls[n_calls:]],
                 "injections": list(r.injections[n_inj:])}
    if err is not None:
        upd["limitations"] = [Limitation(step=step, text=f"{err.kind}: {err.message}")]
    return (value, err), upd


def _fatal(err: KubeError) -> None:
    if err.kind in ("unauthorized", "forbidden"):
        raise LifecycleAuthError(f"the Kubernetes API refused the credentials ({err.message})")
    if err.kind == "unavailable":
        raise LifecycleUnavailable(f"the Kubernetes API could not be reached ({err.message})")


def _owned_by(obj: dict | None, kind: str, name: str, uid: str | None = None) -> bool:
    refs = ((obj or {}).get("metadata") or {}).get("ownerReferences") or []
    return any(r.get("kind") == kind and r.get("name") == name and (uid is None or r.get("uid") == uid)
               for r in refs)


# --------------------------------------------------------------------------------------------- steps
def resolve_run(state: State, runtime: Runtime[Context]) -> Command:
    """Submitted — find the run: a batch/v1 Job or a RayJob (``--kind auto``: a Job owned by a same-name RayJob,
    KubeRay's submitter, means the RayJob)."""
    req, ctx = state.request, runtime.context
    ctx.step("read the run")
    r = ctx.kube

    def reads():
        # the Job is read for --kind rayjob too: KubeRay's submitter Job has the RayJob's name
        job = r.job(req.namespace, req.name)
        rj = r.rayjob(req.namespace, req.name) if req.kind in ("auto", "rayjob") else None
        return job, rj

    (value, err), upd = _tracked(ctx, Step.RUN, reads)
    if err is not None:
        _fatal(err)
        upd["kind"] = None
        return Command(goto="walk_phases", update=upd)
    job, rj = value
    lims: list[Limitation] = []
    rj_uid = ((rj or {}).get("metadata") or {}).get("uid")
    submitter = job if rj is not None and _owned_by(job, "RayJob", req.name, rj_uid) else None
    if req.kind == "rayjob":
        kind = "RayJob" if rj is not None else None
    elif job is not None and rj is not None:
        if submitter is not None:
            kind = "RayJob"
        else:
            kind = "Job"
            lims.append(Limitation(step=Step.RUN, text=f"both a Job and a RayJob named {req.name} exist and the Job "
                                                       "is not the RayJob's submitter: the Job is shown (pass --kind "
                                                       "rayjob for the RayJob)"))
    else:
        kind = "Job" if job is not None else "RayJob" if rj is not None else None
    upd.update(kind=kind, job=job if kind == "Job" else None, rayjob=rj if kind == "RayJob" else None,
               submitter=submitter if kind == "RayJob" else None)
    if lims:
        upd["limitations"] = upd.get("limitations", []) + lims
    if kind is None:
        return Command(goto="walk_phases", update=upd)
    if kind == "RayJob":
        upd["raycluster_name"] = ((rj or {}).get("status") or {}).get("rayClusterName") or None
    return Command(goto="read_queue", update=upd)


def read_queue(state: State, runtime: Runtime[Context]) -> dict:
    """Kueue admission — the run's Workload(s), by the job-uid label, else by owner reference."""
    ctx = runtime.context
    ctx.step("read Kueue Workloads")
    obj = state.job if state.kind == "Job" else state.rayjob
    md = (obj or {}).get("metadata") or {}
    r = ctx.kube

    def reads():
        ver = r.kueue_version()  # discovery, once per reader: Kueue ≤0.13 serves v1beta1, newer v1beta2
        return ver, (r.workloads(state.request.namespace, md.get("uid"), state.request.name) if ver else [])

    (value, err), upd = _tracked(ctx, Step.QUEUE, reads)
    if err is None and value[0] is None:  # discovery: 404, Kueue is not installed
        upd["limitations"] = upd.get("limitations", []) + [Limitation(
            step=Step.QUEUE, text="the API group kueue.x-k8s.io is not served by this cluster (Kueue is not "
                                  "installed): no Workload can exist")]
        return {**upd, "workloads": [], "kueue_served": False}
    if err is not None and err.kind == "not_found":  # served group without the Workload resource
        return {**upd, "workloads": [], "kueue_version": r.kueue_version()}
    return {**upd, "workloads": None if err is not None else value[1],
            "kueue_version": value[0] if err is None else None}


def read_raycluster(state: State, runtime: Runtime[Context]) -> dict:
    """RayCluster — the cluster the RayJob names in ``status.rayClusterName``."""
    if state.kind != "RayJob" or not state.raycluster_name:
        return {}
    ctx = runtime.context
    ctx.step("read RayCluster")
    (rc, err), upd = _tracked(ctx, Step.RAYCLUSTER,
                              lambda: ctx.kube.raycluster(state.request.namespace, state.raycluster_name))
    return {**upd, "raycluster": rc}


def pod_selector(state: State) -> str:
    if state.kind == "RayJob":
        return f"ray.io/cluster={state.raycluster_name}"
    return f"job-name={state.request.name}"


def read_submitter_pods(state: State, runtime: Runtime[Context]) -> dict:
    """RayJob status — the pods of KubeRay's submitter Job (``job-name=``, owned by that Job): the pod that runs
    ``ray job submit``. Not one of the RayCluster's pods, so not in the pod layers."""
    sub = state.submitter
    if state.kind != "RayJob" or sub is None:
        return {}
    ctx = runtime.context
    ctx.step("list the submitter's pods")
    uid = ((sub.get("metadata") or {}).get("uid"))
    (pods, err), upd = _tracked(ctx, Step.PODS, lambda: ctx.kube.pods(state.request.namespace,
                                                                      f"job-name={state.request.name}"))
    if err is not None:
        return {**upd, "submitter_pods": None}
    own = [p for p in pods or [] if _owned_by(p, "Job", state.request.name, uid)]
    own.sort(key=lambda p: str((p.get("metadata") or {}).get("creationTimestamp") or ""))  # oldest attempt first
    return {**upd, "submitter_pods": own}


def read_pods(state: State, runtime: Runtime[Context]) -> dict:
    """Pod scheduling onwards — the pods (``job-name=`` for a Job, ``ray.io/cluster=`` for a RayJob)."""
    ctx = runtime.context
    if state.kind == "RayJob" and not state.raycluster_name:
        return {"pods": []}  # no RayCluster yet: no pods can belong to it
    ctx.step("list pods")
    (pods, err), upd = _tracked(ctx, Step.PODS, lambda: ctx.kube.pods(state.request.namespace, pod_selector(state)))
    if pods is not None and len(pods) >= 100:
        upd.setdefault("limitations", []).append(Limitation(step=Step.PODS, text="only the first 100 pods were read"))
    return {**upd, "pods": None if err is not None else pods}


def read_claims(state: State, runtime: Runtime[Context]) -> dict:
    """DRA allocation — every ResourceClaim the pods reference (none read when none is referenced)."""
    ctx = runtime.context
    snap = ph.Snapshot(name=state.request.name, namespace=state.request.namespace, now=state.request.now,
                       kind=state.kind, pods=state.pods)
    refs = [n for n in ph.claim_refs(snap) if not n.startswith("(")]
    if not refs:
        return {}
    ctx.step("read ResourceClaims")

    def reads():
        return {n: ctx.kube.resource_claim(state.request.namespace, n) for n in refs}

    (claims, err), upd = _tracked(ctx, Step.CLAIMS, reads)
    if err is not None:
        return {**upd, "claims_error": f"{err.kind}: {err.message}"}
    return {**upd, "claims": claims}


def read_events(state: State, runtime: Runtime[Context]) -> dict:
    """Events of each object read: the run, its Workloads, RayCluster, pods (bounded) and claims."""
    ctx = runtime.context
    ns = state.request.namespace
    targets: list[tuple[str, str]] = [(state.kind or "", state.request.name)]
    targets += [("Workload", (w.get("metadata") or {}).get("name")) for w in state.workloads or []]
    if state.raycluster is not None:
        targets.append(("RayCluster", state.raycluster_name or ""))
    pods = state.pods or []
    targets += [("Pod", (p.get("metadata") or {}).get("name")) for p in pods[: ctx.max_pods_with_events]]
    subs = (state.submitter_pods or [])[-2:]  # the newest attempts of the submitter (bounded)
    targets += [("Pod", (p.get("metadata") or {}).get("name")) for p in subs]
    targets += [("ResourceClaim", n) for n, c in state.claims.items() if c is not None]
    ctx.step("list events")
    events: dict[str, list[dict]] = {}
    upd: dict = {"calls": [], "injections": [], "limitations": []}
    for kind, name in targets:
        if not kind or not name:
            continue
        (evs, err), u = _tracked(ctx, Step.EVENTS, lambda k=kind, n=name: ctx.kube.events(ns, k, n))
        for key in upd:
            upd[key] += u.get(key, [])
        if err is None:
            events[f"{kind}/{name}"] = evs
    if len(pods) > ctx.max_pods_with_events:
        upd["limitations"].append(Limitation(step=Step.EVENTS, text=f"events were read for the first "
                                                                    f"{ctx.max_pods_with_events} of {len(pods)} pods"))
    return {**upd, "events": events}


def snapshot(state: State) -> ph.Snapshot:
    events = {}
    for key, evs in state.events.items():
        kind, _, name = key.partition("/")
        events[(kind, name)] = evs
    return ph.Snapshot(name=state.request.name, namespace=state.request.namespace, now=state.request.now,
                       kind=state.kind, job=state.job, rayjob=state.rayjob, workloads=state.workloads,
                       kueue_version=state.kueue_version, kueue_served=state.kueue_served,
                       submitter=state.submitter, submitter_pods=state.submitter_pods,
                       raycluster=state.raycluster, raycluster_name=state.raycluster_name, pods=state.pods,
                       claims=state.claims, claims_error=state.claims_error, events=events)


def walk_phases(state: State, runtime: Runtime[Context]) -> dict:
    """The walk — every phase in order, from what was read (pure rules: the ``phases`` package)."""
    return {"phases": ph.walk(snapshot(state))}


def profile(state: State, runtime: Runtime[Context]) -> dict:
    """--run-profile — GPU evidence from dcgm-exporter through the Kubernetes API (bounded)."""
    ctx = runtime.context
    if not state.request.run_profile:
        return {}
    from workload_diagnose.agent.procedures.lifecycle.profile import run_profile

    ctx.step("read the run profile")
    return run_profile(state, ctx)


def report(state: State, runtime: Runtime[Context]) -> dict:
    from workload_diagnose.agent.procedures.lifecycle.report import build_result

    return {"result": build_result(state)}
