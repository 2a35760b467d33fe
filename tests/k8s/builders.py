"""Builders for Kubernetes evidence on the real (controller-less) kube-apiserver.

Nothing reconciles objects on this server, so every status is written through the status subresource
(``patch_namespaced_pod_status`` / ``patch_node_status``) and events are created directly. These helpers use a
*writing* admin client (``kubernetes.client.CoreV1Api``), never the read-only ``KubeReader``.

The ``scenario_*`` functions build one complete failure shape from the diagnose skill and return a
:class:`Scenario` describing what a reader should find.
"""
from __future__ import annotations

import itertools
import os
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

T0 = datetime(2025, 3, 14, 9, 0, 0, tzinfo=timezone.utc)
_seq = itertools.count(1)


def uniq(prefix: str) -> str:
    """A name unique within this test session (namespaces can never be deleted on this server)."""
    return f"{prefix}-{os.getpid() % 10000}-{next(_seq)}"


def ts(minutes: float = 0) -> str:
    return (T0 + timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%SZ")


# ------------------------------------------------------------------------------------------ objects


def make_namespace(api, project: str) -> str:
    ns = f"runai-{project}"
    api.create_namespace({"metadata": {"name": ns, "labels": {"runai/queue": project}}})
    return ns


def make_node(
    api,
    name: str,
    *,
    kubelet_port: int,
    ready: bool | str = True,
    gpus: int | None = 8,
    taints: list[dict] | None = None,
    unschedulable: bool = False,
    conditions: list[dict] | None = None,
) -> str:
    """A node whose kubelet endpoint is the stand-in (127.0.0.1:kubelet_port). ``ready``: True, False or
    "Unknown" (kubelet stopped posting status)."""
    spec: dict[str, Any] = {"unschedulable": unschedulable}
    if taints:
        spec["taints"] = taints
    api.create_node({"metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}}, "spec": spec})
    if conditions is None:
        conditions = node_conditions(ready)
    capacity = {"cpu": "64", "memory": "512Gi", "pods": "110"}
    if gpus is not None:
        capacity["nvidia.com/gpu"] = str(gpus)
    status = {
        "capacity": capacity,
        "allocatable": dict(capacity),
        "conditions": conditions,
        # InternalIP only: the apiserver prefers Hostname, which would not resolve to the stand-in.
        "addresses": [{"type": "InternalIP", "address": "127.0.0.1"}],
        "daemonEndpoints": {"kubeletEndpoint": {"Port": kubelet_port}},
        "nodeInfo": _node_info(),
    }
    api.patch_node_status(name, {"status": status})
    # The TaintNodesByCondition admission plugin adds node.kubernetes.io/not-ready:NoSchedule to every new node
    # and no node-lifecycle controller runs here to lift it: set the taints the scenario asks for, exactly.
    api.patch_node(name, {"spec": {"taints": taints or None}})
    return name


def _node_info() -> dict:
    return {
        "machineID": "m", "systemUUID": "s", "bootID": "b", "kernelVersion": "5.15", "osImage": "Ubuntu 22.04",
        "containerRuntimeVersion": "containerd://1.7.2", "kubeletVersion": "v1.20.2", "kubeProxyVersion": "v1.20.2",
        "operatingSystem": "linux", "architecture": "amd64",
    }


def node_conditions(ready: bool | str = True) -> list[dict]:
    if ready is True:
        rs, rr, rm = "True", "KubeletReady", "kubelet is posting ready status"
        other = ("False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available")
    elif ready is False:
        rs, rr, rm = "False", "KubeletNotReady", "container runtime network not ready: NetworkReady=false"
        other = ("False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available")
    else:
        rs, rr, rm = "Unknown", "NodeStatusUnknown", "Kubelet stopped posting node status."
        other = ("Unknown", "NodeStatusUnknown", "Kubelet stopped posting node status.")
    t = ts(30)
    return [
        {"type": "MemoryPressure", "status": other[0], "reason": other[1], "message": other[2],
         "lastHeartbeatTime": t, "lastTransitionTime": ts(-600)},
        {"type": "Ready", "status": rs, "reason": rr, "message": rm, "lastHeartbeatTime": t,
         "lastTransitionTime": t},
    ]


UNREACHABLE_TAINTS = [
    {"key": "node.kubernetes.io/unreachable", "effect": "NoSchedule", "timeAdded": ts(30)},
    {"key": "node.kubernetes.io/unreachable", "effect": "NoExecute", "timeAdded": ts(30)},
]
NOT_READY_TAINTS = [{"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule", "timeAdded": ts(30)}]
GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}


def container(name: str, image: str = "nvcr.io/nvidia/pytorch:24.01-py3", *, memory: str = "32Gi",
              gpus: int | None = 1, command: list[str] | None = None, volume_mounts: list[dict] | None = None) -> dict:
    res: dict[str, Any] = {"requests": {"cpu": "4", "memory": memory}, "limits": {"memory": memory}}
    if gpus:
        res["requests"]["nvidia.com/gpu"] = str(gpus)
        res["limits"]["nvidia.com/gpu"] = str(gpus)
    c: dict[str, Any] = {"name": name, "image": image, "resources": res}
    if command:
        c["command"] = command
    if volume_mounts:
        c["volumeMounts"] = volume_mounts
    return c


def make_pod(
    api,
    ns: str,
    name: str,
    *,
    node: str | None,
    containers: list[dict],
    init_containers: list[dict] | None = None,
    labels: dict[str, str] | None = None,
    restart_policy: str = "Never",
    volumes: list[dict] | None = None,
    status: dict | None = None,
) -> str:
    spec: dict[str, Any] = {"containers": containers, "restartPolicy": restart_policy}
    if node:
        spec["nodeName"] = node
    if init_containers:
        spec["initContainers"] = init_containers
    if volumes:
        spec["volumes"] = volumes
    api.create_namespaced_pod(ns, {"metadata": {"name": name, "labels": labels or {}}, "spec": spec})
    if status:
        api.patch_namespaced_pod_status(name, ns, {"status": status})
    return name


def terminated(reason: str, exit_code: int, *, minutes: float = 5, message: str | None = None,
               signal: int | None = None) -> dict:
    t: dict[str, Any] = {"reason": reason, "exitCode": exit_code, "startedAt": ts(minutes - 4),
                         "finishedAt": ts(minutes)}
    if message:
        t["message"] = message
    if signal is not None:
        t["signal"] = signal
    return {"terminated": t}


def waiting(reason: str, message: str | None = None) -> dict:
    w: dict[str, Any] = {"reason": reason}
    if message:
        w["message"] = message
    return {"waiting": w}


def running(minutes: float = 0) -> dict:
    return {"running": {"startedAt": ts(minutes)}}


def cstatus(name: str, *, state: dict, last_state: dict | None = None, restarts: int = 0, ready: bool = False,
            image: str = "nvcr.io/nvidia/pytorch:24.01-py3") -> dict:
    return {"name": name, "image": image, "imageID": "", "ready": ready, "restartCount": restarts,
            "state": state, "lastState": last_state or {}}


def pod_status(phase: str, *, containers: list[dict] | None = None, init: list[dict] | None = None,
               reason: str | None = None, message: str | None = None, conditions: list[dict] | None = None) -> dict:
    st: dict[str, Any] = {"phase": phase, "startTime": ts(0), "hostIP": "127.0.0.1"}
    if containers is not None:
        st["containerStatuses"] = containers
    if init is not None:
        st["initContainerStatuses"] = init
    if reason:
        st["reason"] = reason
    if message:
        st["message"] = message
    st["conditions"] = conditions if conditions is not None else [
        {"type": "PodScheduled", "status": "True", "lastTransitionTime": ts(0)},
        {"type": "Ready", "status": "False", "reason": "ContainersNotReady",
         "message": "containers with unready status: [main]", "lastTransitionTime": ts(1)},
    ]
    return st


def make_event(api, ns: str, *, name: str, involved_name: str, reason: str, message: str,
               type: str = "Warning", count: int = 1, first: float = 0, last: float | None = None,
               component: str = "kubelet", host: str | None = None, involved_kind: str = "Pod",
               involved_ns: str | None = None) -> str:
    ev_name = f"{involved_name}.{name}"
    body = {
        "metadata": {"name": ev_name},
        "involvedObject": {"kind": involved_kind, "name": involved_name, "apiVersion": "v1",
                           "namespace": involved_ns if involved_ns is not None else
                           ("" if involved_kind == "Node" else ns)},
        "reason": reason,
        "message": message,
        "type": type,
        "count": count,
        "firstTimestamp": ts(first),
        "lastTimestamp": ts(first if last is None else last),
        "source": {"component": component, **({"host": host} if host else {})},
    }
    api.create_namespaced_event(ns, body)
    return ev_name


# ------------------------------------------------------------------------------------------ scenarios


@dataclass
class Scenario:
    ns: str
    pod: str
    node: str | None
    container: str = "main"
    expect: dict[str, Any] = field(default_factory=dict)


@dataclass
class Env:
    """What scenarios need: a writing CoreV1Api, the kubelet stand-in and the ready GPU node it serves."""
    api: Any
    kubelet: Any
    node: str


PY_TRACEBACK = """\
2025-03-14 09:01:02 INFO starting training run=llama-ft world_size=1
2025-03-14 09:01:05 INFO loaded 120000 samples from /data/train
Epoch 1/10: 100%|##########| 938/938 [01:02<00:00, 15.0it/s, loss=2.31]
Traceback (most recent call last):
  File "/workspace/train.py", line 88, in <module>
    main()
  File "/workspace/train.py", line 71, in main
    cfg = load_config(os.environ["CONFIG_PATH"])
  File "/usr/lib/python3.10/os.py", line 680, in __getitem__
    raise KeyError(key) from None
KeyError: 'CONFIG_PATH'
"""

IMAGE_PULL_ERRORS = {
    "manifest_unknown": (
        "registry.example.com/team/trainer:v9.9",
        'rpc error: code = NotFound desc = failed to pull and unpack image "registry.example.com/team/trainer:v9.9": '
        'failed to resolve reference "registry.example.com/team/trainer:v9.9": '
        "registry.example.com/team/trainer:v9.9: not found: manifest unknown: manifest unknown",
        "manifest unknown",
    ),
    "no_such_host": (
        "registry.invalid/team/trainer:v1",
        'rpc error: code = Unknown desc = failed to pull and unpack image "registry.invalid/team/trainer:v1": '
        'failed to resolve reference "registry.invalid/team/trainer:v1": failed to do request: '
        'Head "https://registry.invalid/v2/team/trainer/manifests/v1": dial tcp: lookup registry.invalid '
        "on 10.96.0.10:53: no such host",
        "no such host",
    ),
    "unauthorized": (
        "private.example.com/ml/trainer:v1",
        'rpc error: code = Unknown desc = failed to pull and unpack image "private.example.com/ml/trainer:v1": '
        'failed to resolve reference "private.example.com/ml/trainer:v1": unexpected status from HEAD request to '
        "https://private.example.com/v2/ml/trainer/manifests/v1: 401 Unauthorized",
        "401 Unauthorized",
    ),
    "toomanyrequests": (
        "docker.io/library/python:3.11",
        'rpc error: code = Unknown desc = failed to pull and unpack image "docker.io/library/python:3.11": '
        'failed to copy: httpReadSeeker: failed open: unexpected status code '
        "https://registry-1.docker.io/v2/library/python/manifests/sha256:0123: 429 Too Many Requests - "
        "Server message: toomanyrequests: You have reached your pull rate limit. You may increase the limit "
        "by authenticating and upgrading: https://www.docker.com/increase-rate-limit",
        "toomanyrequests",
    ),
}

# containerd's other registry-auth wording (kept apart: see test_registry_auth_wording_survives_guardrails)
IMAGE_PULL_AUTH_DENIED = (
    'rpc error: code = Unknown desc = failed to pull and unpack image "private.example.com/ml/trainer:v1": '
    'failed to resolve reference "private.example.com/ml/trainer:v1": pull access denied, repository does '
    "not exist or may require authorization: server message: insufficient_scope: authorization failed"
)

FAILED_MOUNT_ERRORS = {
    "pvc": (
        [{"name": "train-data", "persistentVolumeClaim": {"claimName": "train-data"}}],
        [{"name": "train-data", "mountPath": "/data"}],
        "Unable to attach or mount volumes: unmounted volumes=[train-data], unattached volumes=[train-data "
        "kube-api-access-8xk2p]: error processing PVC {ns}/train-data: failed to fetch PVC from API server: "
        'persistentvolumeclaims "train-data" not found',
        'persistentvolumeclaims "train-data" not found',
    ),
    "secret": (
        [{"name": "s3-creds", "secret": {"secretName": "s3-creds"}}],
        [{"name": "s3-creds", "mountPath": "/etc/s3", "readOnly": True}],
        'MountVolume.SetUp failed for volume "s3-creds" : secret "s3-creds" not found',
        'secret "s3-creds" not found',
    ),
}


def scenario_oom(env: Env, project: str) -> Scenario:
    """Running pod restarted after an OOM kill: lastState.terminated OOMKilled / 137, now CrashLoopBackOff."""
    ns = make_namespace(env.api, project)
    pod = "train-oom-0-0"
    make_pod(env.api, ns, pod, node=env.node, restart_policy="OnFailure",
             labels={"workloadName": "train-oom", "app": "runai"},
             containers=[container("main", memory="32Gi")],
             status=pod_status("Running", containers=[cstatus(
                 "main", state=waiting("CrashLoopBackOff",
                                       f"back-off 40s restarting failed container=main pod={pod}_{ns}"),
                 last_state=terminated("OOMKilled", 137, minutes=12), restarts=2)]))
    env.kubelet.add_log(ns, pod, "main", "Epoch 3/10: 41%|####      | 385/938\nloading shard 17 into memory\n",
                        previous=True)
    make_event(env.api, ns, name="backoff", involved_name=pod, reason="BackOff",
               message="Back-off restarting failed container main in pod " + pod, count=3, first=6, last=13)
    return Scenario(ns, pod, env.node, expect={"last_terminated_reason": "OOMKilled", "last_exit_code": 137,
                                               "memory_limit": "32Gi"})


def scenario_crashloop(env: Env, project: str) -> Scenario:
    """CrashLoopBackOff with lastState exit 1 and a Python traceback in the previous log."""
    ns = make_namespace(env.api, project)
    pod = "llama-ft-0-0"
    make_pod(env.api, ns, pod, node=env.node, restart_policy="Always",
             labels={"release": "llama-ft"}, containers=[container("main")],
             status=pod_status("Running", containers=[cstatus(
                 "main", state=waiting("CrashLoopBackOff",
                                       f"back-off 5m0s restarting failed container=main pod={pod}_{ns}"),
                 last_state=terminated("Error", 1, minutes=20), restarts=7)]))
    env.kubelet.add_log(ns, pod, "main", PY_TRACEBACK, previous=True)
    env.kubelet.add_log(ns, pod, "main", "", previous=False)
    make_event(env.api, ns, name="backoff", involved_name=pod, reason="BackOff",
               message="Back-off restarting failed container", count=31, first=2, last=21)
    make_event(env.api, ns, name="pulled", involved_name=pod, reason="Pulled", type="Normal",
               message='Container image "nvcr.io/nvidia/pytorch:24.01-py3" already present on machine',
               count=8, first=0, last=20)
    return Scenario(ns, pod, env.node, expect={"exit_code": 1, "last_log_line": "KeyError: 'CONFIG_PATH'"})


def scenario_init_exit2(env: Env, project: str) -> Scenario:
    """Init container exited 2; the main container never started; restartPolicy Never → pod Failed."""
    ns = make_namespace(env.api, project)
    pod = "prep-data-0-0"
    make_pod(env.api, ns, pod, node=env.node, labels={"job-name": "prep-data"},
             init_containers=[container("fetch-data", image="busybox:1.36", gpus=None, memory="1Gi",
                                        command=["sh", "-c", "tar xzf /data/data.tar.gz"])],
             containers=[container("main")],
             status=pod_status("Failed",
                               init=[cstatus("fetch-data", image="busybox:1.36",
                                             state=terminated("Error", 2, minutes=1))],
                               containers=[cstatus("main", state=waiting("PodInitializing"))]))
    env.kubelet.add_log(ns, pod, "fetch-data",
                        "tar: can't open '/data/data.tar.gz': No such file or directory\n", previous=False)
    return Scenario(ns, pod, env.node, container="fetch-data", expect={"exit_code": 2})


def scenario_image_pull(env: Env, project: str, kind: str) -> Scenario:
    image, err, needle = IMAGE_PULL_ERRORS[kind]
    ns = make_namespace(env.api, project)
    pod = "serve-0-0"
    make_pod(env.api, ns, pod, node=env.node, restart_policy="Always", labels={"workloadName": "serve"},
             containers=[container("main", image=image)],
             status=pod_status("Pending", containers=[cstatus(
                 "main", image=image, state=waiting("ImagePullBackOff", f'Back-off pulling image "{image}"'))]))
    make_event(env.api, ns, name="pulling", involved_name=pod, reason="Pulling", type="Normal",
               message=f'Pulling image "{image}"', count=4, first=0, last=6)
    make_event(env.api, ns, name="failed-pull", involved_name=pod, reason="Failed",
               message=f'Failed to pull image "{image}": {err}', count=4, first=0, last=6)
    make_event(env.api, ns, name="failed-errimagepull", involved_name=pod, reason="Failed",
               message="Error: ErrImagePull", count=4, first=0, last=6)
    make_event(env.api, ns, name="backoff", involved_name=pod, reason="BackOff", type="Normal",
               message=f'Back-off pulling image "{image}"', count=20, first=1, last=9)
    make_event(env.api, ns, name="failed-backoff", involved_name=pod, reason="Failed",
               message="Error: ImagePullBackOff", count=20, first=1, last=9)
    return Scenario(ns, pod, env.node, expect={"needle": needle, "image": image})


def scenario_failed_mount(env: Env, project: str, kind: str) -> Scenario:
    volumes, mounts, message, needle = FAILED_MOUNT_ERRORS[kind]
    ns = make_namespace(env.api, project)
    pod = "train-mnt-0-0"
    make_pod(env.api, ns, pod, node=env.node, labels={"workloadName": "train-mnt"}, volumes=volumes,
             containers=[container("main", volume_mounts=mounts)],
             status=pod_status("Pending", containers=[cstatus("main", state=waiting("ContainerCreating"))]))
    make_event(env.api, ns, name="failedmount", involved_name=pod, reason="FailedMount",
               message=message.format(ns=ns), count=12, first=1, last=23)
    return Scenario(ns, pod, env.node, expect={"needle": needle})


def scenario_node_not_ready(env: Env, name: str, *, ready: bool | str = "Unknown") -> str:
    taints = UNREACHABLE_TAINTS if ready == "Unknown" else NOT_READY_TAINTS
    return make_node(env.api, name, kubelet_port=env.kubelet.port, ready=ready, gpus=8,
                     taints=[GPU_TAINT, *taints], unschedulable=False)


def scenario_eviction_137(env: Env, project: str) -> Scenario:
    """Exit 137 *without* OOMKilled on a node that went NotReady: pod Failed/Evicted, node-controller
    NodeNotReady and TaintManagerEviction events on the pod."""
    node = scenario_node_not_ready(env, uniq("gpu-node-lost"))
    ns = make_namespace(env.api, project)
    pod = "train-evict-0-0"
    make_pod(env.api, ns, pod, node=node, labels={"workloadName": "train-evict"},
             containers=[container("main")],
             status=pod_status("Failed", reason="Evicted",
                               message=f"Pod was terminated: node {node} is NotReady (kubelet stopped posting node status).",
                               containers=[cstatus("main", state=terminated("Error", 137, minutes=31))]))
    make_event(env.api, ns, name="nodenotready", involved_name=pod, reason="NodeNotReady",
               message="Node is not ready", component="node-controller", first=30)
    make_event(env.api, ns, name="taintmanager", involved_name=pod, reason="TaintManagerEviction",
               type="Normal", message=f"Marking for deletion Pod {ns}/{pod}", component="taint-controller",
               first=31)
    return Scenario(ns, pod, node, expect={"exit_code": 137})
