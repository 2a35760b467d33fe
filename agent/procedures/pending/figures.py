"""The figures that quantify a wait, read only when the reason needs them (its record's ``reads``): the project's
quota per node pool, the cluster's node pools, the pools' GPUs, the submitted spec, the pools' nodes. Each read is
a node of the graph (they run concurrently); each figure line cites the read it comes from, and a figure that was
not read is said to be missing, never filled in.
"""
from __future__ import annotations

from datetime import timedelta
from typing import Any

from langgraph.runtime import Runtime

from workload_diagnose.agent.model.findings import calls_of, limitations
from workload_diagnose.agent.model.result import EvidenceLine
from workload_diagnose.agent.procedures.kit.context import Context
from workload_diagnose.agent.procedures.kit.reads import read_limitations
from workload_diagnose.agent.procedures.pending.state import State, Step
from workload_diagnose.tools.base import ToolResult, ToolStatus
from workload_diagnose.tools.runai.source import NodeSource, ProjectSource

WINDOW = timedelta(minutes=10)  # the node-pool GPU samples read: the latest in the last 10 minutes
MAX_NODES_SHOWN = 5


def fmt(v: float | None) -> str | None:
    """A figure as read: 16.0 → "16"; None stays None (the caller says it is missing)."""
    if v is None:
        return None
    return str(int(v)) if float(v).is_integer() else f"{v:g}"


def _missing(step: int, what: str, r: ToolResult) -> list:
    if r.ok:
        return limitations(step, *(f"{r.tool}: {n}" for n in r.notes))
    msg = r.error.message if r.error else ("absent" if r.status == ToolStatus.ABSENT else "error")
    return limitations(step, f"{what} could not be read ({r.tool}: {msg}); the figures it gives are missing.",
                       *(f"{r.tool}: {n}" for n in r.notes))


def _no_capability(step: int, what: str, cap: str) -> dict:
    return {"limitations": limitations(step, f"This Run:ai source does not read {what} (capability '{cap}'): those "
                                             "figures are missing.")}


# ------------------------------------------------------------------------------------------------ the reads
def read_project(state: State, runtime: Runtime[Context]) -> dict:
    ctx, w = runtime.context, state.workload
    if not isinstance(ctx.runai, ProjectSource):
        return _no_capability(Step.PROJECT, "projects", "projects")
    if not w.projectName:
        return {"limitations": limitations(Step.PROJECT, "Run:ai did not report the workload's project: its quota "
                                                         "figures are missing.")}
    ctx.step("find_project")
    r = ctx.runai.find_project(cluster_id=state.request.cluster_id, name=w.projectName)
    return {"project": r, "calls": calls_of(r, Step.PROJECT),
            "limitations": _missing(Step.PROJECT, f"Project {w.projectName}", r)}


def read_node_pools(state: State, runtime: Runtime[Context]) -> dict:
    ctx = runtime.context
    if not isinstance(ctx.runai, ProjectSource):
        return _no_capability(Step.NODE_POOLS, "node pools", "projects")
    ctx.step("list_node_pools")
    r = ctx.runai.list_node_pools(cluster_id=state.request.cluster_id)
    return {"node_pools": r, "calls": calls_of(r, Step.NODE_POOLS),
            "limitations": _missing(Step.NODE_POOLS, "The cluster's node pools", r)}


def _per_pool(state: State, runtime: Runtime[Context], key: str, step: int, what: str, read) -> dict:
    ctx = runtime.context
    if not isinstance(ctx.runai, NodeSource):
        return _no_capability(step, what, "nodes")
    if not state.pools:
        return {"limitations": limitations(step, f"The workload names no node pool (no requestedNodePools, no "
                                                 f"pending scheduling message naming one): {what} were not read.")}
    out: dict[str, Any] = {key: [], "calls": [], "limitations": []}
    for pool in state.pools:
        ctx.step(f"{what} of node pool {pool}")
        r = read(ctx.runai, pool)
        out[key].append(r)
        out["calls"] += calls_of(r, step)
        out["limitations"] += _missing(step, f"The {what} of node pool {pool}", r)
    return out


