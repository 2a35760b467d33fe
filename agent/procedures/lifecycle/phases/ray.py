"""The KubeRay rules: the RayCluster a RayJob creates, the RayJob's own status, and whether its pods release compute."""
from __future__ import annotations

from agent.model import lifecycle as lc
from agent.model.lifecycle import Phase
from agent.model.result import EvidenceLine
from agent.procedures.lifecycle.phases.common import (Snapshot, _ev, _one_line, _phase, _reason_text, _st, _true,
                                                      rayjob_failed, rayjob_succeeded, run_ended)


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

