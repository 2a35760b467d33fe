"""The rules of the run's own layers: Submitted (the Job or RayJob exists) and Kueue admission (its Workloads)."""
from __future__ import annotations

from agent.model import lifecycle as lc
from agent.model.lifecycle import Phase
from agent.model.result import EvidenceLine
from agent.procedures.lifecycle.phases.common import (Snapshot, _cond, _ev, _events_cmd, _events_of, _md, _phase,
                                                      _reason_text, _true, _unreadable, run_ended)

KUEUE_EVICTION_CONDITIONS = ("Evicted", "Preempted", "Requeued")


def submitted(s: Snapshot) -> Phase:
    if s.kind is None:
        return _phase(lc.SUBMITTED, "pending", f"no batch/v1 Job or RayJob named {s.name} in namespace {s.namespace}",
                      "researcher", next_action="check the run name and namespace (kubectl get jobs,rayjobs -n "
                                                f"{s.namespace}); submit the run if it was never created")
    obj = s.run
    created = _md(obj).get("creationTimestamp")
    what = "batch/v1 Job" if s.kind == "Job" else "RayJob"
    ev = [_ev(f"kubectl get {s.kind.lower()} {s.name} -n {s.namespace}",
              f"{s.kind} {s.name} created {created or '(creation time missing)'}")]
    return _phase(lc.SUBMITTED, "done", f"{what} created", "researcher", evidence=ev)


def _queue_label(s: Snapshot) -> str | None:
    labels = _md(s.run).get("labels") or {}
    return labels.get("kueue.x-k8s.io/queue-name")


def kueue_admission(s: Snapshot) -> Phase:
    name = lc.KUEUE
    if s.kind is None:
        return _phase(name, "pending", "no run to admit", "queue-owner")
    if s.workloads is None:
        return _unreadable(name, "queue-owner", "Kueue Workloads", "workloads.kueue.x-k8s.io")
    queue = _queue_label(s)
    if not s.workloads:
        if not queue and run_ended(s):
            return _phase(name, "skipped", "no Kueue Workload and no kueue.x-k8s.io/queue-name label: not managed "
                                           "by Kueue", "queue-owner")
        if not queue:
            return _phase(name, "skipped", "no kueue.x-k8s.io/queue-name label and no Workload: the run is not "
                                           "managed by Kueue", "queue-owner")
        return _phase(name, "active", f"0/0 admitted queue={queue}: waiting for Kueue to create the Workload",
                      "platform", hint="Kueue creates a Workload for every labelled job; if none appears the Kueue "
                                       "controller or its job integration is not running",
                      next_action="check the Kueue controller manager and that its integration for this kind is "
                                  "enabled (kubectl get workload -n " + s.namespace + ")")
    admitted = finished = 0
    queues = sorted({str((w.get("spec") or {}).get("queueName") or "") for w in s.workloads} - {""})
    evidence: list[EvidenceLine] = []
    waiting_reason = ""
    evicted_reason = ""
    inadmissible = False
    for w in s.workloads:
        wname = _md(w).get("name") or "?"
        src = f"kubectl get workload {wname} -n {s.namespace} -o yaml"
        if _true(_cond(w, "Finished")):
            finished += 1
            continue
        if _true(_cond(w, "Admitted")):
            admitted += 1
            continue
        # eviction / preemption: from the Workload's own conditions (events expire after about an hour)
        for ct in KUEUE_EVICTION_CONDITIONS:
            c = _cond(w, ct)
            if c and (_true(c) or ct == "Requeued" and (c.get("reason") or "") not in ("", "Pending")):
                line = f"condition {ct}={c.get('status')} {_reason_text(c.get('reason'), c.get('message'))}"
                evidence.append(_ev(src, line))
                if _true(c) and ct != "Requeued" and not evicted_reason:
                    evicted_reason = _reason_text(c.get("reason") or ct, c.get("message"))
        for e in _events_of(s, "Workload", wname):
            if str(e.get("reason")) in ("Evicted", "Preempted"):
                evidence.append(_ev(_events_cmd(s, wname), _reason_text(e.get("reason"), e.get("message"))))
                if not evicted_reason:
                    evicted_reason = _reason_text(e.get("reason"), e.get("message"))
        qr = _cond(w, "QuotaReserved") or _cond(w, "Admitted")
        if qr and not _true(qr):
            txt = _reason_text(qr.get("reason"), qr.get("message"))
            evidence.append(_ev(src, f"condition {qr.get('type')}={qr.get('status')} {txt}"))
            waiting_reason = waiting_reason or txt
            if str(qr.get("reason")) == "Inadmissible":
                inadmissible = True
    total = len(s.workloads)
    qtxt = f" queue={','.join(queues)}" if queues else ""
    if finished == total:
        return _phase(name, "done", f"{finished}/{total} finished; quota released{qtxt}", "queue-owner",
                      evidence=evidence)
    if admitted + finished == total:
        return _phase(name, "done", f"{admitted}/{total} admitted{qtxt}", "queue-owner", evidence=evidence)
    detail = f"{admitted}/{total} admitted{qtxt}"
    if evicted_reason:
        return _phase(name, "warning", f"{detail} reason={evicted_reason}", "queue-owner",
                      hint="Kueue evicted or preempted the Workload to reclaim capacity (often for higher-priority "
                           "work); it waits to be admitted again",
                      next_action="ask the queue owner about priority and capacity of the ClusterQueue/cohort "
                                  f"(kubectl describe clusterqueue; kubectl get workload -n {s.namespace})",
                      evidence=evidence)
    if waiting_reason:
        detail += f" reason={waiting_reason}"
    if inadmissible:
        return _phase(name, "warning", detail, "platform",
                      hint="Inadmissible: the LocalQueue or its ClusterQueue is missing or inactive",
                      next_action=f"check the LocalQueue {','.join(queues) or '(queue-name label)'} exists and "
                                  "points to an active ClusterQueue (kubectl describe localqueue -n "
                                  f"{s.namespace})", evidence=evidence)
    quota = "quota" in waiting_reason.lower()
    return _phase(name, "active", detail, "queue-owner",
                  hint=("quota is reserved per LocalQueue/ClusterQueue: the queue lacks capacity (including "
                        "borrowing limits)") if quota else None,
                  next_action="wait for capacity or ask the queue owner for quota/priority (kubectl describe "
                              "clusterqueue <cluster-queue>); do not debug GPUs or nodes before admission",
                  evidence=evidence)

