"""Run:ai evidence: signals (for the classifier) and facts (for the report) from each Tier-1 tool's typed result.

Pure functions: given the same tool results they return the same signals in the same order.
"""
from __future__ import annotations

from datetime import datetime
from typing import Any, Iterable

from pydantic import BaseModel

from workload_diagnose.agent.evidence.common import event_signals, make_signals, quote
from workload_diagnose.agent.evidence.rules import kinds_from_reason_message
from workload_diagnose.agent.model.signals import Kind, Signal
from workload_diagnose.tools.quantity import MAX_BYTES, fmt_bytes, invalid_quantity, parse_bytes
from workload_diagnose.agent.model.time import parse_time, timestamp_problem
from workload_diagnose.tools.runai import History, HistoryRecord, MetricSeries, Pod, SubmittedSpec, WorkloadStatus

S_STATUS, S_SPEC, S_PODS, S_HISTORY, S_METRICS = ("get_workload_status", "get_workload_spec", "get_workload_pods",
                                                  "get_workload_history", "get_workload_metrics")

def names_of(status: WorkloadStatus | None, pods: list[Pod] | None = None, extra: Iterable[str] = ()) -> list[str]:
    out: list[str] = list(extra)
    if status:
        w = status.workload
        out += [w.name, w.projectName or "", w.namespace or ""]
    for p in pods or []:
        out.append(p.name)
        out += [c.get("name", "") for c in p.containers if isinstance(c, dict)]
    return [n for n in out if n]


# ------------------------------------------------------------------------------------------------ status
def status_signals(st: WorkloadStatus, names: list[str]) -> list[Signal]:
    w = st.workload
    sigs: list[Signal] = []
    if w.phaseReason or w.phaseMessage:
        text = f"Phase: {w.phase}; phaseReason: {w.phaseReason or 'none'}; phaseMessage: \"{quote(w.phaseMessage)}\""
        sigs += make_signals(kinds_from_reason_message(w.phaseReason, w.phaseMessage, names), source=S_STATUS, text=text,
                    at=w.phaseUpdatedAt, obj=w.name, origin="status")
    if w.k8sPhase:
        sigs += make_signals(_k8s_phase_kinds(w.k8sPhase), source=S_STATUS, text=f"Workload k8sPhase: {w.k8sPhase}",
                    at=w.phaseUpdatedAt, obj=w.name, origin="status")
    for c in w.conditions:
        if (c.type or "").lower() == "podscheduled" and (c.status or "").lower() == "true":
            sigs.append(Signal(kind=Kind.POD_SCHEDULED, source=S_STATUS, text="Condition PodScheduled=True",
                               at=c.lastTransitionTime, obj=w.name, origin="status"))
            continue
        if not (c.reason or c.message):
            continue
        if (c.status or "").lower() == "true" and (c.type or "").lower() in {"ready", "available", "running",
                                                                             "initialized", "podscheduled"}:
            continue  # a healthy condition carries no failure signal
        text = (f"Condition {c.type}={c.status}; reason: {c.reason or 'none'}; message: \"{quote(c.message)}\"")
        sigs += make_signals(kinds_from_reason_message(c.reason, c.message, names), source=S_STATUS, text=text,
                    at=c.lastTransitionTime, obj=w.name, origin="status")
    for e in st.events or []:
        sigs += event_signals(e.reason, e.message, e.createdAt,
                              e.involvedObject.name if e.involvedObject else None, names, S_STATUS, "status",
                              event_type=e.type, emitter=e.source,
                              object_kind=e.involvedObject.kind if e.involvedObject else None)
    pend = getattr(w, "pendingSchedulingMessages", None)
    if isinstance(pend, list):
        for m in pend:
            if isinstance(m, dict) and (m.get("reason") or m.get("userMessage")):
                text = (f"Pending scheduling message: nodePool {m.get('nodePool') or 'n/a'}; reason: "
                        f"{m.get('reason') or 'none'}; \"{quote(m.get('userMessage'))}\"")
                sigs.append(Signal(kind=Kind.SCHEDULING_WAIT, source=S_STATUS, text=text, obj=w.name,
                                   origin="status"))
    return sigs


def _k8s_phase_kinds(k8s_phase: str):
    p = k8s_phase.strip()
    pl = p.lower()
    if pl == "oomkilled":  # the kernel's word: no exit code is stated here, so none is assumed
        return [(Kind.OOM, None, None)]
    if pl in {"imagepullbackoff", "errimagepull", "invalidimagename"}:
        return [(Kind.IMAGE_PULL, "unspecified", None)]
    if pl.startswith("init:") and pl not in {"init:0/1"}:
        return [(Kind.INIT_FAILED, None, None)] if ("error" in pl or "crash" in pl or "exitcode" in pl) else []
    if pl == "crashloopbackoff":
        return [(Kind.CRASH_LOOP, None, None)]
    if pl in {"error", "failed"}:
        return [(Kind.POD_ERROR, None, None)]
    if pl == "evicted" or pl == "nodelost":
        return [(Kind.NODE_FAILURE, pl, None)]
    if pl in {"createcontainerconfigerror"}:
        return [(Kind.POD_ERROR, None, None)]
    return []


