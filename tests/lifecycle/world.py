"""Lifecycle scenarios built on the REAL kube-apiserver (no controllers run: every status is written directly).

Each builder makes one run in its own namespace and returns a :class:`Built`. Writes use an admin client; the code
under test only ever reads, through the read-only client.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from tests.k8s import builders as b
from tests.lifecycle.proxy import ANN_CLAIMS, ANN_STATUSES

CRDS = ("kueue.x-k8s.io_workloads.yaml", "ray.io_rayjobs.yaml", "ray.io_rayclusters.yaml")
KV = ("kueue.x-k8s.io", "v1beta1", "workloads")  # the Workload CRD serves v1beta1 and v1beta2 (storage)
KV2 = ("kueue.x-k8s.io", "v1beta2", "workloads")
RAY = ("ray.io", "v1")
DRA = ("resource.k8s.io", "v1beta1", "resourceclaims")
NOW = lambda: datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")  # noqa: E731


@dataclass
class Built:
    name: str
    ns: str
    now_offset_s: int = 0  # the clock the walk is asked to use, relative to the real time
    via_proxy: bool = False
    discovery: dict | None = None  # API discovery answers the proxy stands in for (tests/lifecycle/proxy.py)


KUEUE_V1BETA1_ONLY = {"kueue.x-k8s.io": {  # a Kueue ≤0.13 cluster: only v1beta1 is served
    "kind": "APIGroup", "apiVersion": "v1", "name": "kueue.x-k8s.io",
    "versions": [{"groupVersion": "kueue.x-k8s.io/v1beta1", "version": "v1beta1"}],
    "preferredVersion": {"groupVersion": "kueue.x-k8s.io/v1beta1", "version": "v1beta1"}}}
KUEUE_ABSENT = {"kueue.x-k8s.io": None}  # Kueue is not installed: discovery answers 404


@dataclass
class Admin:
    core: object
    batch: object
    custom: object
    node: str


def resource_claim_crd() -> dict:
    return {
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "resourceclaims.resource.k8s.io",
                     "annotations": {"api-approved.kubernetes.io": "unapproved, test stand-in for DRA"}},
        "spec": {"group": "resource.k8s.io", "scope": "Namespaced",
                 "names": {"plural": "resourceclaims", "singular": "resourceclaim", "kind": "ResourceClaim"},
                 "versions": [{"name": "v1beta1", "served": True, "storage": True, "subresources": {"status": {}},
                               "schema": {"openAPIV3Schema": {"type": "object",
                                                              "x-kubernetes-preserve-unknown-fields": True}}}]},
    }


def load_crds(api_client, shared_k8s: Path) -> None:
    import time

    import yaml
    from kubernetes import client
    from kubernetes.client.exceptions import ApiException

    ext = client.ApiextensionsV1Api(api_client)
    docs = [yaml.safe_load((shared_k8s / "crds" / f).read_text()) for f in CRDS] + [resource_claim_crd()]
    for d in docs:
        try:
            ext.create_custom_resource_definition(d)
        except ApiException as e:
            if e.status != 409:
                raise
    for d in docs:
        for _ in range(100):
            crd = ext.read_custom_resource_definition(d["metadata"]["name"])
            if any(c.type == "Established" and c.status == "True" for c in (crd.status.conditions or [])):
                break
            time.sleep(0.1)


def _cond(type_: str, status: str, reason: str, message: str = "") -> dict:
    return {"type": type_, "status": status, "reason": reason, "message": message or reason,
            "lastTransitionTime": NOW()}


def _ns(a: Admin, prefix: str) -> str:
    ns = b.uniq(prefix)
    a.core.create_namespace({"metadata": {"name": ns}})
    return ns


def make_job(a: Admin, ns: str, name: str, *, queue: str | None = "team-a", owner: dict | None = None) -> dict:
    md: dict = {"name": name, "labels": {"kueue.x-k8s.io/queue-name": queue} if queue else {}}
    if owner:
        md["ownerReferences"] = [owner]
    body = {"metadata": md, "spec": {"suspend": True, "template": {"spec": {
        "restartPolicy": "Never", "containers": [b.container("main")]}}}}
    return a.batch.create_namespaced_job(ns, body).to_dict()


def make_workload(a: Admin, ns: str, owner_kind: str, owner_api: str, owner: dict, *, queue: str = "team-a",
                  conditions: list[dict] | None = None, label: bool = True, version: str = "v1beta1",
                  spec: dict | None = None, admission: dict | None = None) -> str:
    """A Workload written at ``version`` (v1beta1 by default, as Kueue ≤0.13 writes it; ``v1beta2`` as newer
    Kueue does), with that version's own fields in ``spec`` and ``admission``."""
    uid, oname = owner["metadata"]["uid"], owner["metadata"]["name"]
    wname = f"{owner_kind.lower()}-{oname}-{uid[:5]}"
    md: dict = {"name": wname, "ownerReferences": [{"apiVersion": owner_api, "kind": owner_kind, "name": oname,
                                                    "uid": uid, "controller": True}]}
    if label:
        md["labels"] = {"kueue.x-k8s.io/job-uid": uid}
    body = {"apiVersion": f"kueue.x-k8s.io/{version}", "kind": "Workload", "metadata": md,
            "spec": {"queueName": queue, "podSets": [{"name": "main", "count": 1, "template": {"spec": {
                "restartPolicy": "Never", "containers": [b.container("main")]}}}], **(spec or {})}}
    a.custom.create_namespaced_custom_object("kueue.x-k8s.io", version, ns, "workloads", body)
    status: dict = {}
    if conditions:
        status["conditions"] = conditions
    if admission:
        status["admission"] = admission
    if status:
        a.custom.patch_namespaced_custom_object_status("kueue.x-k8s.io", version, ns, "workloads", wname,
                                                       {"status": status})
    return wname


