"""Preemption evidence: the notices in the workload's status and history, grouped into preemptions, and the facts
the reasons and recommendations read (priority, preemptibility, the project's quota per node pool).

A notice is a (reason, message) pair a system component wrote about the workload's own objects that the
taxonomy's preemption rule (the one ``failed`` routes on) reads as a preemption: so every workload ``failed`` routes
here from status or history has its notices found here. Pure functions; no I/O.
"""
from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from pydantic import BaseModel

from workload_diagnose.agent.evidence.common import quote
from workload_diagnose.agent.evidence.preemption import (NoticeReason, classify_notice, facts_from_figures,
                                                         preemptor_of, queue_figures)
from workload_diagnose.agent.evidence.rules import from_system, kinds_for_object, kinds_from_reason_message
from workload_diagnose.agent.model.signals import Kind
from workload_diagnose.agent.model.time import parse_time, timestamp_problem
from workload_diagnose.agent.taxonomy.preemption import PROJECT_OVER_QUOTA, BY_NAME, FALLBACK, Pool
from workload_diagnose.tools.runai import History, WorkloadStatus
from workload_diagnose.tools.runai.quota import PoolQuota, Project

S_STATUS, S_HISTORY, S_SPEC, S_PROJECT, S_LIST = ("get_workload_status", "get_workload_history",
                                                  "get_workload_spec", "find_project", "list_workloads")
SAME_PREEMPTION = timedelta(minutes=10)  # notices this close (one per pod of a gang) are one preemption
RUNNING = "running"


class Notice(BaseModel):
    at: str | None = None
    reason: str | None = None  # the system's reason token
    message: str = ""  # as read (already redacted and scanned)
    source: str
    text: str  # the evidence line


class Preemption(BaseModel):
    at: str | None
    notices: list[Notice]
    reason: str  # the preemption reason's name
    detail: str | None = None
    preemptor: tuple[str, str] | None = None  # (namespace, name)
    figures_from_notice: bool = False  # the scheduler's message carried the queues' quota figures


def names_of(st: WorkloadStatus) -> list[str]:
    w = st.workload
    return [n for n in (w.name, w.projectName, w.namespace) if n]


def _is_preemption(reason: str | None, message: str | None, names: list[str], *, emitter: str | None = None,
                   object_kind: str | None = None, event: bool = False) -> bool:
    if event and not from_system(emitter):
        return False
    kinds = kinds_from_reason_message(reason, message, names)
    if event:
        kinds = kinds_for_object(kinds, object_kind)
    return any(k == Kind.PREEMPTED for k, _, _ in kinds)


def _line(kind: str, reason: str | None, message: str | None, at: str | None) -> str:
    head = f"{kind} reason" if kind else "reason"
    return f"{head}: {reason or 'none'}; message: \"{quote(message)}\"" + (f" at {at}" if at else "")


def status_notices(st: WorkloadStatus) -> list[Notice]:
    names = names_of(st)
    w = st.workload
    out: list[Notice] = []
    if _is_preemption(w.phaseReason, w.phaseMessage, names):
        out.append(Notice(at=w.phaseUpdatedAt, reason=w.phaseReason, message=w.phaseMessage or "", source=S_STATUS,
                          text=f"Phase: {w.phase}; phaseReason: {w.phaseReason or 'none'}; phaseMessage: "
                               f"\"{quote(w.phaseMessage)}\""))
    for c in w.conditions:
        if (c.status or "").lower() == "false":  # a condition that no longer holds (Kueue: "Previously: ...")
            continue
        if _is_preemption(c.reason, c.message, names):
            out.append(Notice(at=c.lastTransitionTime, reason=c.reason, message=c.message or "", source=S_STATUS,
                              text=f"Condition {c.type}={c.status}; "
                                   + _line("", c.reason, c.message, c.lastTransitionTime).lstrip()))
    for e in st.events or []:
        obj = e.involvedObject
        if _is_preemption(e.reason, e.message, names, emitter=e.source, object_kind=obj.kind if obj else None,
                          event=True):
            out.append(Notice(at=e.createdAt, reason=e.reason, message=e.message or "", source=S_STATUS,
                              text=_line(f"{e.type + ' ' if e.type else ''}Event", e.reason, e.message, e.createdAt)))
    return out


