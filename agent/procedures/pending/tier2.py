"""Tier 2 (read-only Kubernetes), only when no Run:ai message names why the workload waits: the workload's own pods
(``kubectl describe pod``), their ``PodScheduled`` condition and their events (``kubectl get events``), read in the
namespace the workload reports (``runai-<project>`` only when it reports none, said so). A pod is used only if it
is the pod Run:ai reported (``kit.pod_identity``).

The lifecycle view's scheduling layer (``kit.layers.pod_scheduling``) is walked over the pods read, and a pod queued
by Kueue (``kueue.x-k8s.io/queue-name``) is pointed to the lifecycle view, which walks the Kueue admission layer.
"""
from __future__ import annotations

from workload_diagnose.agent.evidence import kube as kev
from workload_diagnose.agent.evidence.common import quote
from workload_diagnose.agent.evidence.rules import about_the_workload
from workload_diagnose.agent.evidence.waits import wait_reasons
from workload_diagnose.agent.model.limits import Limits
from workload_diagnose.agent.model.result import EvidenceLine
from workload_diagnose.agent.procedures.kit import evidence as ev
from workload_diagnose.agent.procedures.kit import layers as ph
from workload_diagnose.agent.procedures.kit.pod_identity import not_the_workloads_pod
from workload_diagnose.agent.procedures.kit.routing import command_of
from workload_diagnose.agent.procedures.pending.state import KubeFound, State, WaitLine

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
JOB_LABELS = ("batch.kubernetes.io/job-name", "job-name")
KIND = "Run:ai workload"  # the layer snapshot's kind: neither a Job nor a RayJob


def collect(kube, limits: Limits, state: State) -> KubeFound:
    from workload_diagnose.tools.kube import KubeError

    out = KubeFound()
    st = state.status.data
    w = st.workload
    pods = state.pods.data if state.pods is not None and state.pods.ok else []
    names = ev.names_of(st, pods)
    try:
        ns = w.namespace or (f"runai-{w.projectName}" if w.projectName else None)
        if ns is None:
            out.limitations.append("The workload reports neither a namespace nor a project: Tier 2 evidence was not "
                                   "collected.")
            return out
        if not w.namespace:
            out.lines.append(EvidenceLine(source=f"kubectl get namespace {ns}", text=f"The workload reports no "
                                                                                     f"namespace; used {ns}"))
        reported = {p.name: p for p in pods}
        if reported:
            facts = [kube.get_pod(ns, n) for n in sorted(reported)[: limits.max_tier2_pods]]
        else:
            facts = sorted(kube.find_pods(ns, w.name), key=lambda p: p.name)[: limits.max_tier2_pods]
            out.calls.append(f"kubectl get pods -n {ns} (workload {w.name})")
        mine = []
        for pf in facts:
            out.calls.append(pf.source)
            why = not_the_workloads_pod(pf, reported.get(pf.name), w)
            if why:
                out.limitations.append(why)
            else:
                mine.append(pf)
        if not mine:
            out.limitations.append(f"No pod of workload {w.name} was read in namespace {ns} (Tier 2).")
            return out
        events = {pf.name: _pod(kube, pf, ns, names, out) for pf in mine}
        snap = ph.Snapshot(name=w.name or "", namespace=ns, now=state.request.now, kind=KIND,
                           pods=[pf.manifest for pf in mine],
                           events={("Pod", n): [{"type": e.type, "reason": e.reason, "message": e.message}
                                                for e in evs] for n, evs in events.items()})
        layer = ph.pod_scheduling(snap)
        out.lines.append(EvidenceLine(source=mine[0].source, text=f"Lifecycle layer {layer.name}: {layer.status}, "
                                                                  f"{layer.detail} (owner {layer.owner})"))
        _kueue(mine, ns, out)
    except KubeError as e:
        out.limitations.append(f"Tier 2 Kubernetes evidence unavailable ({e.kind}): {e.message}.")
    return out


def _pod(kube, pf, ns: str, names: list[str], out: KubeFound) -> list:
    out.injections += list(getattr(pf, "injections", []) or [])
    out.signals += kev.kube_pod_signals(pf, pf.source, names)
    out.past_scheduling |= bool(pf.node_name)
    for c in pf.conditions:
        if (c.type or "") == "PodScheduled" and (c.status or "") == "False":
            text = f"Pod {pf.name} condition PodScheduled=False; reason: {c.reason or 'none'}; message: " \
                   f"\"{quote(c.message)}\""
            out.waits += [WaitLine(reason=r.name, source=pf.source, text=text)
                          for r, _ in wait_reasons(c.reason, c.message, names)]
    evs = kube.pod_events(ns, pf.name)
    src = f"kubectl get events -n {ns} --field-selector involvedObject.name={pf.name}"
    out.calls.append(src)
    out.signals += kev.kube_event_signals(evs, src, names)
    for e in evs:
        out.injections += list(getattr(e, "injections", []) or [])
        if not about_the_workload(e.involved_kind):
            continue
        text = f"{e.type + ' ' if e.type else ''}event reason: {e.reason or 'none'}; message: \"{quote(e.message)}\""
        out.waits += [WaitLine(reason=r.name, source=src, text=text[0].upper() + text[1:])
                      for r, _ in wait_reasons(e.reason, e.message, names, emitter=e.source_component)]
    return evs


def _kueue(pods: list, ns: str, out: KubeFound) -> None:
    """A pod queued by Kueue: the lifecycle view walks its admission layer (this view reads no Kueue Workload)."""
    for pf in pods:
        queue = pf.labels.get(QUEUE_LABEL)
        if not queue:
            continue
        job = next((pf.labels[k] for k in JOB_LABELS if pf.labels.get(k)), None)
        cmd = command_of("lifecycle")
        out.lines.append(EvidenceLine(source=pf.source, text=f"Pod {pf.name} is queued by Kueue (label "
                                                             f"{QUEUE_LABEL}={queue})"))
        if cmd and job:
            out.recommendations.append(f"The run is queued by Kueue: `{cmd} {job} --namespace {ns}` walks its Kueue "
                                       "admission and scheduling layers.")
        return
