"""Tier-2 scenario worlds: the Kubernetes side of a scenario (``kube.json`` beside ``world.json``).

``kube.json`` holds real Kubernetes objects, applied to a real kube-apiserver for live runs and recording::

    {"nodes":  [{"name": "gpu-a", "ready": true | false | "Unknown", "gpus": 8, "taints": [...],
                 "conditions_extra": [...]}],   # conditions added to the kubelet's (GPU health monitors')
     "pods":   [{"metadata": {...}, "spec": {...}, "status": {...}}],      # status set via the status subresource
     "events": [{"metadata": {"name": ...}, "involvedObject": {...}, "reason": ..., "message": ..., ...}],
     "logs":   [{"pod": ..., "container": ..., "previous": true, "text": "..."}]}   # served by a kubelet

Only the test fixtures write (with an admin client); the code under test reads through ``tools.kube.KubeReader``.
Replays use a fixed server URL so recorded request URIs are stable.
"""
from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Callable

KUBE_REPLAY_URL = "https://kube-replay.local"


def load(path: Path) -> dict:
    return json.loads(Path(path).read_text())


def _node_conditions(ready: Any, at: str) -> list[dict]:
    status = {True: "True", False: "False"}.get(ready, "Unknown")
    reason = {"True": "KubeletReady", "False": "KubeletNotReady", "Unknown": "NodeStatusUnknown"}[status]
    msg = {"True": "kubelet is posting ready status", "False": "container runtime network not ready",
           "Unknown": "Kubelet stopped posting node status."}[status]
    conds = [{"type": t, "status": "False", "reason": f"KubeletHas{r}", "message": "ok", "lastHeartbeatTime": at,
              "lastTransitionTime": at} for t, r in (("MemoryPressure", "SufficientMemory"),
                                                     ("DiskPressure", "NoDiskPressure"),
                                                     ("PIDPressure", "SufficientPID"))]
    conds.append({"type": "Ready", "status": status, "reason": reason, "message": msg, "lastHeartbeatTime": at,
                  "lastTransitionTime": at})
    return conds


def apply(kube: dict, api: Any, *, kubelet_port: int, add_log: Callable[[str, str, str, str, bool], None],
          at: str = "2026-11-20T10:00:00Z") -> dict[tuple[str, str], str]:
    """Create the world's objects (idempotent per apiserver: existing objects are left as they are).

    Returns the UID the apiserver gave each pod, by (namespace, name): the Run:ai world must report the same
    ones (:func:`with_pod_uids`), as Run:ai does, or Tier 2 rightly refuses the pods as not the workload's."""
    from kubernetes.client.rest import ApiException

    def create(fn, *args):
        try:
            fn(*args)
            return True
        except ApiException as e:
            if e.status != 409:
                raise
            return False

    for n in kube.get("nodes", []):
        spec = {"unschedulable": bool(n.get("unschedulable", False))}
        if create(api.create_node, {"metadata": {"name": n["name"], "labels": {"kubernetes.io/hostname": n["name"]}},
                                    "spec": spec}):
            cap = {"cpu": "64", "memory": "512Gi", "pods": "110"}
            if n.get("gpus") is not None:
                cap["nvidia.com/gpu"] = str(n["gpus"])
            api.patch_node_status(n["name"], {"status": {
                "capacity": cap, "allocatable": dict(cap),
                "conditions": (n.get("conditions") or _node_conditions(n.get("ready", True), at))
                + list(n.get("conditions_extra") or []),
                "addresses": [{"type": "InternalIP", "address": "127.0.0.1"}],
                "daemonEndpoints": {"kubeletEndpoint": {"Port": kubelet_port}},
                "nodeInfo": {"machineID": "m", "systemUUID": "s", "bootID": "b", "kernelVersion": "5.15",
                             "osImage": "Ubuntu 22.04", "containerRuntimeVersion": "containerd://1.7",
                             "kubeletVersion": "v1.20.2", "kubeProxyVersion": "v1.20.2", "operatingSystem": "linux",
                             "architecture": "amd64"}}})
            api.patch_node(n["name"], {"spec": {"taints": n.get("taints") or None}})
    namespaces = sorted({p["metadata"]["namespace"] for p in kube.get("pods", [])}
                        | {e["metadata"]["namespace"] for e in kube.get("events", [])})
    for ns in namespaces:
        create(api.create_namespace, {"metadata": {"name": ns}})
    uids: dict[tuple[str, str], str] = {}
    for p in kube.get("pods", []):
        p = copy.deepcopy(p)
        status = p.pop("status", None)
        ns, name = p["metadata"]["namespace"], p["metadata"]["name"]
        if create(api.create_namespaced_pod, ns, p) and status:
            api.patch_namespaced_pod_status(name, ns, {"status": status})
        uids[(ns, name)] = api.read_namespaced_pod(name, ns).metadata.uid
    for e in kube.get("events", []):
        create(api.create_namespaced_event, e["metadata"]["namespace"], e)
    for lg in kube.get("logs", []):
        ns = next(p["metadata"]["namespace"] for p in kube["pods"] if p["metadata"]["name"] == lg["pod"])
        add_log(ns, lg["pod"], lg["container"], lg["text"], bool(lg.get("previous", True)))
    return uids


def with_pod_uids(world: dict, uids: dict[tuple[str, str], str]) -> dict:
    """A copy of a Run:ai world whose pods carry the UIDs the apiserver assigned (pod ``id``), matched by the
    workload's namespace and the pod's name; pods without a Kubernetes twin are left as they are."""
    from workload_diagnose.evals.simulator import complete_workload

    out = copy.deepcopy(world)
    for w in out.get("workloads", []):
        ns = complete_workload(w).get("namespace")
        for pod in (out.get("pods") or {}).get(w["id"]) or []:
            uid = uids.get((ns, pod.get("name")))
            if uid:
                pod["id"] = uid
    return out


def recorded_pod_uids(bodies: list[str]) -> dict[tuple[str, str], str]:
    """The pod UIDs a recorded Kubernetes session served (Pod and PodList bodies of a Tier-2 cassette), by
    (namespace, name): what :func:`with_pod_uids` needs to give a Run:ai world replayed without that session (e.g.
    through the MCP stand-in) the UIDs its cassette's apiserver assigned."""
    import json

    uids: dict[tuple[str, str], str] = {}
    for body in bodies:
        try:
            obj = json.loads(body)
        except (TypeError, ValueError):
            continue
        if not isinstance(obj, dict):
            continue
        for item in obj.get("items") if obj.get("kind") == "PodList" else [obj] if obj.get("kind") == "Pod" else []:
            meta = item.get("metadata") if isinstance(item, dict) else None
            if isinstance(meta, dict) and meta.get("uid") and meta.get("name") and meta.get("namespace"):
                uids[(meta["namespace"], meta["name"])] = meta["uid"]
    return uids


def replay_reader():
    """A KubeReader aimed at the fixed replay host (only ever answered by a cassette)."""
    from workload_diagnose.tools.kube import KubeReader

    return KubeReader.from_url(KUBE_REPLAY_URL, token="replay-token", verify_ssl=False)
