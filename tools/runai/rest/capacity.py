"""The ``nodes`` capability over REST (:class:`tools.runai.source.NodeSource`).

* ``list_nodes`` — ``GET /api/v1/nodes?filterBy=clusterUuid==<uuid>&filterBy=nodePool==<pool>`` (``NodesFilter``
  fields ``clusterUuid``, ``nodePool``; ``limit`` 1–500): the nodes of one node pool; only nodes of that cluster and
  pool are kept (a server that ignores a filter cannot widen the answer).
* ``get_node_pool_gpus`` — ``GET /api/v1/clusters/{clusterUuid}/nodepools/{nodepoolName}/metrics`` with
  ``metricType=TOTAL_GPU,ALLOCATED_GPU,UNALLOCATED_GPU`` (``explode: false``), ``start``, ``end`` and
  ``numberOfSamples``: the pool's GPUs, free ones included, at the latest sample.

Paths, fields and example bodies: ``docs/reference/runai-nodes-capacity.md``.
"""
from __future__ import annotations

from datetime import datetime
from typing import Any
from urllib.parse import quote

from workload_diagnose.tools.base import ErrorKind, Invocation, ToolFailure, ToolResult
from workload_diagnose.tools.runai.capacity import GPU_METRICS, Node, PoolGpus, parse_node, pool_gpus
from workload_diagnose.tools.runai.ids import check_id, check_name
from workload_diagnose.tools.runai.models import Skips
from workload_diagnose.tools.runai.parse import metric_series
from workload_diagnose.tools.timeutil import iso

__all__ = ["list_nodes", "get_node_pool_gpus", "NODES_PATH"]

NODES_PATH = "/api/v1/nodes"
LIMIT = 500  # the OpenAPI maximum
SAMPLES = 5


def list_nodes(client: Any, *, cluster_id: str, node_pool: str) -> ToolResult:
    check_id(cluster_id, "cluster id")
    check_name(node_pool, "node pool")

    def fn(get, invs: list[Invocation], notes: list[str]) -> list[Node]:
        body, inv = get(NODES_PATH, [("filterBy", f"clusterUuid=={cluster_id}"), ("filterBy", f"nodePool=={node_pool}"),
                                     ("offset", "0"), ("limit", str(LIMIT))])
        invs.append(inv)
        raw = body.get("nodes") if isinstance(body, dict) else None
        if not isinstance(raw, list):
            raise ToolFailure(ErrorKind.MALFORMED, f"GET {NODES_PATH} has no 'nodes' list")
        if len(raw) >= LIMIT:
            notes.append(f"{LIMIT} nodes were listed for node pool {node_pool}: further nodes were not read")
        nodes = [n for n in (parse_node(r, notes) for r in raw) if n is not None]
        mine = [n for n in nodes if n.node_pool == node_pool]
        if len(nodes) > len(mine):
            notes.append(f"{len(nodes) - len(mine)} listed node(s) of another node pool were left out")
        return mine

    return client._run("list_nodes", {"clusterId": cluster_id, "nodePool": node_pool}, fn)


def get_node_pool_gpus(client: Any, *, cluster_id: str, node_pool: str, start: datetime, end: datetime) -> ToolResult:
    check_id(cluster_id, "cluster id")
    check_name(node_pool, "node pool")

    def fn(get, invs: list[Invocation], notes: list[str]) -> PoolGpus:
        path = f"/api/v1/clusters/{quote(cluster_id, safe='')}/nodepools/{quote(node_pool, safe='')}/metrics"
        params = [("metricType", ",".join(GPU_METRICS)), ("start", iso(start)), ("end", iso(end)),
                  ("numberOfSamples", str(SAMPLES))]
        raw: list = []
        body, inv = get(path, params, raw)
        invs.append(inv)
        if not isinstance(body, dict) or not isinstance(body.get("measurements"), list):
            raise ToolFailure(ErrorKind.MALFORMED, "node-pool metrics response has no 'measurements' list")
        skips = Skips("metric series")
        series = metric_series(body["measurements"], raw[0] if raw else None, skips)
        notes[:0] = skips.note()
        bad = sum(s.unparsable for s in series)
        if bad:
            notes.append(f"{bad} node-pool GPU value(s) were not numbers; they were ignored, not counted as zero")
        return pool_gpus(node_pool, series)

    return client._run("get_node_pool_gpus", {"clusterId": cluster_id, "nodePool": node_pool, "start": iso(start),
                                              "end": iso(end)}, fn)
