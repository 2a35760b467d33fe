"""The rules of the run's own layers: Submitted (the Job or RayJob exists) and Kueue admission (its Workloads)."""
from __future__ import annotations

from workload_diagnose.agent.model import lifecycle as lc
from workload_diagnose.agent.model.lifecycle import Phase
from workload_diagnose.agent.model.result import EvidenceLine
from workload_diagnose.agent.procedures.kit.layers.common import (Snapshot, _cond, _ev, _events_cmd, _events_of, _md, _phase,
                                                      _reason_text, _st, _true, _unreadable, run_ended)

KUEUE_EVICTION_CONDITIONS = ("Evicted", "Preempted", "Requeued")


# -- the two served shapes of a Workload (kueue.x-k8s.io v1beta1 up to Kueue 0.13, v1beta2 from 0.15). Conditions,
# spec.queueName and status.admission.{clusterQueue, podSetAssignments[].{name, count, flavors}} are the same in
# both; these differ: the topology assignment (v1beta1 ``domains[{values, count}]``, v1beta2 ``slices[{domainCount,
# valuesPerLevel, podCounts}]``) and the priority class (v1beta1 ``priorityClassName`` + ``priorityClassSource``,
# v1beta2 ``priorityClassRef{group, kind, name}``). Each reader takes the field of the object's own apiVersion and
# falls back to the other shape, so a v1beta1 object read through a v1beta2-only path (or the reverse) still reads.
def _is_v1beta1(w: dict) -> bool:
    return str(w.get("apiVersion") or "").endswith("/v1beta1")


def _topology_domains(ta: object, v1beta1: bool) -> int | None:
    """How many topology domains a podset was assigned (None when there is no topology assignment)."""
    if not isinstance(ta, dict) or not ta:
        return None
    domains, slices = ta.get("domains"), ta.get("slices")
    if isinstance(slices, list) and not (v1beta1 and isinstance(domains, list)):  # v1beta2
        return sum(int(x.get("domainCount") or 0) for x in slices if isinstance(x, dict))
    if isinstance(domains, list):  # v1beta1
        return len(domains)
    return None


def admission_text(w: dict) -> str:
    """``ClusterQueue <cq>: <podset> count=N flavors=res:flavor,... topology=N domain(s)`` from status.admission,
    or "" when the Workload holds no admission."""
    adm = _st(w).get("admission") or {}
    if not isinstance(adm, dict) or not adm:
        return ""
    parts = []
    for psa in adm.get("podSetAssignments") or []:
        flav = ",".join(f"{k}={v}" for k, v in sorted((psa.get("flavors") or {}).items()))
        t = f"{psa.get('name') or '?'} count={psa.get('count', '?')}" + (f" flavors={flav}" if flav else "")
        n = _topology_domains(psa.get("topologyAssignment"), _is_v1beta1(w))
        if n is not None:
            t += f" topology={n} domain(s)"
        parts.append(t)
    return f"ClusterQueue {adm.get('clusterQueue') or '?'}" + (": " + "; ".join(parts) if parts else "")


def priority_text(w: dict) -> str:
    """The Workload's priority class and value, from either shape ("" when none is set)."""
    spec = w.get("spec") or {}
    ref = spec.get("priorityClassRef") if isinstance(spec.get("priorityClassRef"), dict) else {}
    v1 = spec.get("priorityClassName")
    name = (v1 or ref.get("name")) if _is_v1beta1(w) else (ref.get("name") or v1)
    kind = ref.get("kind") or spec.get("priorityClassSource") or ""
    out = f"priority class {name}" + (f" ({kind})" if kind else "") if name else ""
    if spec.get("priority") is not None:
        out = (out + f" priority={spec.get('priority')}").strip()
    return out


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
    queue = _queue_label(s)
    if not s.kueue_served:
        return _phase(name, "skipped", "Kueue is not installed (API group kueue.x-k8s.io not served): no admission "
                                       "step" + (f"; the kueue.x-k8s.io/queue-name={queue} label has no effect"
                                                 if queue else ""), "queue-owner")
    if s.workloads is None:
        return _unreadable(name, "queue-owner", "Kueue Workloads", "workloads.kueue.x-k8s.io")
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
            adm = admission_text(w)
            if adm:
                evidence.append(_ev(src, f"admitted to {adm}"))
            continue
        # eviction / preemption: from the Workload's own conditions (events expire after about an hour)
        for ct in KUEUE_EVICTION_CONDITIONS:
            c = _cond(w, ct)
            if c and (_true(c) or ct == "Requeued" and (c.get("reason") or "") not in ("", "Pending")):
                line = f"condition {ct}={c.get('status')} {_reason_text(c.get('reason'), c.get('message'))}"
                evidence.append(_ev(src, line))
                if _true(c) and ct != "Requeued" and not evicted_reason:
                    evicted_reason = _reason_text(c.get("reason") or ct, c.get("message"))
                    prio = priority_text(w)
                    if prio:
                        evidence.append(_ev(src, f"the evicted Workload's {prio}"))
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