ADMITTED = lambda: [_cond("QuotaReserved", "True", "QuotaReserved", "Quota reserved in ClusterQueue gpu-cq"),  # noqa
                    _cond("Admitted", "True", "Admitted", "The workload is admitted")]


def pod(a: Admin, ns: str, name: str, labels: dict, *, node: str | None, status: dict, init: bool = False,
        claims: list | None = None, claim_statuses: list | None = None, gpus: int | None = 1,
        containers: list[dict] | None = None, owner: dict | None = None) -> str:
    spec: dict = {"containers": containers or [b.container("main", gpus=gpus)], "restartPolicy": "Never"}
    if node:
        spec["nodeName"] = node
    if init:
        spec["initContainers"] = [b.container("fetch-data", image="busybox:1.36", gpus=None)]
    ann = {}
    if claims is not None:
        ann[ANN_CLAIMS] = json.dumps(claims)
    if claim_statuses is not None:
        ann[ANN_STATUSES] = json.dumps(claim_statuses)
    md: dict = {"name": name, "labels": labels, "annotations": ann}
    if owner:
        md["ownerReferences"] = [owner]
    a.core.create_namespaced_pod(ns, {"metadata": md, "spec": spec})
    a.core.patch_namespaced_pod_status(name, ns, {"status": status})
    return name


def _ready_conds(ready: bool) -> list[dict]:
    return [{"type": "PodScheduled", "status": "True"},
            {"type": "Ready", "status": "True" if ready else "False",
             **({} if ready else {"reason": "ContainersNotReady", "message": "containers with unready status: [main]"})}]


def _admitted_job(a: Admin, prefix: str) -> tuple[str, str, dict]:
    ns = _ns(a, prefix)
    name = "train"
    job = make_job(a, ns, name)
    make_workload(a, ns, "Job", "batch/v1", job, conditions=ADMITTED())
    return ns, name, job


JL = lambda name: {"job-name": name, "batch.kubernetes.io/job-name": name}  # noqa: E731


# ------------------------------------------------------------------------------------------ scenarios
def kueue_quota(a: Admin) -> Built:
    ns = _ns(a, "lc-quota")
    job = make_job(a, ns, "train")
    make_workload(a, ns, "Job", "batch/v1", job, conditions=[
        _cond("QuotaReserved", "False", "Pending",
              "couldn't assign flavors to pod set main: insufficient quota for nvidia.com/gpu in flavor h100, "
              "request > maximum capacity (8 > 4)")])
    return Built("train", ns)


