"""Projects and node pools: the quota a Run:ai project deserves per node pool and what it uses, shared by every
source (REST, MCP). Models and parsers only; nothing here reads the network.

Facts (``docs/reference/runai-projects-nodepools.md`` cites each): ``GET /api/v1/org-unit/projects`` answers
``{"projects": [Project], "next"}``. A Project carries ``resources`` (one entry per node pool: ``nodePool {id,
name}``, ``gpu {deserved, limit, overQuotaWeight}``, ``cpu`` and ``memory`` likewise, ``priority``) and
``status.nodePoolQuotaStatuses`` (per node pool: ``nodePoolName``, ``allocated``, ``allocatedNonPreemptible``,
``requested``, each ``{gpu, cpu, memory}``: GPUs, CPU millicores, memory MB). ``GET /api/v1/node-pools`` answers
``{"nodepools": [Nodepool]}`` (``id, name, clusterId, phase, phaseMessage, labelKey, labelValue, status.nodes,
isDefault, schedulingConfiguration.minGuaranteedRuntime``).

A figure the body does not carry stays ``None`` (never 0): a missing quota is said to be missing. A GPU ``limit``
of ``-1`` is Run:ai's "no limit"; it is kept as served (``unlimited`` says so).
"""
from __future__ import annotations

import math
from typing import Any

from pydantic import BaseModel, Field

from workload_diagnose.tools.base import ErrorKind, ToolFailure

__all__ = ["Amounts", "PoolQuota", "Project", "NodePool", "parse_project", "parse_node_pool", "items_of"]


class Amounts(BaseModel):
    """GPUs (devices), CPU (millicores) and memory (MB), each None when the body did not carry a number."""

    gpu: float | None = None
    cpu: float | None = None
    memory: float | None = None


class PoolQuota(BaseModel):
    """One node pool of a project: what it deserves, its limit and over-quota weight, what it uses."""

    node_pool: str | None = None  # resources[].nodePool.name / nodePoolQuotaStatuses[].nodePoolName
    node_pool_id: str | None = None
    deserved: Amounts = Field(default_factory=Amounts)
    limit: Amounts = Field(default_factory=Amounts)  # -1: no limit
    over_quota_weight: float | None = None  # gpu.overQuotaWeight
    rank: str | None = None  # resources[].priority (the org unit's scheduling rank in the pool)
    allocated: Amounts | None = None  # None: the project's status named no figures for this pool
    allocated_non_preemptible: Amounts | None = None
    requested: Amounts | None = None

    @property
    def unlimited(self) -> bool:
        return self.limit.gpu is not None and self.limit.gpu < 0


class Project(BaseModel):
    id: str
    name: str
    cluster_id: str | None = None
    phase: str | None = None  # status.phase
    department: str | None = None  # parent.name
    pools: list[PoolQuota] = Field(default_factory=list)
    total_allocated: Amounts | None = None  # status.quotaStatus.allocated (every pool)
    total_allocated_non_preemptible: Amounts | None = None

    def pool(self, name: str | None) -> PoolQuota | None:
        return next((p for p in self.pools if name is not None and p.node_pool == name), None)


class NodePool(BaseModel):
    id: str | None = None
    name: str
    cluster_id: str | None = None
    phase: str | None = None
    phase_message: str | None = None
    label_key: str | None = None
    label_value: str | None = None
    nodes: list[str] = Field(default_factory=list)
    is_default: bool | None = None
    min_guaranteed_runtime: str | None = None  # schedulingConfiguration.minGuaranteedRuntime ("5d8h40m")


def _num(v: Any) -> float | None:
    """A plain JSON number (not a bool, not a string, finite), else None: never coerced."""
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(float(v)):
        return None
    return float(v)


def _str(v: Any) -> str | None:
    if isinstance(v, str):
        return v
    if isinstance(v, int) and not isinstance(v, bool):  # ids are strings in the spec, numbers in some servers
        return str(v)
    return None


def _obj(v: Any) -> dict:
    return v if isinstance(v, dict) else {}


def _amounts(d: Any, key: str = "deserved") -> Amounts:
    """``{"gpu": {...key...}, "cpu": {...}, "memory": {...}}`` → Amounts of ``key``."""
    d = _obj(d)
    return Amounts(gpu=_num(_obj(d.get("gpu")).get(key)), cpu=_num(_obj(d.get("cpu")).get(key)),
                   memory=_num(_obj(d.get("memory")).get(key)))