# ------------------------------------------------------------------------------------------------ pods
def pod_signals(pods: list[Pod]) -> list[Signal]:
    sigs: list[Signal] = []
    for p in pods:
        if not p.k8sPhase:
            continue
        lim = _mem(p.requestedResources, "limit")
        extra = f"; memory limit: {fmt_bytes(lim)}" if lim is not None else ""
        node = f"; node: {p.nodeName}" if p.nodeName else ""
        text = f"Pod {p.name} k8sPhase: {p.k8sPhase}{extra}{node}"
        sigs += make_signals(_k8s_phase_kinds(p.k8sPhase), source=S_PODS, text=text, at=p.completedAt, obj=p.name,
                    origin="pods")
    return sigs


def _mem(resources: Any, which: str) -> float | None:
    if not isinstance(resources, dict):
        return None
    cm = resources.get("cpuMemory")
    if isinstance(cm, dict):
        return parse_bytes(cm.get(which))
    return None


# ------------------------------------------------------------------------------------------------ history
class HistoryItem(BaseModel):
    at: str | None
    is_phase_update: bool
    phase: str | None = None
    signals: list[Signal]


def history_items(h: History, names: list[str], now: datetime | None = None,
                  unusable: list[tuple[str, str]] | None = None) -> list[HistoryItem]:
    """History records → items in ascending time order (records arrive newest first).

    With ``now``, a record whose timestamp cannot be placed in time (not a timestamp, no zone, in the future) is
    left out and appended to ``unusable`` as (value, problem): it is stated, never silently counted.
    """
    items: list[HistoryItem] = []
    seen: set[str] = set()
    for rec in reversed(h.records):
        problem = timestamp_problem(rec.at, now) if now is not None else None
        if problem:
            key = rec.model_dump_json()  # a page served twice repeats its records: count each record once
            if unusable is not None and key not in seen:
                seen.add(key)
                unusable.append((str(rec.at), problem))
            continue
        items.append(_history_item(rec, names))
    items.sort(key=lambda i: (parse_time(i.at).timestamp() if parse_time(i.at) else 0.0))
    return items


def _history_item(rec: HistoryRecord, names: list[str]) -> HistoryItem:
    if rec.phase_update is not None:
        pu = rec.phase_update
        text = f"Phase update at {rec.at}: {pu.phase}; phaseMessage: \"{quote(pu.phaseMessage)}\""
        sigs = make_signals(kinds_from_reason_message(None, pu.phaseMessage, names), source=S_HISTORY, text=text,
                   at=rec.at, obj=None, origin="history")
        return HistoryItem(at=rec.at, is_phase_update=True, phase=pu.phase, signals=sigs)
    e = rec.event
    sigs = []
    if e is not None:
        obj = e.involvedObject.name if e.involvedObject else None
        sigs = event_signals(e.reason, e.message, rec.at, obj, names, S_HISTORY, "history", event_type=e.type,
                             emitter=e.source, object_kind=e.involvedObject.kind if e.involvedObject else None)
        for s in sigs:
            s.text = f"{s.text} at {rec.at}"
    return HistoryItem(at=rec.at, is_phase_update=False, signals=sigs)


# ------------------------------------------------------------------------------------------------ spec facts
class MemoryFact(BaseModel):
    source: str
    request: float | None
    limit: float | None
    where: str  # e.g. "Submitted", "Pod x"


def spec_memory(spec: SubmittedSpec | None) -> MemoryFact | None:
    if spec is None:
        return None
    s = spec.body.get("spec") if isinstance(spec.body.get("spec"), dict) else {}
    comp = s.get("compute") if isinstance(s.get("compute"), dict) else {}
    req, lim = parse_bytes(comp.get("cpuMemoryRequest")), parse_bytes(comp.get("cpuMemoryLimit"))
    if req is None and lim is None:
        return None
    return MemoryFact(source=S_SPEC, request=req, limit=lim, where="Submitted")


def status_memory(st: WorkloadStatus | None) -> MemoryFact | None:
    if st is None:
        return None
    pr = st.workload.podsRequestedResources
    req, lim = _mem(pr, "request"), _mem(pr, "limit")
    if req is None and lim is None:
        return None
    return MemoryFact(source=S_STATUS, request=req, limit=lim, where="Pods requested")


