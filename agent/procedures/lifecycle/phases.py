"""The phase rules: one small pure function per lifecycle phase, over a :class:`Snapshot` of what was read.

Each rule decides its phase from structured fields (conditions, container states, allocation) and cites them;
free text (messages) is only quoted, already redacted. Rules never look at a name to decide anything.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from agent.model import lifecycle as lc
from agent.model.lifecycle import Phase
from agent.model.result import EvidenceLine
from agent.model.time import parse_time

DRA_STUCK_AFTER = timedelta(seconds=30)
IMAGE_PULL_FAILURES = frozenset({"ErrImagePull", "ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull",
                                 "RegistryUnavailable"})
CONTAINER_FAILURES = frozenset({"CrashLoopBackOff", "CreateContainerConfigError", "CreateContainerError",
                                "RunContainerError", "Error", "StartError", "ContainerCannotRun"})
NOT_STARTED = frozenset({"ContainerCreating", "PodInitializing"})
KUEUE_EVICTION_CONDITIONS = ("Evicted", "Preempted", "Requeued")
MAX_DETAIL = 240


@dataclass
class Snapshot:
    """Everything one refresh read. ``None`` for a list means it could not be read (said in a limitation)."""

    name: str
    namespace: str
    now: datetime
    kind: str | None = None  # "Job" | "RayJob" | None
    job: dict | None = None
    rayjob: dict | None = None
    workloads: list[dict] | None = field(default_factory=list)
    raycluster: dict | None = None
    raycluster_name: str | None = None
    pods: list[dict] | None = field(default_factory=list)
    claims: dict[str, dict | None] = field(default_factory=dict)  # referenced name -> object (None: not found)
    claims_error: str | None = None  # why claims could not be read
    events: dict[tuple[str, str], list[dict]] = field(default_factory=dict)  # (kind, name) -> events

    @property
    def run(self) -> dict | None:
        return self.job if self.kind == "Job" else self.rayjob if self.kind == "RayJob" else None


# ----------------------------------------------------------------------------------------- helpers


def _md(o: dict | None) -> dict:
    return (o or {}).get("metadata") or {}


def _st(o: dict | None) -> dict:
    return (o or {}).get("status") or {}


def _cond(o: dict | None, type_: str) -> dict | None:
    for c in _st(o).get("conditions") or []:
        if c.get("type") == type_:
            return c
    return None


def _true(c: dict | None) -> bool:
    return bool(c) and str(c.get("status")) == "True"


def _one_line(text: object, limit: int = MAX_DETAIL) -> str:
    s = " ".join(str(text or "").split())
    return s if len(s) <= limit else s[: limit - 1] + "…"


def _reason_text(reason: object, message: object) -> str:
    r, m = _one_line(reason, 80), _one_line(message, 160)
    return f"{r}: {m}" if r and m else r or m


def _ev(source: str, text: str) -> EvidenceLine:
    return EvidenceLine(source=source, text=_one_line(text, 400))


def _ns(s: Snapshot) -> str:
    return s.namespace


def _pod_cmd(s: Snapshot, pod: str) -> str:
    return f"kubectl describe pod {pod} -n {_ns(s)}"


def _events_cmd(s: Snapshot, name: str) -> str:
    return f"kubectl get events -n {_ns(s)} --field-selector involvedObject.name={name}"


def _phase(name: str, status: str, detail: str, owner: str, *, hint: str | None = None,
           next_action: str | None = None, evidence: list[EvidenceLine] | None = None) -> Phase:
    if status in lc.COMPLETE_STATUSES:
        next_action = None
    return Phase(name=name, status=status, detail=_one_line(detail, 400), hint=hint, owner=owner,
                 next_action=next_action, evidence=evidence or [])


def _pod_name(p: dict) -> str:
    return _md(p).get("name") or "?"


def _containers(p: dict, init: bool) -> list[tuple[dict, dict | None]]:
    """(spec, status) pairs in spec order; a status without a spec entry is kept too."""
    key_spec, key_st = ("initContainers", "initContainerStatuses") if init else ("containers", "containerStatuses")
    specs = (p.get("spec") or {}).get(key_spec) or []
    statuses = {c.get("name"): c for c in _st(p).get(key_st) or []}
    out = [(c, statuses.pop(c.get("name"), None)) for c in specs]
    out += [({"name": n}, c) for n, c in sorted(statuses.items(), key=lambda kv: str(kv[0]))]
    return out


def _state(cs: dict | None) -> tuple[str | None, dict]:
    st = (cs or {}).get("state") or {}
    for k in ("waiting", "running", "terminated"):
        if st.get(k) is not None:
            return k, st.get(k) or {}
    return None, {}


def _last_term(cs: dict | None) -> dict | None:
    return ((cs or {}).get("lastState") or {}).get("terminated")


def _assigned(p: dict) -> bool:
    return bool((p.get("spec") or {}).get("nodeName"))


def _events_of(s: Snapshot, kind: str, name: str) -> list[dict]:
    return s.events.get((kind, name)) or []


def _job_condition_true(job: dict | None, type_: str) -> dict | None:
    c = _cond(job, type_)
    return c if _true(c) else None


def rayjob_failed(rj: dict | None) -> bool:
    st = _st(rj)
    return (str(st.get("jobDeploymentStatus") or "") == "Failed"
            or str(st.get("jobStatus") or "").upper() in ("FAILED", "STOPPED"))


def rayjob_succeeded(rj: dict | None) -> bool:
    st = _st(rj)
    return not rayjob_failed(rj) and (str(st.get("jobStatus") or "").upper() == "SUCCEEDED"
                                      or (str(st.get("jobDeploymentStatus") or "") == "Complete"
                                          and not st.get("jobStatus")))


def run_succeeded(s: Snapshot) -> bool:
    if s.kind == "Job":
        return _job_condition_true(s.job, "Complete") is not None
    if s.kind == "RayJob":
        return rayjob_succeeded(s.rayjob)
    return False


def run_ended(s: Snapshot) -> bool:
    if s.kind == "Job":
        return run_succeeded(s) or _job_condition_true(s.job, "Failed") is not None
    if s.kind == "RayJob":
        return run_succeeded(s) or rayjob_failed(s.rayjob)
    return False


# ------------------------------------------------------------------------------------------ phases


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
        return _phase(name, "pending", "Kueue Workloads could not be read (see limitations)", "queue-owner",
                      next_action="grant read access to workloads.kueue.x-k8s.io, then run this again")
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


def raycluster(s: Snapshot) -> Phase:
    name = lc.RAYCLUSTER
    rc_name = s.raycluster_name
    rc = s.raycluster
    if not rc_name:
        if run_ended(s):
            return _phase(name, "skipped", "the RayJob ended without a RayCluster name in its status", "platform")
        return _phase(name, "active", "waiting for KubeRay to create the RayCluster", "platform",
                      hint="KubeRay creates the RayCluster once the RayJob is admitted (not suspended)",
                      next_action=f"check the KubeRay operator and the RayJob's events (kubectl describe rayjob "
                                  f"{s.name} -n {s.namespace})")
    src = f"kubectl get raycluster {rc_name} -n {s.namespace}"
    if rc is None:
        if run_ended(s):
            return _phase(name, "done", f"created {rc_name}; deleted after the RayJob ended (not observed now)",
                          "platform")
        return _phase(name, "active", f"RayCluster {rc_name} named by the RayJob does not exist (yet)", "platform",
                      next_action=f"check the KubeRay operator (kubectl describe rayjob {s.name} -n {s.namespace})")
    state = str(_st(rc).get("state") or "")
    ev: list[EvidenceLine] = [_ev(src, f"state={state or '(not reported)'}")]
    failed = state.lower() == "failed"
    for c in _st(rc).get("conditions") or []:
        if c.get("type") == "ReplicaFailure" and _true(c):
            failed = True
            ev.append(_ev(src, f"condition ReplicaFailure=True {_reason_text(c.get('reason'), c.get('message'))}"))
    detail = f"created {rc_name} status={state or '(not reported)'}"
    if failed:
        reason = _st(rc).get("reason")
        return _phase(name, "warning", detail + (f" reason={_one_line(reason, 120)}" if reason else ""), "platform",
                      next_action=f"kubectl describe raycluster {rc_name} -n {s.namespace}; fix the cluster spec "
                                  "(head/worker templates) or ask the platform about the failing replicas",
                      evidence=ev)
    return _phase(name, "done", detail, "platform", evidence=ev)


def _torn_down(s: Snapshot) -> str | None:
    """Why pod evidence is absent for a run that ended (None when pods are there or the run did not end)."""
    if s.pods or s.pods is None or not run_ended(s):
        return None
    return "run ended; pods removed afterwards (not observed)"


def pod_scheduling(s: Snapshot) -> Phase:
    name = lc.SCHEDULING
    if s.kind is None:
        return _phase(name, "pending", "no run", "node-pool-owner")
    if s.pods is None:
        return _phase(name, "pending", "pods could not be read (see limitations)", "node-pool-owner",
                      next_action="grant read access to pods, then run this again")
    if not s.pods:
        td = _torn_down(s)
        if td:
            return _phase(name, "done" if run_succeeded(s) else "skipped", td, "node-pool-owner")
        return _phase(name, "pending", "no pods observed yet", "node-pool-owner",
                      hint="pods are created after admission (a suspended Job or RayJob has none)",
                      next_action="re-check the layers above; if they are done, check the job controller / KubeRay")
    assigned = [p for p in s.pods if _assigned(p)]
    detail = f"{len(assigned)}/{len(s.pods)} assigned to nodes"
    if len(assigned) == len(s.pods):
        nodes = sorted({(p.get("spec") or {}).get("nodeName") for p in s.pods})
        return _phase(name, "done", detail, "node-pool-owner",
                      evidence=[_ev(_pod_cmd(s, _pod_name(p)), f"node={(p.get('spec') or {}).get('nodeName')}")
                                for p in s.pods[:3]] if nodes else [])
    reason = ""
    evidence: list[EvidenceLine] = []
    for p in s.pods:
        if _assigned(p):
            continue
        pn = _pod_name(p)
        c = _cond(p, "PodScheduled")
        if c and str(c.get("status")) == "False":
            t = _reason_text(c.get("reason"), c.get("message"))
            evidence.append(_ev(_pod_cmd(s, pn), f"condition PodScheduled=False {t}"))
            reason = reason or t
        for e in _events_of(s, "Pod", pn):
            if str(e.get("reason")) in ("FailedScheduling", "SchedulingFailed", "FailedPreemption"):
                t = _reason_text(e.get("reason"), e.get("message"))
                evidence.append(_ev(_events_cmd(s, pn), t))
                reason = reason or t
    if reason:
        return _phase(name, "warning", f"{detail} reason={reason}", "node-pool-owner",
                      hint="node selector/affinity or taint mismatch, or no free GPU in the pool; if Kueue admission "
                           "is not done, re-check it first",
                      next_action="check node selectors, tolerations and free GPUs of the node pool (kubectl "
                                  f"describe pod {_pod_name(next(p for p in s.pods if not _assigned(p)))} -n "
                                  f"{s.namespace})", evidence=evidence)
    return _phase(name, "active", f"{detail}; the scheduler has not reported a reason yet", "node-pool-owner",
                  next_action="wait a little; if pods stay unassigned, check the scheduler and node pool capacity",
                  evidence=evidence)


def claim_refs(s: Snapshot) -> list[str]:
    """ResourceClaim names the run's pods reference (pod ``spec.resourceClaims``; template-generated names from
    ``status.resourceClaimStatuses``), sorted and unique."""
    names: set[str] = set()
    for p in s.pods or []:
        generated = {c.get("name"): c.get("resourceClaimName") for c in _st(p).get("resourceClaimStatuses") or []}
        for rc in (p.get("spec") or {}).get("resourceClaims") or []:
            n = rc.get("resourceClaimName") or (rc.get("source") or {}).get("resourceClaimName") \
                or generated.get(rc.get("name"))
            if n:
                names.add(str(n))
            elif rc.get("resourceClaimTemplateName") or (rc.get("source") or {}).get("resourceClaimTemplateName"):
                names.add(f"(from template, for {_pod_name(p)}/{rc.get('name')})")
    return sorted(names)


def _device_plugin_gpus(s: Snapshot) -> bool:
    for p in s.pods or []:
        for c, _ in _containers(p, False):
            res = c.get("resources") or {}
            if any(str(k).endswith("/gpu") for k in {**(res.get("limits") or {}), **(res.get("requests") or {})}):
                return True
    return False


def _allocation_text(claim: dict) -> str:
    alloc = _st(claim).get("allocation") or {}
    results = ((alloc.get("devices") or {}).get("results")) or []
    devs = [f"{r.get('pool') or '?'}/{r.get('device') or '?'}" for r in results]
    return ",".join(devs) if devs else "allocated"


def dra_allocation(s: Snapshot) -> Phase:
    name = lc.DRA
    if s.kind is None:
        return _phase(name, "pending", "no run", "node-pool-owner")
    if s.pods is None:
        return _phase(name, "pending", "pods could not be read (see limitations)", "node-pool-owner")
    refs = claim_refs(s)
    if not refs:
        if not s.pods:
            td = _torn_down(s)
            if td:
                return _phase(name, "skipped", f"{td}; no ResourceClaims observed", "node-pool-owner")
            return _phase(name, "pending", "waiting for pods", "node-pool-owner")
        why = "GPUs requested through the device plugin, not DRA: expected, not a failure" \
            if _device_plugin_gpus(s) else "no ResourceClaims referenced by the pods"
        return _phase(name, "skipped", f"no ResourceClaims referenced; {why}", "node-pool-owner")
    if s.claims_error:
        return _phase(name, "active", f"{len(refs)} ResourceClaim(s) referenced; allocation not observed "
                                      f"({s.claims_error})", "node-pool-owner",
                      next_action=f"kubectl get resourceclaim -n {s.namespace}")
    allocated = 0
    parts: list[str] = []
    evidence: list[EvidenceLine] = []
    stuck = failing = missing = False
    blocked = ""
    for n in refs:
        claim = s.claims.get(n)
        src = f"kubectl get resourceclaim {n} -n {s.namespace} -o yaml"
        if claim is None:
            parts.append(f"{n}=not found")
            missing = True
            continue
        if _st(claim).get("allocation"):
            allocated += 1
            parts.append(f"{n}={_allocation_text(claim)}")
            evidence.append(_ev(src, f"allocated {_allocation_text(claim)}"))
            continue
        parts.append(f"{n}=allocating")
        created = parse_time(_md(claim).get("creationTimestamp"))
        age = (s.now - created) if created else None
        if age is not None and age > DRA_STUCK_AFTER:
            stuck = True
            evidence.append(_ev(src, f"no allocation {int(age.total_seconds())}s after creation"))
        # only evidence about this claim: its conditions and its own events
        for c in _st(claim).get("conditions") or []:
            if str(c.get("status")) in ("False", "Unknown"):
                t = _reason_text(c.get("reason") or c.get("type"), c.get("message"))
                evidence.append(_ev(src, f"condition {c.get('type')}={c.get('status')} {t}"))
                blocked = blocked or t
                failing = True
        for e in _events_of(s, "ResourceClaim", n):
            if str(e.get("type")) == "Warning":
                t = _reason_text(e.get("reason"), e.get("message"))
                evidence.append(_ev(_events_cmd(s, n), t))
                blocked = blocked or t
                failing = True
    detail = f"{allocated}/{len(refs)} allocated " + ", ".join(parts)
    if allocated == len(refs):
        return _phase(name, "done", detail, "node-pool-owner", evidence=evidence)
    if blocked:
        detail += f" reason={blocked}"
    hint = "allocation stuck past about 30 s usually means no matching GPU device: check ResourceSlices of the pool"
    action = (f"check ResourceSlice availability for the pool and the claim's device class (kubectl get "
              f"resourceclaim -n {s.namespace}; kubectl get resourceslices)")
    if missing:
        return _phase(name, "warning", detail, "node-pool-owner", hint="a referenced ResourceClaim does not exist",
                      next_action=f"kubectl get resourceclaim -n {s.namespace}: create the claim the pod names, or "
                                  "fix the pod's resourceClaims", evidence=evidence)
    if stuck or failing:
        return _phase(name, "warning", detail, "node-pool-owner", hint=hint, next_action=action, evidence=evidence)
    return _phase(name, "active", detail, "node-pool-owner", hint=hint, next_action=action, evidence=evidence)


def image_pull(s: Snapshot) -> Phase:
    name = lc.IMAGE_PULL
    if not s.pods:
        td = _torn_down(s) if s.pods is not None else None
        if td:
            return _phase(name, "done" if run_succeeded(s) else "skipped", td, "researcher")
        return _phase(name, "pending", "waiting for pods", "researcher")
    assigned = [p for p in s.pods if _assigned(p)]
    if not assigned:
        return _phase(name, "pending", "waiting for pod scheduling", "researcher")
    evidence: list[EvidenceLine] = []
    failure = ""
    waiting_pull = 0
    pulled: set[str] = set()
    for p in assigned:
        pn = _pod_name(p)
        init_pending = False
        for is_init in (True, False):
            for spec, cs in _containers(p, is_init):
                state, body = _state(cs)
                reason = str(body.get("reason") or "")
                img = spec.get("image") or (cs or {}).get("image") or "?"
                if state == "waiting" and reason in IMAGE_PULL_FAILURES:
                    t = f"{spec.get('name')}={_reason_text(reason, body.get('message'))}"
                    evidence.append(_ev(_pod_cmd(s, pn), f"container {t} image={img}"))
                    failure = failure or t
                elif state in ("running", "terminated") or (state == "waiting" and reason not in NOT_STARTED
                                                            and reason):
                    pulled.add(str(img))  # the container has run (or is failing after its image was pulled)
                elif is_init or not init_pending:
                    # ContainerCreating / no status yet. A main container waiting on init (PodInitializing) is
                    # not an image-pull wait: it pulls after init completes.
                    if not (state == "waiting" and reason == "PodInitializing"):
                        waiting_pull += 1
                if is_init and not (state == "terminated" and body.get("exitCode") == 0):
                    init_pending = True
        for e in _events_of(s, "Pod", pn):
            if str(e.get("reason")) in ("Failed", "ErrImagePull", "ImagePullBackOff") and \
                    ("image" in str(e.get("message") or "").lower() or str(e.get("reason")) != "Failed"):
                evidence.append(_ev(_events_cmd(s, pn), _reason_text(e.get("reason"), e.get("message"))))
    if failure:
        return _phase(name, "warning", failure, "researcher",
                      hint="ErrImagePull/ImagePullBackOff: wrong image name or tag, registry credentials, or node "
                           "egress",
                      next_action="verify the image name and tag, the registry credentials (imagePullSecrets) and "
                                  "node egress to the registry; a wrong pinned tag is the researcher's, a broken "
                                  "shared image its owning team's", evidence=evidence)
    if waiting_pull:
        pulling = [e for p in assigned for e in _events_of(s, "Pod", _pod_name(p)) if e.get("reason") == "Pulling"]
        detail = _one_line(pulling[-1].get("message")) if pulling else "waiting for the kubelet to pull images"
        return _phase(name, "active", detail, "researcher", hint="byte-level pull progress is not exposed by the "
                                                                 "kubelet", evidence=evidence,
                      next_action="wait for the pull; if it does not progress, check the image size and node egress")
    imgs = sorted(pulled)
    detail = "available: " + (", ".join(imgs[:2]) + (f", +{len(imgs) - 2} more" if len(imgs) > 2 else "")
                              if imgs else "(none reported)")
    return _phase(name, "done", detail, "researcher", evidence=evidence)


def _exit_text(body: dict | None) -> str:
    if not body:
        return ""
    return f"exit {body.get('exitCode')} ({body.get('reason') or 'no reason'})"


def init_containers(s: Snapshot) -> Phase:
    name = lc.INIT
    if not s.pods:
        td = _torn_down(s) if s.pods is not None else None
        if td:
            return _phase(name, "done" if run_succeeded(s) else "skipped", td, "researcher")
        return _phase(name, "pending", "waiting for pods", "researcher")
    total = done = 0
    failing = ""
    waiting = ""
    evidence: list[EvidenceLine] = []
    first_bad: tuple[str, str] | None = None
    for p in s.pods:
        pn = _pod_name(p)
        for spec, cs in _containers(p, True):
            total += 1
            state, body = _state(cs)
            cname = spec.get("name")
            if state == "terminated" and body.get("exitCode") == 0:
                done += 1
                continue
            last = _last_term(cs)
            reason = str(body.get("reason") or "")
            if state == "terminated" or (state == "waiting" and reason in CONTAINER_FAILURES) or \
                    (last and last.get("exitCode") not in (None, 0)):
                t = f"{cname} {reason or state}" + (f", last {_exit_text(last)}" if last else
                                                    f" {_exit_text(body)}" if state == "terminated" else "")
                t += f", restarts={(cs or {}).get('restartCount', 0)}"
                evidence.append(_ev(_pod_cmd(s, pn), f"init container {t}"))
                failing = failing or t
                first_bad = first_bad or (pn, str(cname))
            elif not waiting:
                waiting = f"{cname} {reason or state or 'not started'}"
    if total == 0:
        return _phase(name, "skipped", "no init containers", "researcher")
    detail = f"{done}/{total} complete"
    if done == total:
        return _phase(name, "done", detail, "researcher")
    if failing:
        pn, cn = first_bad or ("?", "?")
        return _phase(name, "warning", f"{detail} reason={failing}", "researcher",
                      hint="the init step is crashing before the main container can start: an application problem, "
                           "not an infrastructure one",
                      next_action=f"kubectl logs {pn} -n {s.namespace} -c {cn} --previous; fix the init step",
                      evidence=evidence)
    return _phase(name, "active", f"{detail} reason={waiting}" if waiting else detail, "researcher",
                  hint="storage mounts or a slow init step keep init running" if "mount" in waiting.lower() else None,
                  next_action="wait for init to finish; if it does not, read the init container's log",
                  evidence=evidence)


def _init_complete(p: dict) -> bool:
    return all(_state(cs)[0] == "terminated" and _state(cs)[1].get("exitCode") == 0 for _, cs in _containers(p, True))


def container_start(s: Snapshot) -> Phase:
    name = lc.CONTAINER_START
    if not s.pods:
        td = _torn_down(s) if s.pods is not None else None
        failed = _job_condition_true(s.job, "Failed") if s.kind == "Job" else None
        if td and failed:  # a failed Job has no RayJob status phase: its failure must show on a listed phase
            return _phase(name, "warning", f"Job failed {_reason_text(failed.get('reason'), failed.get('message'))}; "
                                           "pods removed, so the container's own exit is not observable", "researcher",
                          next_action=f"kubectl describe job {s.name} -n {s.namespace}; read the logs of the next "
                                      "attempt before resubmitting",
                          evidence=[_ev(f"kubectl get job {s.name} -n {s.namespace} -o yaml",
                                        f"condition Failed=True {_reason_text(failed.get('reason'), failed.get('message'))}")])
        if td:
            return _phase(name, "done" if run_succeeded(s) else "skipped", td, "researcher")
        return _phase(name, "pending", "waiting for pods", "researcher")
    total = started = 0
    failing = ""
    blocked = ""
    evidence: list[EvidenceLine] = []
    first_bad: tuple[str, str] | None = None
    for p in s.pods:
        pn = _pod_name(p)
        for spec, cs in _containers(p, False):
            total += 1
            state, body = _state(cs)
            cname = spec.get("name")
            reason = str(body.get("reason") or "")
            last = _last_term(cs)
            if state == "running" or (state == "terminated" and body.get("exitCode") == 0):
                started += 1
                if last and last.get("exitCode") not in (None, 0):
                    evidence.append(_ev(_pod_cmd(s, pn), f"container {cname} restarted after {_exit_text(last)}, "
                                                         f"restarts={(cs or {}).get('restartCount', 0)}"))
                continue
            if state == "terminated" or (state == "waiting" and reason in CONTAINER_FAILURES):
                t = f"{cname} {reason or state}" + (f", last {_exit_text(last)}" if last and state == "waiting"
                                                    else f" {_exit_text(body)}" if state == "terminated" else "")
                if state == "waiting" and body.get("message"):
                    t += f": {_one_line(body.get('message'), 160)}"
                t += f", restarts={(cs or {}).get('restartCount', 0)}"
                evidence.append(_ev(_pod_cmd(s, pn), f"container {t}"))
                failing = failing or t
                first_bad = first_bad or (pn, str(cname))
            elif not blocked and reason not in IMAGE_PULL_FAILURES:
                blocked = f"{cname} {reason or state or 'not started'}"
    if total == 0:
        return _phase(name, "pending", "container statuses not available", "researcher")
    detail = f"{started}/{total} started"
    if started == total:
        return _phase(name, "done", detail, "researcher", evidence=evidence)
    if failing:
        pn, cn = first_bad or ("?", "?")
        return _phase(name, "warning", f"{detail} reason={failing}", "researcher",
                      hint="the application is crashing before it becomes ready: an application problem, not an "
                           "infrastructure one",
                      next_action=f"kubectl logs {pn} -n {s.namespace} -c {cn} --previous; fix the application or "
                                  "its configuration", evidence=evidence)
    return _phase(name, "active", f"{detail} reason={blocked}" if blocked else detail, "researcher",
                  hint="container startup is still waiting on image, volume, init or runtime setup"
                  if any(r in blocked for r in NOT_STARTED) else None,
                  next_action="wait for the containers to start; re-check the phases above if this does not move",
                  evidence=evidence)


def _pod_ready(p: dict) -> bool:
    return _st(p).get("phase") == "Succeeded" or _true(_cond(p, "Ready"))


def ready(s: Snapshot) -> Phase:
    name = lc.READY
    if not s.pods:
        td = _torn_down(s) if s.pods is not None else None
        if td:
            return _phase(name, "done" if run_succeeded(s) else "skipped", td, "researcher")
        return _phase(name, "pending", "waiting for pods", "researcher")
    n_ready = sum(1 for p in s.pods if _pod_ready(p))
    detail = f"{n_ready}/{len(s.pods)} pods ready"
    if n_ready == len(s.pods):
        return _phase(name, "done", detail, "researcher")
    evidence: list[EvidenceLine] = []
    failed = ""
    for p in s.pods:
        if _pod_ready(p):
            continue
        pn = _pod_name(p)
        if _st(p).get("phase") == "Failed":
            failed = failed or f"{pn} Failed {_one_line(_st(p).get('reason'), 60)}".strip()
        c = _cond(p, "Ready")
        if c:
            evidence.append(_ev(_pod_cmd(s, pn), f"condition Ready={c.get('status')} "
                                                 f"{_reason_text(c.get('reason'), c.get('message'))}".strip()))
    if failed:
        return _phase(name, "warning", f"{detail} reason={failed}", "researcher",
                      next_action=f"kubectl describe pod {failed.split()[0]} -n {s.namespace}; read its logs",
                      evidence=evidence)
    running_unready = [p for p in s.pods if _st(p).get("phase") == "Running" and not _pod_ready(p)]
    hint = "containers are running but the readiness probe is not passing" if running_unready else None
    target = _pod_name(running_unready[0] if running_unready else next(p for p in s.pods if not _pod_ready(p)))
    return _phase(name, "active", detail, "researcher", hint=hint,
                  next_action=f"check the readiness probe and the application log (kubectl logs {target} -n "
                              f"{s.namespace})", evidence=evidence)


def rayjob_status(s: Snapshot) -> Phase:
    name = lc.RAYJOB_STATUS
    st = _st(s.rayjob)
    dep, js = str(st.get("jobDeploymentStatus") or ""), str(st.get("jobStatus") or "")
    src = f"kubectl get rayjob {s.name} -n {s.namespace} -o yaml"
    shown = " ".join(x for x in (dep and f"deployment={dep}", js and f"job={js}") if x)
    ev = [_ev(src, shown or "no status reported")]
    reason = _reason_text(st.get("reason"), st.get("message"))
    if rayjob_failed(s.rayjob):
        return _phase(name, "warning", f"{shown} reason={reason}" if reason else shown, "researcher",
                      hint="the Ray application (driver) failed: read the driver log before resubmitting",
                      next_action=f"read the Ray job driver log (kubectl logs -n {s.namespace} -l "
                                  f"job-name={s.name}, or `ray job logs {st.get('jobId') or '<job-id>'}`); fix the "
                                  "application", evidence=ev)
    if rayjob_succeeded(s.rayjob):
        return _phase(name, "done", shown, "researcher", evidence=ev)
    if dep == "Running" or js.upper() == "RUNNING":
        return _phase(name, "done", f"{shown} (running is not proof of progress: read the driver log)", "researcher",
                      evidence=ev)
    if not shown:
        return _phase(name, "pending", "waiting for RayJob status", "researcher", evidence=ev,
                      next_action="wait for KubeRay to report the RayJob's status")
    return _phase(name, "active", shown, "researcher", evidence=ev,
                  next_action="wait for the Ray job to be submitted and start running")


def compute_release(s: Snapshot) -> Phase:
    """Extra phase (never counted by first_incomplete): whether a finished RayJob's pods still hold nodes."""
    name = lc.COMPUTE_RELEASE
    if not run_ended(s):
        return _phase(name, "pending", "waiting for the RayJob to end", "platform")
    if s.pods is None:
        return _phase(name, "warning", "pods could not be read: whether the GPUs are free is unknown", "platform")
    active = [p for p in s.pods if _st(p).get("phase") not in ("Succeeded", "Failed")]
    if active:
        nodes = sorted({(p.get("spec") or {}).get("nodeName") or "?" for p in active})
        return _phase(name, "active", f"{len(active)} Ray pod(s) still hold node(s): {', '.join(nodes)}", "platform",
                      next_action="wait for KubeRay to delete the RayCluster before resubmitting into tight capacity")
    return _phase(name, "done", "no active Ray pods remain", "platform")


def walk(s: Snapshot) -> list[Phase]:
    """The ordered phases of one snapshot (RayJob-only phases only for a RayJob)."""
    phases = [submitted(s), kueue_admission(s)]
    if s.kind == "RayJob":
        phases.append(raycluster(s))
    phases += [pod_scheduling(s), dra_allocation(s), image_pull(s), init_containers(s), container_start(s), ready(s)]
    if s.kind == "RayJob":
        phases += [rayjob_status(s), compute_release(s)]
    return phases
