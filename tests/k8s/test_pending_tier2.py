"""The pending diagnosis with Tier 2: no Run:ai message names the wait, so the workload's own pod is read from a REAL
kube-apiserver (its PodScheduled condition, the scheduler's events, the lifecycle view's scheduling layer), with the
Run:ai simulator for Tier 1."""
from __future__ import annotations

import pytest

from tests.k8s import builders as b
from workload_diagnose.agent.api import run_procedure
from workload_diagnose.agent.taxonomy.pending_registry import REASONS
from workload_diagnose.evals.simulator import running_simulator

pytestmark = pytest.mark.k8s
CL = "3f2c7a1e-8d4b-4c1e-9a57-2b6e0d9c4f11"
NOW = "2025-03-14T10:00:00Z"
FULL = "0/3 nodes are available: 3 Insufficient nvidia.com/gpu. preemption: 0/3 nodes are available: 3 No " \
       "preemption victims found for incoming pod.."


def _reason(words: str) -> str:  # a reason's name, from its summary (test files name no reason)
    return next(r.name for r in REASONS if words in r.summary)


def _world(project: str, ns: str, pod: str, uid: str) -> dict:
    wid = "5d0c4a8e-2f1b-4c3d-9e8f-7a6b5c4d3e2f"
    return {"workloads": [{"id": wid, "name": "train-x", "type": "Training", "clusterId": CL, "projectName": project,
                           "namespace": ns, "phase": "Pending", "phaseUpdatedAt": "2025-03-14T09:00:00Z",
                           "createdAt": "2025-03-14T08:59:00Z", "requestedNodePools": ["a100"],
                           "workloadRequestedResources": {"gpu": {"request": 8}}}],
            "events": {wid: []}, "pods": {wid: [{"name": pod, "id": uid, "k8sPhase": "Pending"}]},
            "history": {wid: []},
            "projects": [{"name": project, "clusterId": CL, "resources": [
                {"nodePool": {"id": "3", "name": "a100"}, "gpu": {"deserved": 16, "limit": -1}}],
                "status": {"nodePoolQuotaStatuses": [{"nodePoolName": "a100", "nodePoolId": "3",
                                                      "allocated": {"gpu": 4}}]}}],
            "nodepools": [{"name": "a100", "clusterId": CL}],
            "nodepool_gpus": {"a100": {"TOTAL_GPU": "24", "ALLOCATED_GPU": "22", "UNALLOCATED_GPU": "2"}}}, wid


def _run(world: dict, wid: str, reader):
    with running_simulator(world) as sim:
        return run_procedure("pending", cluster_id=CL, workload_id=wid, now=NOW, runai_url=sim.url,
                             client_id=sim.client_id, client_secret=sim.client_secret, use_kube=True,
                             kube_reader=reader, retry_sleep=lambda s: None)


def _pod(api, ns: str, name: str, *, node: str | None, labels: dict | None = None) -> str:
    cond = [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": FULL,
             "lastTransitionTime": b.ts(1)}] if node is None else None
    b.make_pod(api, ns, name, node=node, containers=[b.container("main", gpus=8)], labels=labels,
               status=b.pod_status("Pending", containers=[], conditions=cond))
    return api.read_namespaced_pod(name, ns).metadata.uid


def test_the_scheduler_events_of_the_workloads_pod_name_the_wait(admin_core, reader):
    project = b.uniq("pend")
    ns = b.make_namespace(admin_core, project)
    pod = "train-x-0-0"
    uid = _pod(admin_core, ns, pod, node=None, labels={"kueue.x-k8s.io/queue-name": "team-a",
                                                      "batch.kubernetes.io/job-name": "train-x"})
    b.make_event(admin_core, ns, name="sched", involved_name=pod, reason="FailedScheduling", message=FULL,
                 component="default-scheduler", first=2)
    world, wid = _world(project, ns, pod, uid)
    res = _run(world, wid, reader)
    assert (res.outcome, res.reason) == ("diagnosed", _reason("lacks free GPUs")), res.report
    cited = {e.source for e in res.evidence}
    assert f"kubectl get events -n {ns} --field-selector involvedObject.name={pod}" in cited
    assert any(e.text.startswith("Lifecycle layer Pod scheduling: warning") for e in res.evidence), res.report
    assert any(f"`lifecycle train-x --namespace {ns}`" in r for r in res.recommendations)  # Kueue: admission layer
    assert "2 free of 24" in res.report and any(c.tool == "kubernetes" for c in res.tool_calls)


def test_a_pod_already_bound_to_a_node_is_the_failed_diagnosis(admin_core, reader, k8s_env):
    project = b.uniq("pend")
    ns = b.make_namespace(admin_core, project)
    pod = "train-x-0-0"
    uid = _pod(admin_core, ns, pod, node=k8s_env.node)
    world, wid = _world(project, ns, pod, uid)
    res = _run(world, wid, reader)
    assert (res.outcome, res.route, res.next) == ("routed", "pod_start", "failed"), res.report
    assert not any(c.tool in ("find_project", "get_node_pool_gpus") for c in res.tool_calls)


def test_a_stale_pod_of_the_same_name_is_not_evidence(admin_core, reader):
    project = b.uniq("pend")
    ns = b.make_namespace(admin_core, project)
    pod = "train-x-0-0"
    _pod(admin_core, ns, pod, node=None)
    b.make_event(admin_core, ns, name="sched", involved_name=pod, reason="FailedScheduling", message=FULL,
                 component="default-scheduler", first=2)
    world, wid = _world(project, ns, pod, "0f0e0d0c-0b0a-4909-8807-060504030201")  # Run:ai knows another pod
    res = _run(world, wid, reader)
    assert (res.outcome, res.reason) == ("diagnosed", _reason("no message names")), res.report
    assert any("is not the workload's pod" in x for x in res.limitations)