def kueue_evicted(a: Admin) -> Built:
    # eviction only in the Workload's conditions: no event (events expire after about an hour)
    ns = _ns(a, "lc-evict")
    job = make_job(a, ns, "train")
    make_workload(a, ns, "Job", "batch/v1", job, label=False, conditions=[
        _cond("QuotaReserved", "False", "Pending", "couldn't assign flavors to pod set main: insufficient quota"),
        _cond("Admitted", "False", "NoReservation", "The workload has no reservation"),
        _cond("Evicted", "True", "Preempted", "Preempted to accommodate a workload (UID: 1d2c) due to "
                                              "prioritization in the ClusterQueue"),
        _cond("Preempted", "True", "InClusterQueue", "Preempted to accommodate a higher priority workload"),
        _cond("Requeued", "True", "Preempted", "Preempted to accommodate a higher priority workload")])
    return Built("train", ns)


def pods_unscheduled(a: Admin) -> Built:
    ns, name, _ = _admitted_job(a, "lc-sched")
    p = pod(a, ns, "train-abcde", JL(name), node=None, status={"phase": "Pending", "conditions": [
        {"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
         "message": "0/4 nodes are available: 4 Insufficient nvidia.com/gpu."}]})
    b.make_event(a.core, ns, name="fs", involved_name=p, reason="FailedScheduling", component="default-scheduler",
                 message="0/4 nodes are available: 4 Insufficient nvidia.com/gpu.")
    return Built(name, ns)


def dra_unallocated(a: Admin) -> Built:
    ns, name, _ = _admitted_job(a, "lc-dra")
    claim = "train-gpu"
    a.custom.create_namespaced_custom_object(*DRA[:2], ns, DRA[2], {
        "apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceClaim", "metadata": {"name": claim},
        "spec": {"devices": {"requests": [{"name": "gpu", "deviceClassName": "gpu.nvidia.com"}]}}})
    p = pod(a, ns, "train-xyz12", JL(name), node=a.node, gpus=None,
            claims=[{"name": "gpu", "resourceClaimName": claim}],
            status={"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "True"}],
                    "containerStatuses": [b.cstatus("main", state=b.waiting("ContainerCreating"))]})
    # an unrelated warning about the pod: must not be taken as DRA evidence
    b.make_event(a.core, ns, name="fm", involved_name=p, reason="FailedMount",
                 message="MountVolume.SetUp failed for volume \"scratch\"")
    return Built(name, ns, now_offset_s=90, via_proxy=True)


def device_plugin_pulling(a: Admin) -> Built:
    ns, name, _ = _admitted_job(a, "lc-pull")
    p = pod(a, ns, "train-p1", JL(name), node=a.node, status={
        "phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "True"}],
        "containerStatuses": [b.cstatus("main", state=b.waiting("ContainerCreating"))]})
    b.make_event(a.core, ns, name="pl", involved_name=p, reason="Pulling", type="Normal",
                 message='Pulling image "nvcr.io/nvidia/pytorch:24.01-py3"')
    return Built(name, ns, via_proxy=True)  # through the proxy too: no claims means DRA is skipped


def image_pull_backoff(a: Admin) -> Built:
    ns, name, _ = _admitted_job(a, "lc-img")
    pod(a, ns, "train-i1", JL(name), node=a.node, status={
        "phase": "Pending", "conditions": _ready_conds(False),
        "containerStatuses": [b.cstatus("main", state=b.waiting(
            "ImagePullBackOff", 'Back-off pulling image "registry.example.com/team/trainer:v9.9"'))]})
    return Built(name, ns)


def init_exit_1(a: Admin) -> Built:
    ns, name, _ = _admitted_job(a, "lc-init")
    pod(a, ns, "train-n1", JL(name), node=a.node, init=True, status={
        "phase": "Pending", "conditions": _ready_conds(False),
        "initContainerStatuses": [b.cstatus("fetch-data", image="busybox:1.36", state=b.waiting("CrashLoopBackOff"),
                                            last_state=b.terminated("Error", 1), restarts=3)],
        "containerStatuses": [b.cstatus("main", state=b.waiting("PodInitializing"))]})
    return Built(name, ns)