def history_notices(h: History, st: WorkloadStatus, now: datetime,
                    unusable: list[str]) -> tuple[list[Notice], list[str]]:
    """(preemption notices, times the workload started running again); records whose time cannot be placed are
    left out and named in ``unusable``."""
    names = names_of(st)
    out: list[Notice] = []
    resumes: list[str] = []
    for rec in h.records:
        if timestamp_problem(rec.at, now):
            unusable.append(str(rec.at))
            continue
        if rec.phase_update is not None:
            pu = rec.phase_update
            if (pu.phase or "").lower() == RUNNING and rec.at:
                resumes.append(rec.at)
            if _is_preemption(None, pu.phaseMessage, names):
                out.append(Notice(at=rec.at, message=pu.phaseMessage or "", source=S_HISTORY,
                                  text=f"Phase update at {rec.at}: {pu.phase}; phaseMessage: "
                                       f"\"{quote(pu.phaseMessage)}\""))
            continue
        e = rec.event
        if e is None:
            continue
        obj = e.involvedObject
        if _is_preemption(e.reason, e.message, names, emitter=e.source, object_kind=obj.kind if obj else None,
                          event=True):
            out.append(Notice(at=rec.at, reason=e.reason, message=e.message or "", source=S_HISTORY,
                              text=_line(f"{e.type + ' ' if e.type else ''}Event", e.reason, e.message, rec.at)))
    return out, resumes


def _ts(at: str | None) -> float:
    t = parse_time(at)
    return t.timestamp() if t is not None else 0.0


def merge(notices: list[Notice]) -> list[Notice]:
    """Status and history notices in time order, each (time, reason, message) once (the status view cites it)."""
    seen: set[tuple] = set()
    out = []
    for n in sorted(notices, key=lambda n: _ts(n.at)):  # stable: status before history at the same time
        key = (n.at, n.reason, " ".join(n.message.split()))
        if key not in seen:
            seen.add(key)
            out.append(n)
    return out


def group(notices: list[Notice], resumes: list[str]) -> list[list[Notice]]:
    """Notices (oldest first) → preemptions: a notice joins the open one when it comes within
    ``SAME_PREEMPTION`` of its first notice and the workload did not start running again in between."""
    runs = sorted(_ts(r) for r in resumes)
    out: list[list[Notice]] = []
    for n in notices:
        t = _ts(n.at)
        if out:
            first = _ts(out[-1][0].at)
            resumed = any(first < r <= t for r in runs)
            if t - first <= SAME_PREEMPTION.total_seconds() and not resumed:
                out[-1].append(n)
                continue
        out.append([n])
    return out


def classify(notices: list[Notice], names: list[str], project_over_quota: bool | None) -> Preemption:
    """One preemption's reason: the most specific its notices support (their facts, else the project's quota)."""
    best: NoticeReason | None = None
    from_notice = False
    preemptor = None
    for n in notices:
        figures = queue_figures(n.message)
        facts = facts_from_figures(figures)
        if not facts and project_over_quota is not None:
            facts = {PROJECT_OVER_QUOTA: project_over_quota}
        got = classify_notice(n.reason, n.message, facts, names)
        preemptor = preemptor or preemptor_of(n.message)
        if best is None or got.reason.precedence < best.reason.precedence:
            best, from_notice = got, bool(figures)
    assert best is not None
    return Preemption(at=notices[0].at, notices=notices, reason=best.reason.name, detail=best.detail,
                      preemptor=preemptor, figures_from_notice=from_notice)


def preemptor_of_notice(n: Notice) -> tuple[str, str] | None:
    return preemptor_of(n.message)


def is_fallback(p: Preemption) -> bool:
    return BY_NAME[p.reason] is FALLBACK


# ------------------------------------------------------------------------------------------------ facts
def extra(obj: Any, key: str) -> Any:
    """A field the shared Workload model keeps as an extra (``priority``, ``preemptible``, ...)."""
    return (getattr(obj, "model_extra", None) or {}).get(key)


