"""Phase rules on hand-made snapshots: the artifacts issue 11 lists, each a case a reader could get wrong."""
from __future__ import annotations

from datetime import datetime, timezone

from workload_diagnose.agent.model.lifecycle import first_incomplete
from workload_diagnose.agent.procedures.kit import layers as ph

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


def _admitted_wl(api_version: str, spec: dict, topology: dict) -> dict:
    return {"apiVersion": api_version, "metadata": {"name": "w"}, "spec": {"queueName": "q", **spec},
            "status": {"conditions": [{"type": "Admitted", "status": "True", "reason": "Admitted"}],
                       "admission": {"clusterQueue": "cq", "podSetAssignments": [
                           {"name": "main", "count": 4, "flavors": {"nvidia.com/gpu": "h100"},
                            "topologyAssignment": topology}]}}}


def test_workload_shapes_v1beta1_and_v1beta2_read_alike():
    """Kueue ≤0.13 (v1beta1) and newer (v1beta2) Workloads differ in the topology assignment (domains vs slices)
    and the priority class (priorityClassName/Source vs priorityClassRef): both read to the same evidence."""
    from workload_diagnose.agent.procedures.kit.layers.kueue import admission_text, priority_text

    v1 = _admitted_wl("kueue.x-k8s.io/v1beta1",
                      {"priority": 7, "priorityClassName": "low",
                       "priorityClassSource": "kueue.x-k8s.io/workloadpriorityclass"},
                      {"levels": ["rack", "host"], "domains": [{"values": ["r1", "h1"], "count": 2},
                                                               {"values": ["r1", "h2"], "count": 2}]})
    v2 = _admitted_wl("kueue.x-k8s.io/v1beta2",
                      {"priority": 7, "priorityClassRef": {"group": "kueue.x-k8s.io",
                                                           "kind": "WorkloadPriorityClass", "name": "low"}},
                      {"levels": ["rack", "host"], "slices": [{"domainCount": 2, "podCounts": {"universal": 2},
                                                               "valuesPerLevel": [{"universal": "r1"},
                                                                                  {"individual": {"roots": [
                                                                                      "h1", "h2"]}}]}]})
    for w in (v1, v2):
        assert admission_text(w) == "ClusterQueue cq: main count=4 flavors=nvidia.com/gpu=h100 topology=2 domain(s)"
        assert priority_text(w).startswith("priority class low (") and priority_text(w).endswith("priority=7")
        p = ph.kueue_admission(snap(workloads=[w]))
        assert p.status == "done" and any("topology=2 domain(s)" in e.text for e in p.evidence)
    assert admission_text({"status": {}}) == "" and priority_text({"spec": {}}) == ""


def test_kueue_not_installed_is_skipped_with_the_reason():
    p = ph.kueue_admission(snap(workloads=[], kueue_served=False))
    assert p.status == "skipped" and "Kueue is not installed" in p.detail and "queue-name=q" in p.detail


def _ray(status: dict, sub_pod_status: dict, sub_job_status: dict | None = None) -> ph.Snapshot:
    head = {"metadata": {"name": "c-head"}, "spec": {"nodeName": "n", "containers": [{"name": "ray-head"}]},
            "status": {"phase": "Running", "conditions": [{"type": "PodScheduled", "status": "True"},
                                                          {"type": "Ready", "status": "True"}],
                       "containerStatuses": [{"name": "ray-head", "ready": True, "state": {"running": {}}}]}}
    sub = {"metadata": {"name": "t-sub"}, "spec": {"nodeName": "n", "containers": [{"name": "ray-job-submitter"}]},
           "status": sub_pod_status}
    return snap(kind="RayJob", job=None, rayjob={"metadata": {"name": "t", "labels": {}},
                                                 "status": {"rayClusterName": "c", **status}},
                raycluster_name="c", raycluster={"status": {"state": "ready"}}, pods=[head],
                submitter={"metadata": {"name": "t"}, "status": sub_job_status or {}}, submitter_pods=[sub])


def test_crashlooping_submitter_is_the_rayjobs_layer_not_a_pod_layer():
    s = _ray({"jobDeploymentStatus": "Running"}, {"phase": "Running", "containerStatuses": [
        {"name": "ray-job-submitter", "restartCount": 3, "state": {"waiting": {"reason": "CrashLoopBackOff"}},
         "lastState": {"terminated": {"exitCode": 1, "reason": "Error"}}}]})
    phases = ph.walk(s)
    first = first_incomplete(phases)
    assert first is not None and first.name == "RayJob status" and first.status == "warning", first
    assert first.owner == "researcher" and "CrashLoopBackOff" in first.detail and "exit 1" in first.detail
    assert "kubectl logs t-sub" in (first.next_action or "") and "-c ray-job-submitter" in first.next_action
    assert all(p.status == "done" for p in phases if p.name in ("Image pull", "Container start", "Ready"))


def test_application_failure_keeps_the_driver_log_action_and_shows_the_submitters_exit():
    s = _ray({"jobDeploymentStatus": "Failed", "jobStatus": "FAILED", "reason": "AppFailed"},
             {"phase": "Failed", "containerStatuses": [{"name": "ray-job-submitter", "state": {
                 "terminated": {"exitCode": 1, "reason": "Error"}}}]})
    p = ph.rayjob_status(s)
    assert p.status == "warning" and "driver log" in (p.next_action or "") and "AppFailed" in p.detail
    assert any("ray-job-submitter" in e.text and "exit 1" in e.text for e in p.evidence)


def test_healthy_submitter_changes_nothing():
    s = _ray({"jobDeploymentStatus": "Running", "jobStatus": "RUNNING"}, {"phase": "Running", "containerStatuses": [
        {"name": "ray-job-submitter", "ready": True, "state": {"running": {}}}]})
    assert first_incomplete(ph.walk(s)) is None


def test_submitter_still_pulling_keeps_rayjob_status_active():
    s = _ray({"jobDeploymentStatus": "Running"}, {"phase": "Pending", "containerStatuses": [
        {"name": "ray-job-submitter", "state": {"waiting": {"reason": "ContainerCreating"}}}]})
    p = ph.rayjob_status(s)
    assert p.status == "active" and "submitter Job (image pull)" in p.detail and p.next_action


def test_failed_submitter_job_without_pods_still_shows_why():
    s = _ray({"jobDeploymentStatus": "Failed", "reason": "SubmissionFailed"}, {})
    s.submitter_pods = []
    s.submitter["status"] = {"conditions": [{"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded",
                                             "message": "Job has reached the specified backoff limit"}]}
    p = ph.rayjob_status(s)
    assert p.status == "warning" and "BackoffLimitExceeded" in p.detail and "submitter Job" in p.detail