def crashloop(a: Admin) -> Built:
    ns, name, _ = _admitted_job(a, "lc-crash")
    pod(a, ns, "train-c1", JL(name), node=a.node, status={
        "phase": "Running", "conditions": _ready_conds(False),
        "containerStatuses": [b.cstatus("main", state=b.waiting("CrashLoopBackOff", "back-off 40s restarting"),
                                        last_state=b.terminated("Error", 1), restarts=4)]})
    return Built(name, ns)


def _v1beta1_admitted_job(a: Admin, prefix: str) -> tuple[str, str]:
    """A Job and its admitted Workload as Kueue ≤0.13 writes it: at v1beta1, with priorityClassName/Source and a
    v1beta1 topology assignment (domains). This server stores v1beta2 and, without Kueue's conversion webhook,
    prunes those v1beta1-only fields on write (tests/lifecycle/test_phase_rules.py reads both shapes)."""
    ns = _ns(a, prefix)
    job = make_job(a, ns, "train")
    make_workload(a, ns, "Job", "batch/v1", job, conditions=ADMITTED(),
                  spec={"priority": 10, "priorityClassName": "low",
                        "priorityClassSource": "kueue.x-k8s.io/workloadpriorityclass"},
                  admission=V1BETA1_ADMISSION)
    return ns, "train"


def _running_pod(a: Admin, ns: str, pod_name: str, job_name: str, *, ready: bool) -> None:
    pod(a, ns, pod_name, JL(job_name), node=a.node, status={
        "phase": "Running", "conditions": _ready_conds(ready),
        "containerStatuses": [b.cstatus("main", state=b.running(), ready=ready)]})


def running_not_ready(a: Admin) -> Built:
    ns, name = _v1beta1_admitted_job(a, "lc-unready")
    _running_pod(a, ns, "train-r1", name, ready=False)
    return Built(name, ns)


V1BETA2_ADMISSION = {"clusterQueue": "gpu-cq", "podSetAssignments": [{
    "name": "main", "count": 1, "flavors": {"nvidia.com/gpu": "h100"},
    "topologyAssignment": {"levels": ["kubernetes.io/hostname"], "slices": [{
        "domainCount": 1, "valuesPerLevel": [{"universal": "gpu-node-1"}], "podCounts": {"universal": 1}}]}}]}
V1BETA1_ADMISSION = {"clusterQueue": "gpu-cq", "podSetAssignments": [{
    "name": "main", "count": 1, "flavors": {"nvidia.com/gpu": "h100"},
    "topologyAssignment": {"levels": ["kubernetes.io/hostname"], "domains": [{"values": ["gpu-node-1"],
                                                                              "count": 1}]}}]}


def healthy_running(a: Admin) -> Built:
    # written at v1beta2 (newer Kueue): priorityClassRef and a v1beta2 topology assignment (slices)
    ns = _ns(a, "lc-ok")
    name = "train"
    job = make_job(a, ns, name)
    make_workload(a, ns, "Job", "batch/v1", job, conditions=ADMITTED(), version="v1beta2",
                  spec={"priority": 100, "priorityClassRef": {"group": "kueue.x-k8s.io",
                                                              "kind": "WorkloadPriorityClass", "name": "high"}},
                  admission=V1BETA2_ADMISSION)
    _running_pod(a, ns, "train-h1", name, ready=True)
    return Built(name, ns)


def kueue_v1beta1_cluster(a: Admin) -> Built:
    # a cluster whose Kueue serves only v1beta1: the Workload is written and read at v1beta1 (the version choice
    # is what this case proves on the real server; see _v1beta1_admitted_job for the fields it prunes)
    ns, name = _v1beta1_admitted_job(a, "lc-kv1b1")
    _running_pod(a, ns, "train-k1", name, ready=True)
    return Built(name, ns, via_proxy=True, discovery=KUEUE_V1BETA1_ONLY)


def kueue_not_installed(a: Admin) -> Built:
    # no Kueue on the cluster (discovery 404) although the Job carries a queue-name label
    ns = _ns(a, "lc-nokueue")
    name = "train"
    make_job(a, ns, name)
    _running_pod(a, ns, "train-q1", name, ready=True)
    return Built(name, ns, via_proxy=True, discovery=KUEUE_ABSENT)