def spec_body(spec: Any) -> dict:
    s = spec.body.get("spec") if spec is not None and isinstance(spec.body.get("spec"), dict) else {}
    return s


class Scheduling(BaseModel):
    priority_class: str | None = None
    priority_class_from: str | None = None
    priority: int | None = None
    preemptible: bool | None = None
    preemptible_from: str | None = None
    terminate_after_preemption: bool | None = None
    node_pools: list[str] = []
    node_pools_from: str | None = None
    requested_gpus: float | None = None


def scheduling(st: WorkloadStatus, spec: Any) -> Scheduling:
    w = st.workload
    s = spec_body(spec)
    out = Scheduling()
    if isinstance(s.get("priorityClass"), str) and s["priorityClass"]:
        out.priority_class, out.priority_class_from = s["priorityClass"], S_SPEC
    elif isinstance(extra(w, "priorityClassName"), str) and extra(w, "priorityClassName"):
        out.priority_class, out.priority_class_from = extra(w, "priorityClassName"), S_STATUS
    p = extra(w, "priority")
    out.priority = p if isinstance(p, int) and not isinstance(p, bool) else None
    pre = s.get("preemptibility")
    if pre in ("preemptible", "non-preemptible"):
        out.preemptible, out.preemptible_from = pre == "preemptible", S_SPEC
    elif isinstance(extra(w, "preemptible"), bool):
        out.preemptible, out.preemptible_from = extra(w, "preemptible"), S_STATUS
    tap = s.get("terminateAfterPreemption")
    out.terminate_after_preemption = tap if isinstance(tap, bool) else None
    for key, src, value in (("currentNodePools", S_STATUS, extra(w, "currentNodePools")),
                            ("requestedNodePools", S_STATUS, extra(w, "requestedNodePools")),
                            ("nodePools", S_SPEC, s.get("nodePools"))):
        pools = [x for x in value if isinstance(x, str) and x] if isinstance(value, list) else []
        if pools:
            out.node_pools, out.node_pools_from = pools, f"{src} {key}"
            break
    req = extra(w, "workloadRequestedResources")
    gpu = req.get("gpu") if isinstance(req, dict) else None
    n = gpu.get("request") if isinstance(gpu, dict) else None
    out.requested_gpus = float(n) if isinstance(n, (int, float)) and not isinstance(n, bool) else None
    return out


def workload_pool(project: Project | None, sched: Scheduling) -> PoolQuota | None:
    """The project's pool the workload ran in: the first pool it names that the project has, else the project's
    only pool; None when that cannot be told."""
    if project is None:
        return None
    for name in sched.node_pools:
        if (p := project.pool(name)) is not None:
            return p
    return project.pools[0] if len(project.pools) == 1 and not sched.node_pools else None


def over_quota(p: PoolQuota | None) -> bool | None:
    if p is None or p.allocated is None or p.allocated.gpu is None or p.deserved.gpu is None:
        return None
    return p.allocated.gpu > p.deserved.gpu


def as_pool(p: PoolQuota) -> Pool:
    return Pool(name=p.node_pool, deserved=p.deserved.gpu, allocated=p.allocated.gpu if p.allocated else None,
                allocated_non_preemptible=p.allocated_non_preemptible.gpu if p.allocated_non_preemptible else None,
                limit=p.limit.gpu, over_quota_weight=p.over_quota_weight)


def other_pools(project: Project | None, mine: PoolQuota | None) -> tuple[Pool, ...]:
    """The project's other pools where it uses fewer GPUs than it deserves (a place to run within quota)."""
    if project is None:
        return ()
    return tuple(as_pool(p) for p in project.pools if p is not mine and p.deserved.gpu
                 and p.allocated is not None and p.allocated.gpu is not None and p.allocated.gpu < p.deserved.gpu)


def preemptor_project(namespace: str) -> str | None:
    """A Run:ai project's namespace is ``runai-<project>`` unless the cluster maps otherwise (the skill's rule):
    the project is read from that form only."""
    return namespace[len("runai-"):] or None if namespace.startswith("runai-") else None