def read_capacity(state: State, runtime: Runtime[Context]) -> dict:
    req = state.request
    return _per_pool(state, runtime, "capacity", Step.CAPACITY, "GPUs", lambda src, pool: src.get_node_pool_gpus(
        cluster_id=req.cluster_id, node_pool=pool, start=req.now - WINDOW, end=req.now))


def read_nodes(state: State, runtime: Runtime[Context]) -> dict:
    cid = state.request.cluster_id
    return _per_pool(state, runtime, "nodes", Step.NODES, "nodes",
                     lambda src, pool: src.list_nodes(cluster_id=cid, node_pool=pool))


def read_spec(state: State, runtime: Runtime[Context]) -> dict:
    ctx, w = runtime.context, state.workload
    ctx.step("get_workload_spec")
    r = ctx.runai.get_workload_spec(w.id, w.type)
    return {"spec": r, "calls": calls_of(r, Step.SPEC), "limitations": read_limitations("spec", r, Step.SPEC)}


READERS = {"project": read_project, "node_pools": read_node_pools, "capacity": read_capacity, "spec": read_spec,
           "nodes": read_nodes}


# ------------------------------------------------------------------------------------------------ the figures
def ok_data(r: ToolResult | None) -> Any:
    return r.data if r is not None and r.ok else None


def quota_lines(project: Any, pools: list[str]) -> list[EvidenceLine]:
    if project is None:
        return []
    shown = [p for p in project.pools if p.node_pool in pools] if pools else project.pools
    out = []
    for p in shown:
        lim = "no GPU limit" if p.unlimited else f"limit {fmt(p.limit.gpu) or 'not reported'} GPUs"
        alloc = p.allocated.gpu if p.allocated else None
        nonp = p.allocated_non_preemptible.gpu if p.allocated_non_preemptible else None
        out.append(EvidenceLine(source="find_project", text=(
            f"Project {project.name} in node pool {p.node_pool}: deserved {fmt(p.deserved.gpu) or 'not reported'} "
            f"GPUs, {lim}, allocated {fmt(alloc) or 'not reported'} GPUs (non-preemptible "
            f"{fmt(nonp) or 'not reported'})")))
    if pools and not shown:
        out.append(EvidenceLine(source="find_project", text=f"Project {project.name} has no quota entry for node "
                                                            f"pool {', '.join(pools)}"))
    return out


def pool_lines(node_pools: list | None, capacity: list, pools: list[str]) -> list[EvidenceLine]:
    out = []
    by_name = {p.name: p for p in node_pools or []}
    for name in pools:
        p = by_name.get(name)
        if p is not None:
            msg = f" ({p.phase_message})" if p.phase_message else ""
            phase = p.phase or "not reported"
            out.append(EvidenceLine(source="list_node_pools", text=f"Node pool {name}: phase {phase}{msg}; "
                                                                   f"{len(p.nodes)} node(s) listed"))
        elif node_pools is not None:
            out.append(EvidenceLine(source="list_node_pools", text=f"Node pool {name} is not a node pool of the "
                                                                   "cluster"))
    for g in capacity:
        if g is None:
            continue
        at = f" at {g.at}" if g.at else ""
        out.append(EvidenceLine(source="get_node_pool_gpus", text=(
            f"Node pool {g.node_pool}: {fmt(g.free) or 'free GPUs not reported'} free of "
            f"{fmt(g.total) or 'a total not reported'} GPUs ({fmt(g.allocated) or 'allocation not reported'} "
            f"allocated){at}")))
    return out


def node_lines(nodes: list) -> list[EvidenceLine]:
    out = []
    for n in nodes[:MAX_NODES_SHOWN]:
        gpu = f"{n.gpu_type or 'GPU type not reported'} x{fmt(n.gpu_count) or '?'}" if n.gpu_type or n.gpu_count \
            else "no GPUs reported"
        taints = ", ".join(t.text for t in n.taints) or "none"
        status = n.status or "status not reported"
        out.append(EvidenceLine(source="list_nodes", text=f"Node {n.name} (pool {n.node_pool}): {status}; {gpu}; "
                                                          f"taints: {taints}"))
    if len(nodes) > MAX_NODES_SHOWN:
        out.append(EvidenceLine(source="list_nodes", text=f"… and {len(nodes) - MAX_NODES_SHOWN} more node(s)"))
    return out