def pods_memory(pods: list[Pod] | None) -> list[MemoryFact]:
    out = []
    for p in pods or []:
        req, lim = _mem(p.requestedResources, "request"), _mem(p.requestedResources, "limit")
        if req is not None or lim is not None:
            out.append(MemoryFact(source=S_PODS, request=req, limit=lim, where=f"Pod {p.name}"))
    return out


def spec_context(spec: SubmittedSpec | None) -> list[tuple[str, str]]:
    """Configuration lines that corroborate (never decide) the verdict."""
    if spec is None:
        return []
    s = spec.body.get("spec") if isinstance(spec.body.get("spec"), dict) else {}
    lines = []
    if s.get("image"):
        lines.append(f"Submitted image: {s.get('image')}")
    cmd = " ".join(str(x) for x in (s.get("command"), s.get("args")) if x)
    if cmd:
        lines.append(f"Submitted command: {quote(cmd, 240)}")
    if s.get("restartPolicy"):
        lines.append(f"Restart policy: {s.get('restartPolicy')}"
                     + (f"; backoffLimit: {s.get('backoffLimit')}" if s.get("backoffLimit") is not None else ""))
    st = s.get("storage") if isinstance(s.get("storage"), dict) else {}
    mounts = []
    for kind in ("pvc", "nfs", "s3", "git", "hostPath", "secretVolume", "configMapVolume", "dataVolume"):
        for m in st.get(kind) or []:
            if isinstance(m, dict):
                ident = m.get("claimName") or m.get("name") or m.get("secret") or m.get("configMap") or \
                    m.get("bucket") or m.get("repository") or m.get("server") or "unnamed"
                path = m.get("path") or m.get("mountPath") or ""
                mounts.append(f"{kind} {ident}{' at ' + path if path else ''}")
    if mounts:
        lines.append("Submitted mounts: " + ", ".join(mounts))
    return [(S_SPEC, ln) for ln in lines]


def spec_restart_policy(spec: SubmittedSpec | None) -> str | None:
    if spec is None:
        return None
    s = spec.body.get("spec") if isinstance(spec.body.get("spec"), dict) else {}
    rp = s.get("restartPolicy")
    return rp if isinstance(rp, str) else None


# ------------------------------------------------------------------------------------------------ metrics
class MetricsFact(BaseModel):
    peak_usage: float | None = None
    peak_at: str | None = None
    usage_samples: int = 0
    limit_max: float | None = None
    request_max: float | None = None
    unparsable: int = 0


def metrics_fact(series: list[MetricSeries] | None) -> MetricsFact | None:
    if series is None:
        return None
    f = MetricsFact()
    for s in series:
        f.unparsable += s.unparsable
        samples = [x for x in s.samples if 0 <= x.value <= MAX_BYTES]  # 1e300 bytes is invalid data, not a peak
        f.unparsable += len(s.samples) - len(samples)
        if not samples:
            continue
        top = max(samples, key=lambda x: x.value)
        if s.type == "CPU_MEMORY_USAGE_BYTES":
            f.usage_samples += len(samples)
            if f.peak_usage is None or top.value > f.peak_usage:
                f.peak_usage, f.peak_at = top.value, top.timestamp
        elif s.type == "CPU_MEMORY_LIMIT_BYTES":
            f.limit_max = max(f.limit_max or 0.0, top.value)
        elif s.type == "CPU_MEMORY_REQUEST_BYTES":
            f.request_max = max(f.request_max or 0.0, top.value)
    return f


def invalid_memory_values(spec: SubmittedSpec | None, st: WorkloadStatus | None, pods: list[Pod] | None) -> list[str]:
    """Memory quantities that were reported but are not valid (``1e400``, ``Infinity``, ``-1Gi``): stated, never shown."""
    found: list[tuple[str, str, Any]] = []
    s = spec.body.get("spec") if spec is not None and isinstance(spec.body.get("spec"), dict) else {}
    comp = s.get("compute") if isinstance(s.get("compute"), dict) else {}
    for key in ("cpuMemoryRequest", "cpuMemoryLimit"):
        found.append((S_SPEC, key, comp.get(key)))
    holders = [(S_STATUS, "podsRequestedResources", st.workload.podsRequestedResources if st else None)]
    holders += [(S_PODS, f"pod {p.name} requestedResources", p.requestedResources) for p in pods or []]
    for src, where, res in holders:
        cm = res.get("cpuMemory") if isinstance(res, dict) else None
        if isinstance(cm, dict):
            found += [(src, f"{where}.cpuMemory.{k}", cm.get(k)) for k in ("request", "limit")]
    return [f"{src} reported {where} = {quote(str(v), 60)!r}, which is not a valid memory quantity: it was ignored."
            for src, where, v in found if invalid_quantity(v)]
