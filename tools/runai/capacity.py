"""Nodes and node-pool GPU capacity: what a node pool holds and what of it is free, for every source. Models and
parsers only; nothing here reads the network.

Facts (``docs/reference/runai-nodes-capacity.md`` cites each): ``GET /api/v1/nodes`` answers ``{"nodes": [Node]}``;
a Node carries ``name``, ``nodePool``, ``status`` (Ready, NotReady, Unknown), ``taints[{key, value, effect}]`` and
``gpuInfo {gpuType, gpuCount}`` (null on a node without GPUs). ``GET /api/v1/clusters/{clusterUuid}/nodepools/
{nodepoolName}/metrics`` answers ``{"measurements": [{"type", "labels", "values": [{"value", "timestamp"}]}]}`` for
the metric types asked (``TOTAL_GPU``, ``ALLOCATED_GPU``, ``UNALLOCATED_GPU``); values are strings.

A figure the body does not carry stays ``None`` (never 0): a missing capacity is said to be missing.
"""
from __future__ import annotations

import math
from typing import Any

from pydantic import BaseModel, Field

from workload_diagnose.tools.runai.models import MetricSeries

__all__ = ["Taint", "Node", "PoolGpus", "GPU_METRICS", "parse_node", "pool_gpus"]

#: the node-pool metric types read for its GPU capacity (the Run:ai ``MetricsType`` enum)
GPU_METRICS = ("TOTAL_GPU", "ALLOCATED_GPU", "UNALLOCATED_GPU")


class Taint(BaseModel):
    key: str
    value: str | None = None
    effect: str | None = None  # NoSchedule, PreferNoSchedule, NoExecute

    @property
    def text(self) -> str:
        return f"{self.key}{'=' + self.value if self.value else ''}:{self.effect or 'no effect'}"


class Node(BaseModel):
    name: str
    node_pool: str | None = None
    status: str | None = None
    gpu_type: str | None = None
    gpu_count: float | None = None
    taints: list[Taint] = Field(default_factory=list)


class PoolGpus(BaseModel):
    """One node pool's GPUs at the latest sample in the window read (each None when no sample carried it)."""

    node_pool: str
    total: float | None = None
    allocated: float | None = None
    free: float | None = None  # UNALLOCATED_GPU as served (never computed)
    at: str | None = None  # the latest sample's timestamp


def _str(v: Any) -> str | None:
    return v if isinstance(v, str) else None


def _num(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(float(v)):
        return None
    return float(v)


def parse_node(raw: Any, notes: list[str]) -> Node | None:
    """One Node body as the model; None (with a note) when it has no usable name."""
    if not isinstance(raw, dict) or _str(raw.get("name")) is None:
        notes.append("a node item has no usable name; it was left out")
        return None
    gi = raw.get("gpuInfo") if isinstance(raw.get("gpuInfo"), dict) else {}
    taints = []
    for t in raw.get("taints") if isinstance(raw.get("taints"), list) else []:
        if isinstance(t, dict) and _str(t.get("key")):
            taints.append(Taint(key=t["key"], value=_str(t.get("value")), effect=_str(t.get("effect"))))
    return Node(name=raw["name"], node_pool=_str(raw.get("nodePool")), status=_str(raw.get("status")),
                gpu_type=_str(gi.get("gpuType")), gpu_count=_num(gi.get("gpuCount")), taints=taints)


def pool_gpus(node_pool: str, series: list[MetricSeries]) -> PoolGpus:
    """The latest sample of each GPU metric (by timestamp; the server's order when none is given)."""
    out = PoolGpus(node_pool=node_pool)
    field = {"TOTAL_GPU": "total", "ALLOCATED_GPU": "allocated", "UNALLOCATED_GPU": "free"}
    for s in series:
        if s.type not in field or not s.samples:
            continue
        last = max(enumerate(s.samples), key=lambda x: (x[1].timestamp or "", x[0]))[1]
        if 0 <= last.value < 1e9:  # a GPU count, not invalid data
            setattr(out, field[s.type], last.value)
            out.at = max(out.at or "", last.timestamp or "") or None
    return out
