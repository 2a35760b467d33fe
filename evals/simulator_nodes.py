"""The simulator's nodes and node-pool GPU metrics (``GET /api/v1/nodes``, ``GET /api/v1/clusters/{clusterUuid}/
nodepools/{nodepoolName}/metrics``), shaped as Run:ai's OpenAPI document defines them
(``docs/reference/runai-nodes-capacity.md``).

A world may hold::

    "nodes": [Node, ...]   # compact: {"name", "nodePool", "clusterUuid", "status", "gpuInfo", "taints"};
                           # missing required fields get neutral values
    "nodepool_gpus": {"<pool>": {"TOTAL_GPU": "8", "ALLOCATED_GPU": "6", "UNALLOCATED_GPU": "2"}}
                           # per pool, metric type -> a value (sampled at the request's ``end``) or a list of
                           # {"value", "timestamp"}; a pool not listed answers 404, a type not listed no samples

A world without ``nodes`` serves an empty list.
"""
from __future__ import annotations

import copy
import re
import uuid
from typing import Any

from workload_diagnose.evals.simulator_orgunits import TS, _filtered

_METRICS = re.compile(r"/api/v1/clusters/([^/]+)/nodepools/([^/]+)/metrics")
METRIC_TYPES = ("TOTAL_GPU_NODES", "GPU_UTILIZATION", "GPU_UTILIZATION_DISTRIBUTION", "GPU_MEMORY_UTILIZATION",
                "CPU_UTILIZATION", "CPU_MEMORY_UTILIZATION", "TOTAL_GPU", "GPU_QUOTA", "ALLOCATED_GPU",
                "UNALLOCATED_GPU", "AVG_WORKLOAD_WAIT_TIME", "WORKLOADS_COUNT")


def complete_node(n: dict) -> dict:
    n = copy.deepcopy(n)
    name = n.get("name") or "node"
    defaults = {"name": name, "status": "Ready", "nodePool": "default", "createdAt": TS, "updatedAt": TS,
                "id": str(uuid.uuid5(uuid.NAMESPACE_URL, "node/" + name)),
                "clusterUuid": "3f2c7a1e-8d4b-4c1e-9a57-2b6e0d9c4f11"}
    for k, v in defaults.items():
        n.setdefault(k, v)
    return n


def _metrics(cluster: str, pool: str, q: dict[str, list[str]], world: dict) -> tuple[int, Any]:
    types = [t for v in q.get("metricType", []) for t in v.split(",") if t]
    if not types or "start" not in q or "end" not in q:
        return 400, {"code": 400, "message": "metricType, start and end are required"}
    if any(t not in METRIC_TYPES for t in types):
        return 400, {"code": 400, "message": "unknown metricType"}
    pools = world.get("nodepool_gpus") or {}
    known = {n.get("name") for n in world.get("nodepools") or [] if n.get("clusterId") in (None, cluster)}
    if pool not in pools and pool not in known:
        return 404, {"code": 404, "message": "Resource id not found."}
    served = pools.get(pool) or {}
    out = []
    for t in types:
        v = served.get(t)
        values = v if isinstance(v, list) else ([] if v is None else [{"value": v, "timestamp": q["end"][0]}])
        out.append({"type": t, "labels": None, "values": values})
    return 200, {"measurements": out}


def serve(path: str, q: dict[str, list[str]], world: dict) -> tuple[int, Any] | None:
    """(status, body) for the nodes or a node-pool metrics path, None for any other path."""
    if path == "/api/v1/nodes":
        items = _filtered([complete_node(n) for n in world.get("nodes") or []], q.get("filterBy", []))
        if isinstance(items, str):
            return 400, {"code": 400, "message": items}
        try:
            offset = int(q.get("offset", ["0"])[0])
            limit = max(1, min(int(q.get("limit", ["50"])[0]), 500))
        except ValueError:
            offset, limit = 0, 50
        return 200, {"nodes": items[offset: offset + limit]}
    m = _METRICS.fullmatch(path)
    if m:
        return _metrics(m.group(1), m.group(2), q, world)
    return None
