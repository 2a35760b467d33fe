"""The KubeRay rules: the RayCluster a RayJob creates, the RayJob's own status, and whether its pods release compute."""
from __future__ import annotations

from workload_diagnose.agent.model import lifecycle as lc
from workload_diagnose.agent.model.lifecycle import Phase
from workload_diagnose.agent.model.result import EvidenceLine
from workload_diagnose.agent.procedures.kit.layers.common import (Snapshot, _ev, _one_line, _phase, _reason_text, _st, _true,
                                                      rayjob_failed, rayjob_succeeded, run_ended)
from workload_diagnose.agent.procedures.kit.layers.pods import container_start, image_pull, init_containers, pod_scheduling

SUBMITTER_LAYERS = (pod_scheduling, image_pull, init_containers, container_start)


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


def _submitter_layers(s: Snapshot) -> list[Phase]:
    if s.kind != "RayJob" or s.submitter is None or not s.submitter_pods:
        return []
    sub = Snapshot(name=(s.submitter.get("metadata") or {}).get("name") or s.name, namespace=s.namespace, now=s.now,
                   kind="Job", job=s.submitter, pods=s.submitter_pods, events=s.events)
    return [rule(sub) for rule in SUBMITTER_LAYERS]


def submitter_waiting(s: Snapshot) -> Phase | None:
    """The first submitter layer still pending or active (its pod not yet scheduled, pulling, initialising)."""
    return next((p for p in _submitter_layers(s) if p.status in ("pending", "active")), None)


def submitter_failure(s: Snapshot) -> Phase | None:
    """The first failing layer of KubeRay's submitter (the batch Job named after the RayJob, owned by it, whose pod
    runs ``ray job submit``), walked with the pod rules over the submitter's own pods; None when nothing fails.

    KubeRay creates the submitter only once the RayCluster is ready, and the RayJob's job status comes from the
    Ray dashboard, so a submitter that never runs (image pull, crash, exit 1) shows nowhere else: it belongs to
    the RayJob's own layer, not to the RayCluster's pod layers (which stay as they are)."""
    if s.kind != "RayJob" or s.submitter is None or s.submitter_pods is None:
        return None
    if not s.submitter_pods:  # pods gone: a Failed submitter Job still says why (its condition)
        sub = Snapshot(name=s.name, namespace=s.namespace, now=s.now, kind="Job", job=s.submitter, pods=[],
                       events=s.events)
        p = container_start(sub)
        return p if p.status == "warning" else None
    return next((p for p in _submitter_layers(s) if p.status == "warning"), None)


def rayjob_status(s: Snapshot) -> Phase:
    sub = submitter_failure(s)
    phase = _rayjob_status(s, sub)
    if sub is not None and phase.status != "warning":
        phase.evidence += sub.evidence  # history (e.g. an earlier failed attempt): shown, not the verdict
    return phase


def _submitter_text(sub: Phase) -> str:
    return f"submitter Job ({sub.name.lower()}): {sub.detail}"


def _rayjob_status(s: Snapshot, sub: Phase | None) -> Phase:
    name = lc.RAYJOB_STATUS
    st = _st(s.rayjob)
    dep, js = str(st.get("jobDeploymentStatus") or ""), str(st.get("jobStatus") or "")
    src = f"kubectl get rayjob {s.name} -n {s.namespace} -o yaml"
    shown = " ".join(x for x in (dep and f"deployment={dep}", js and f"job={js}") if x)
    ev = [_ev(src, shown or "no status reported")]
    reason = _reason_text(st.get("reason"), st.get("message"))
    if rayjob_failed(s.rayjob):
        detail = f"{shown} reason={reason}" if reason else shown
        if sub is not None and js.upper() != "FAILED":  # the deployment failed before the Ray job did: submission
            return _phase(name, "warning", f"{detail}; {_submitter_text(sub)}", sub.owner,
                          hint="KubeRay's submitter pod (ray job submit) failed, so the Ray job was not submitted or "
                               "followed: fix the submitter before resubmitting", next_action=sub.next_action,
                          evidence=ev + sub.evidence)
        return _phase(name, "warning", detail, "researcher",
                      hint="the Ray application (driver) failed: read the driver log before resubmitting",
                      next_action=f"read the Ray job driver log (kubectl logs -n {s.namespace} -l "
                                  f"job-name={s.name}, or `ray job logs {st.get('jobId') or '<job-id>'}`); fix the "
                                  "application", evidence=ev + (sub.evidence if sub else []))
    if rayjob_succeeded(s.rayjob):
        return _phase(name, "done", shown, "researcher", evidence=ev)
    if sub is not None:  # KubeRay marks the RayJob Failed (SubmissionFailed) once the submitter Job gives up
        return _phase(name, "warning", f"{shown + '; ' if shown else ''}{_submitter_text(sub)}", sub.owner,
                      hint="KubeRay's submitter pod (ray job submit) is failing: the RayCluster is up but the Ray "
                           "job is not submitted or followed; the RayJob fails once the submitter Job's retries "
                           "are used up", next_action=sub.next_action, evidence=ev + sub.evidence)
    waiting = submitter_waiting(s) if js.upper() != "RUNNING" else None
    if waiting is not None:  # the RayCluster is up; the Ray job is not submitted until the submitter pod runs
        return _phase(name, "active", f"{shown + '; ' if shown else ''}{_submitter_text(waiting)}", waiting.owner,
                      hint=waiting.hint, evidence=ev + waiting.evidence,
                      next_action=waiting.next_action or "wait for KubeRay's submitter pod to start (kubectl "
                                                         f"describe pod -n {s.namespace} -l job-name={s.name})")
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