def _rayjob(a: Admin, ns: str, name: str, status: dict) -> dict:
    body = {"apiVersion": "ray.io/v1", "kind": "RayJob",
            "metadata": {"name": name, "labels": {"kueue.x-k8s.io/queue-name": "team-a"}},
            "spec": {"entrypoint": "python train.py"}}
    rj = a.custom.create_namespaced_custom_object(*RAY, ns, "rayjobs", body)
    if status:
        a.custom.patch_namespaced_custom_object_status(*RAY, ns, "rayjobs", name, {"status": status})
    return rj


def _raycluster(a: Admin, ns: str, name: str, state: str) -> None:
    a.custom.create_namespaced_custom_object(*RAY, ns, "rayclusters", {
        "apiVersion": "ray.io/v1", "kind": "RayCluster", "metadata": {"name": name},
        "spec": {"headGroupSpec": {"rayStartParams": {}, "template": {"spec": {"containers": [
            b.container("ray-head", image="rayproject/ray:2.9.0", gpus=None)]}}}}})
    a.custom.patch_namespaced_custom_object_status(*RAY, ns, "rayclusters", name, {"status": {"state": state}})


def _ray_pods(a: Admin, ns: str, cluster: str) -> None:
    pod(a, ns, f"{cluster}-head-x1", {"ray.io/cluster": cluster, "ray.io/node-type": "head"}, node=a.node, status={
        "phase": "Running", "conditions": _ready_conds(True),
        "containerStatuses": [b.cstatus("main", state=b.running(), ready=True)]})


def rayjob_waiting_cluster(a: Admin) -> Built:
    ns = _ns(a, "lc-rjwait")
    rj = _rayjob(a, ns, "ray-train", {"jobDeploymentStatus": "Initializing"})
    make_workload(a, ns, "RayJob", "ray.io/v1", rj, conditions=ADMITTED())
    return Built("ray-train", ns)


def rayjob_failed(a: Admin) -> Built:
    ns = _ns(a, "lc-rjfail")
    cluster = "ray-train-raycluster-k2x7p"
    rj = _rayjob(a, ns, "ray-train", {"jobDeploymentStatus": "Failed", "jobStatus": "FAILED", "reason": "AppFailed",
                                      "message": "Job entrypoint command failed with exit code 1",
                                      "rayClusterName": cluster, "jobId": "ray-train-abc12"})
    make_workload(a, ns, "RayJob", "ray.io/v1", rj, conditions=ADMITTED())
    _raycluster(a, ns, cluster, "ready")
    _ray_pods(a, ns, cluster)
    # KubeRay's submitter: a batch Job of the same name owned by the RayJob (--kind auto must pick the RayJob)
    make_job(a, ns, "ray-train", queue=None, owner={"apiVersion": "ray.io/v1", "kind": "RayJob", "name": "ray-train",
                                                   "uid": rj["metadata"]["uid"], "controller": True})
    return Built("ray-train", ns)


SUBMIT = ["ray", "job", "submit", "--address", "http://ray-train-head-svc:8265", "--", "python", "train.py"]


def _submitter(a: Admin, ns: str, rj: dict, pod_status: dict, job_conditions: list[dict] | None = None) -> None:
    """KubeRay's submitter: a batch Job named after the RayJob, owned by it, whose pod runs ``ray job submit``."""
    name = rj["metadata"]["name"]
    job = make_job(a, ns, name, queue=None, owner={"apiVersion": "ray.io/v1", "kind": "RayJob", "name": name,
                                                  "uid": rj["metadata"]["uid"], "controller": True})
    if job_conditions:
        a.batch.patch_namespaced_job_status(name, ns, {"status": {"conditions": job_conditions}})
    c = b.container("ray-job-submitter", image="rayproject/ray:2.9.0", gpus=None, command=SUBMIT)
    pod(a, ns, f"{name}-sub01", JL(name), node=a.node, containers=[c], status=pod_status,
        owner={"apiVersion": "batch/v1", "kind": "Job", "name": name, "uid": job["metadata"]["uid"],
               "controller": True})


