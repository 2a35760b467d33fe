"""Phase rules on hand-made snapshots: the artifacts issue 11 lists, each a case a reader could get wrong."""
from __future__ import annotations

from datetime import datetime, timezone

from agent.model.lifecycle import first_incomplete
from agent.procedures.lifecycle import phases as ph

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)


def snap(**kw) -> ph.Snapshot:
    kw.setdefault("kind", "Job")
    kw.setdefault("job", {"metadata": {"name": "t", "labels": {"kueue.x-k8s.io/queue-name": "q"}}})
    return ph.Snapshot(name="t", namespace="ns", now=NOW, **kw)


def wl(*conds) -> dict:
    return {"metadata": {"name": "w"}, "spec": {"queueName": "q"},
            "status": {"conditions": [dict(zip(("type", "status", "reason", "message"), c)) for c in conds]}}


def by_name(s):
    return {p.name: p for p in ph.walk(s)}


def test_inadmissible_is_the_platforms():
    p = ph.kueue_admission(snap(workloads=[wl(("QuotaReserved", "False", "Inadmissible",
                                              "LocalQueue q doesn't exist"))]))
    assert (p.status, p.owner) == ("warning", "platform") and "Inadmissible" in p.detail


def test_eviction_from_conditions_even_when_readmitted_is_done():
    # admitted again after an eviction: done (the eviction is history, not the current layer)
    p = ph.kueue_admission(snap(workloads=[wl(("Admitted", "True", "Admitted", ""),
                                              ("Evicted", "False", "Preempted", ""))]))
    assert p.status == "done"


def test_not_kueue_managed_is_skipped_not_incomplete():
    s = snap(job={"metadata": {"name": "t"}}, workloads=[])
    assert ph.kueue_admission(s).status == "skipped"


def test_failed_job_without_pods_is_not_complete():
    job = {"metadata": {"name": "t"}, "status": {"conditions": [
        {"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded", "message": "Job has reached the "
                                                                                          "specified backoff limit"}]}}
    phases = ph.walk(snap(job=job, workloads=[], pods=[]))
    first = first_incomplete(phases)
    assert first is not None and first.name == "Container start" and first.status == "warning"
    assert "BackoffLimitExceeded" in first.detail


def test_compute_release_never_counts():
    rj = {"metadata": {"name": "t"}, "status": {"jobDeploymentStatus": "Running", "jobStatus": "RUNNING",
                                                "rayClusterName": "c"}}
    pod = {"metadata": {"name": "c-head"}, "spec": {"nodeName": "n", "containers": [{"name": "ray-head"}]},
           "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}],
                      "containerStatuses": [{"name": "ray-head", "ready": True, "state": {"running": {}}}]}}
    s = snap(kind="RayJob", job=None, rayjob=rj, raycluster={"status": {"state": "ready"}}, raycluster_name="c",
             workloads=[wl(("Admitted", "True", "Admitted", ""))], pods=[pod])
    phases = ph.walk(s)
    assert phases[-1].name == "Compute release" and phases[-1].status == "pending"
    assert first_incomplete(phases) is None


def test_rayjob_failed_blames_raycluster_only_when_it_failed():
    rj = {"metadata": {"name": "t"}, "status": {"jobDeploymentStatus": "Failed", "jobStatus": "FAILED",
                                                "reason": "AppFailed", "rayClusterName": "c"}}
    base = dict(kind="RayJob", job=None, rayjob=rj, raycluster_name="c", workloads=[], pods=[])
    ok = ph.walk(snap(raycluster={"status": {"state": "ready"}}, **base))
    assert first_incomplete(ok).name == "RayJob status"
    bad = ph.walk(snap(raycluster={"status": {"state": "failed", "reason": "HeadPodCrash"}}, **base))
    assert first_incomplete(bad).name == "RayCluster" and first_incomplete(bad).owner == "platform"


def test_init_running_keeps_main_pull_out_of_image_pull():
    pod = {"metadata": {"name": "p"}, "spec": {"nodeName": "n", "initContainers": [{"name": "i", "image": "a"}],
                                               "containers": [{"name": "m", "image": "b"}]},
           "status": {"phase": "Pending",
                      "initContainerStatuses": [{"name": "i", "state": {"running": {}}}],
                      "containerStatuses": [{"name": "m", "state": {"waiting": {"reason": "PodInitializing"}}}]}}
    p = by_name(snap(workloads=[], job={"metadata": {"name": "t"}}, pods=[pod]))
    assert p["Image pull"].status == "done" and p["Init containers"].status == "active"


def test_dra_warning_ignores_unrelated_failed_events():
    pod = {"metadata": {"name": "p"}, "spec": {"nodeName": "n", "resourceClaims": [
        {"name": "g", "resourceClaimName": "c"}], "containers": [{"name": "m"}]}}
    claim = {"metadata": {"name": "c", "creationTimestamp": "2026-03-01T11:59:55Z"}, "status": {}}
    s = snap(pods=[pod], claims={"c": claim}, events={
        ("Pod", "p"): [{"type": "Warning", "reason": "FailedCreatePodSandBox", "message": "failed"}],
        ("Job", "t"): [{"type": "Warning", "reason": "FailedAllocation", "message": "failed"}]})
    assert ph.dra_allocation(s).status == "active"  # 5 s old, no evidence about the claim itself