def _status_amounts(v: Any) -> Amounts | None:
    if not isinstance(v, dict):
        return None
    return Amounts(gpu=_num(v.get("gpu")), cpu=_num(v.get("cpu")), memory=_num(v.get("memory")))


def parse_project(raw: Any, notes: list[str]) -> Project | None:
    """One Project body as the model; None (with a note) when it has no usable id and name. Unusable figures are
    left None and counted in one note."""
    if not isinstance(raw, dict):
        notes.append("a project item is not an object; it was left out")
        return None
    pid, name = _str(raw.get("id")), _str(raw.get("name"))
    if pid is None or name is None:
        notes.append("a project item has no usable id or name; it was left out")
        return None
    pools: dict[str, PoolQuota] = {}
    bad = 0
    resources = raw.get("resources")
    for r in resources if isinstance(resources, list) else []:
        if not isinstance(r, dict):
            bad += 1
            continue
        np = _obj(r.get("nodePool"))
        pool = PoolQuota(node_pool=_str(np.get("name")), node_pool_id=_str(np.get("id")), deserved=_amounts(r),
                         limit=_amounts(r, "limit"), over_quota_weight=_num(_obj(r.get("gpu")).get("overQuotaWeight")),
                         rank=_str(r.get("priority")))
        pools[pool.node_pool or f"#{len(pools)}"] = pool
    status = _obj(raw.get("status"))
    qss = status.get("nodePoolQuotaStatuses")
    for q in qss if isinstance(qss, list) else []:
        if not isinstance(q, dict) or _str(q.get("nodePoolName")) is None:
            bad += 1
            continue
        name_ = _str(q.get("nodePoolName"))
        pool = pools.setdefault(name_, PoolQuota(node_pool=name_, node_pool_id=_str(q.get("nodePoolId"))))
        pool.allocated = _status_amounts(q.get("allocated"))
        pool.allocated_non_preemptible = _status_amounts(q.get("allocatedNonPreemptible"))
        pool.requested = _status_amounts(q.get("requested"))
    if bad:
        notes.append(f"project {name}: {bad} node-pool entr{'y' if bad == 1 else 'ies'} of an unexpected shape "
                     "were left out")
    total = _obj(status.get("quotaStatus"))
    return Project(id=pid, name=name, cluster_id=_str(raw.get("clusterId")), phase=_str(status.get("phase")),
                   department=_str(_obj(raw.get("parent")).get("name")), pools=list(pools.values()),
                   total_allocated=_status_amounts(total.get("allocated")),
                   total_allocated_non_preemptible=_status_amounts(total.get("allocatedNonPreemptible")))


def parse_node_pool(raw: Any, notes: list[str]) -> NodePool | None:
    if not isinstance(raw, dict) or _str(raw.get("name")) is None:
        notes.append("a node-pool item has no usable name; it was left out")
        return None
    status = _obj(raw.get("status"))
    nodes = status.get("nodes")
    sched = _obj(raw.get("schedulingConfiguration"))
    return NodePool(id=_str(raw.get("id")), name=_str(raw.get("name")) or "", cluster_id=_str(raw.get("clusterId")),
                    phase=_str(raw.get("phase")), phase_message=_str(raw.get("phaseMessage")),
                    label_key=_str(raw.get("labelKey")), label_value=_str(raw.get("labelValue")),
                    nodes=[n for n in nodes if isinstance(n, str)] if isinstance(nodes, list) else [],
                    is_default=raw.get("isDefault") if isinstance(raw.get("isDefault"), bool) else None,
                    min_guaranteed_runtime=_str(sched.get("minGuaranteedRuntime")))


def items_of(body: Any, keys: tuple[str, ...], what: str) -> list:
    """The item list of a list body: the body itself when it is a list, else the first of ``keys`` it holds."""
    if isinstance(body, list):
        return body
    if isinstance(body, dict):
        for k in keys:
            if isinstance(body.get(k), list):
                return body[k]
    raise ToolFailure(ErrorKind.MALFORMED, f"{what} has no '{keys[0]}' list")