def rayjob_submitter_image_pull(a: Admin) -> Built:
    # the RayCluster is up (head Ready); the submitter pod cannot pull its image: the RayJob stays Running with no
    # job status until KubeRay gives up
    ns = _ns(a, "lc-rjsubimg")
    cluster = "ray-train-raycluster-s1img"
    rj = _rayjob(a, ns, "ray-train", {"jobDeploymentStatus": "Running", "rayClusterName": cluster})
    make_workload(a, ns, "RayJob", "ray.io/v1", rj, conditions=ADMITTED())
    _raycluster(a, ns, cluster, "ready")
    _ray_pods(a, ns, cluster)
    _submitter(a, ns, rj, {"phase": "Pending", "conditions": _ready_conds(False), "containerStatuses": [
        b.cstatus("ray-job-submitter", image="rayproject/ray:2.9.0", state=b.waiting(
            "ImagePullBackOff", 'Back-off pulling image "rayproject/ray:2.9.0-typo"'))]})
    return Built("ray-train", ns)


def rayjob_submitter_exit_1(a: Admin) -> Built:
    # `ray job submit` exited 1 (e.g. the dashboard refused the submission) and the submitter Job used its
    # retries: KubeRay failed the RayJob with SubmissionFailed before any Ray job status existed
    ns = _ns(a, "lc-rjsubexit")
    cluster = "ray-train-raycluster-s2ext"
    rj = _rayjob(a, ns, "ray-train", {"jobDeploymentStatus": "Failed", "reason": "SubmissionFailed",
                                      "message": "job submission failed", "rayClusterName": cluster})
    make_workload(a, ns, "RayJob", "ray.io/v1", rj, conditions=ADMITTED())
    _raycluster(a, ns, cluster, "ready")
    _ray_pods(a, ns, cluster)
    _submitter(a, ns, rj, {"phase": "Failed", "conditions": _ready_conds(False), "containerStatuses": [
        b.cstatus("ray-job-submitter", image="rayproject/ray:2.9.0", state=b.terminated(
            "Error", 1, message="RuntimeError: Request failed with status code 500"))]},
        job_conditions=[_cond("Failed", "True", "BackoffLimitExceeded", "Job has reached the specified backoff "
                                                                        "limit")])
    return Built("ray-train", ns)


def rayjob_running(a: Admin) -> Built:
    ns = _ns(a, "lc-rjrun")
    cluster = "ray-train-raycluster-r8q2w"
    rj = _rayjob(a, ns, "ray-train", {"jobDeploymentStatus": "Running", "jobStatus": "RUNNING",
                                      "rayClusterName": cluster})
    make_workload(a, ns, "RayJob", "ray.io/v1", rj, conditions=ADMITTED())
    _raycluster(a, ns, cluster, "ready")
    _ray_pods(a, ns, cluster)
    return Built("ray-train", ns)


def rayjob_succeeded_torn_down(a: Admin) -> Built:
    ns = _ns(a, "lc-rjdone")
    rj = _rayjob(a, ns, "ray-train", {"jobDeploymentStatus": "Complete", "jobStatus": "SUCCEEDED",
                                      "rayClusterName": "ray-train-raycluster-gone1"})
    make_workload(a, ns, "RayJob", "ray.io/v1", rj, conditions=ADMITTED() + [
        _cond("Finished", "True", "Succeeded", "Job finished successfully")])
    return Built("ray-train", ns)


def not_found(a: Admin) -> Built:
    return Built("no-such-run", _ns(a, "lc-none"))


BUILDERS = {
    "kueue-quota": kueue_quota, "kueue-evicted": kueue_evicted, "pods-unscheduled": pods_unscheduled,
    "dra-unallocated": dra_unallocated, "device-plugin-pulling": device_plugin_pulling,
    "image-pull-backoff": image_pull_backoff, "init-exit-1": init_exit_1, "crashloop": crashloop,
    "running-not-ready": running_not_ready, "healthy-running": healthy_running,
    "rayjob-waiting-cluster": rayjob_waiting_cluster, "rayjob-failed": rayjob_failed,
    "rayjob-running": rayjob_running, "rayjob-submitter-image-pull": rayjob_submitter_image_pull,
    "rayjob-submitter-exit-1": rayjob_submitter_exit_1, "kueue-v1beta1-cluster": kueue_v1beta1_cluster,
    "kueue-not-installed": kueue_not_installed, "rayjob-succeeded-torn-down": rayjob_succeeded_torn_down,
    "not-found": not_found,
}
