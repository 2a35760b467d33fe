"""The wait messages and what the workload asks for: pure functions over the typed Run:ai results.

A wait line is a system message (the workload's phase reason and message, its conditions, the scheduler's events,
Run:ai's pending scheduling messages, history records of the current Pending episode) that shows a pending reason
(``agent.evidence.waits``); its text is the one the failed diagnosis cites for the same message.
"""
from __future__ import annotations

from datetime import datetime
from typing import Any

from workload_diagnose.agent.evidence.common import quote
from workload_diagnose.agent.evidence.rules import about_the_workload
from workload_diagnose.agent.evidence.waits import wait_reasons
from workload_diagnose.agent.model.pending import Requested, Waited
from workload_diagnose.agent.model.time import parse_time, timestamp_problem
from workload_diagnose.agent.procedures.kit.evidence import S_HISTORY, S_STATUS
from workload_diagnose.agent.procedures.pending.state import WaitLine
from workload_diagnose.tools.runai import History, WorkloadStatus


def _lines(reason: str | None, message: str | None, names: list[str], source: str, text: str, at: str | None,
           pool: str | None = None, emitter: str | None = None) -> list[WaitLine]:
    return [WaitLine(reason=rec.name, source=source, text=text, at=at, pool=pool)
            for rec, _ in wait_reasons(reason, message, names, emitter=emitter)]


def status_waits(st: WorkloadStatus, names: list[str]) -> list[WaitLine]:
    w = st.workload
    out: list[WaitLine] = []
    if w.phaseReason or w.phaseMessage:
        out += _lines(w.phaseReason, w.phaseMessage, names, S_STATUS, f"Phase: {w.phase}; phaseReason: "
                      f"{w.phaseReason or 'none'}; phaseMessage: \"{quote(w.phaseMessage)}\"", w.phaseUpdatedAt)
    for c in w.conditions:
        if (c.reason or c.message) and (c.status or "").lower() != "true":
            out += _lines(c.reason, c.message, names, S_STATUS, f"Condition {c.type}={c.status}; reason: "
                          f"{c.reason or 'none'}; message: \"{quote(c.message)}\"", c.lastTransitionTime)
    pend = getattr(w, "pendingSchedulingMessages", None)
    for m in pend if isinstance(pend, list) else []:
        if not isinstance(m, dict):
            continue
        pool = m.get("nodePool") if isinstance(m.get("nodePool"), str) else None
        text = (f"Pending scheduling message: nodePool {pool or 'n/a'}; reason: {m.get('reason') or 'none'}; "
                f"\"{quote(m.get('userMessage'))}\"")
        for reason in (m.get("phaseReason"), m.get("reason")):
            got = _lines(reason if isinstance(reason, str) else None, m.get("userMessage"), names, S_STATUS, text,
                         None, pool)
            if got:
                out += got
                break
    for e in st.events or []:
        kind = e.involvedObject.kind if e.involvedObject else None
        if about_the_workload(kind):
            out += _lines(e.reason, e.message, names, S_STATUS, _event_text(e), e.createdAt, emitter=e.source)
    return out


def _event_text(e: Any, at: str | None = None) -> str:
    typ = f"{e.type} " if e.type else ""
    text = f"{typ}event reason: {e.reason or 'none'}; message: \"{quote(e.message)}\""
    return text[0].upper() + text[1:] + (f" at {at}" if at else "")


def history_waits(h: History, names: list[str], since: datetime | None) -> list[WaitLine]:
    """Wait messages of the history records of the current Pending episode (at or after ``since``)."""
    out: list[WaitLine] = []
    for rec in h.records:
        t = parse_time(rec.at)
        if t is None or (since is not None and t < since):
            continue
        if rec.event is not None:
            e = rec.event
            if about_the_workload(e.involvedObject.kind if e.involvedObject else None):
                out += _lines(e.reason, e.message, names, S_HISTORY, _event_text(e, rec.at), rec.at, emitter=e.source)
        elif rec.phase_update is not None and rec.phase_update.phaseMessage:
            pu = rec.phase_update
            out += _lines(None, pu.phaseMessage, names, S_HISTORY, f"Phase update at {rec.at}: {pu.phase}; "
                          f"phaseMessage: \"{quote(pu.phaseMessage)}\"", rec.at)
    return out


def _num(v: Any) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and v == v and v >= 0 else None


def _gpu_request(res: Any) -> float | None:
    gpu = res.get("gpu") if isinstance(res, dict) else None
    return _num(gpu.get("request")) if isinstance(gpu, dict) else None


def requested(st: WorkloadStatus) -> Requested:
    w = st.workload
    extra = w.model_extra or {}
    pods = extra.get("requestedPods") if isinstance(extra.get("requestedPods"), dict) else {}
    n = pods.get("number") if pods.get("number") is not None else pods.get("min")
    pools = extra.get("requestedNodePools")
    pre = extra.get("preemptible")
    return Requested(gpus=_gpu_request(extra.get("workloadRequestedResources")),
                     gpus_per_pod=_gpu_request(w.podsRequestedResources),
                     pods=n if isinstance(n, int) and not isinstance(n, bool) and n >= 0 else None,
                     node_pools=[p for p in pools if isinstance(p, str)] if isinstance(pools, list) else [],
                     preemptible=pre if isinstance(pre, bool) else None)


def pools_in_question(waits: list[WaitLine], req: Requested, limit: int) -> list[str]:
    """The node pools the scheduler named in its pending messages, else the ones the workload requested, in order
    (at most ``limit``)."""
    named = [x.pool for x in waits if x.pool]
    return list(dict.fromkeys(named or req.node_pools))[:limit]


def waited(st: WorkloadStatus, now: datetime) -> tuple[Waited | None, str | None]:
    """How long it has been Pending (since its phase update, else since it was created), or why it is not known."""
    w = st.workload
    for value in (w.phaseUpdatedAt, w.createdAt):
        if not value:
            continue
        problem = timestamp_problem(value, now)
        if problem:
            return None, (f"The workload's time {value!r} cannot be used ({problem}): how long it has waited is not "
                          "known.")
        since = parse_time(value)
        seconds = int((now - since).total_seconds())
        return Waited(since=value, seconds=seconds, text=duration(seconds)), None
    return None, "Run:ai reported neither phaseUpdatedAt nor createdAt: how long it has waited is not known."


def duration(seconds: int) -> str:
    d, rem = divmod(max(0, seconds), 86400)
    h, rem = divmod(rem, 3600)
    m = rem // 60
    parts = [f"{d}d"] * bool(d) + [f"{h}h"] * bool(h) + [f"{m}m"] * bool(m and not d)
    return " ".join(parts) or "under 1m"


def at_or_none(value: str | None, now: datetime) -> datetime | None:
    return parse_time(value) if value and not timestamp_problem(value, now) else None


__all__ = ["status_waits", "history_waits", "requested", "pools_in_question", "waited", "duration", "at_or_none"]
