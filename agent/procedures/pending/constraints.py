"""The submitted spec's placement constraints (node pools, node type, required node affinity, tolerations) against
the node pools and their nodes as Run:ai lists them: what no node can satisfy, one line each. Pure functions.

Only what the reads carry is compared: the nodes API serves no node labels, so an affinity on a label other than
the node pool's own label, or a node type, is stated as not comparable, never judged.
"""
from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from workload_diagnose.agent.evidence.common import quote
from workload_diagnose.agent.model.result import EvidenceLine

BLOCKING = ("NoSchedule", "NoExecute")  # PreferNoSchedule only discourages


class Constraints(BaseModel):
    node_pools: list[str] = Field(default_factory=list)
    node_type: str | None = None
    affinity: list[list[dict]] = Field(default_factory=list)  # terms (ORed) of expressions (ANDed)
    tolerations: list[dict] = Field(default_factory=list)


def of_spec(spec: Any) -> Constraints | None:
    body = spec.body.get("spec") if spec is not None and isinstance(spec.body.get("spec"), dict) else None
    if body is None:
        return None
    pools = body.get("nodePools")
    aff = body.get("nodeAffinityRequired") if isinstance(body.get("nodeAffinityRequired"), dict) else {}
    terms = []
    for t in aff.get("nodeSelectorTerms") or []:
        exprs = t.get("matchExpressions") if isinstance(t, dict) else None
        terms.append([e for e in exprs if isinstance(e, dict) and isinstance(e.get("key"), str)]
                     if isinstance(exprs, list) else [])
    tols = body.get("tolerations")
    return Constraints(node_pools=[p for p in pools if isinstance(p, str)] if isinstance(pools, list) else [],
                       node_type=body.get("nodeType") if isinstance(body.get("nodeType"), str) else None,
                       affinity=terms, tolerations=[t for t in tols if isinstance(t, dict)] if isinstance(tols, list)
                       else [])


def _expr(e: dict) -> str:
    vals = e.get("values") if isinstance(e.get("values"), list) else []
    return f"{e.get('key')} {e.get('operator') or '?'}" + (f" [{', '.join(str(v) for v in vals)}]" if vals else "")


def _tol(t: dict) -> str:
    return (f"{t.get('key') or '*'}{'=' + str(t.get('value')) if t.get('value') else ''}:{t.get('effect') or '*'} "
            f"({t.get('operator') or 'Equal'})")


def spec_lines(c: Constraints) -> list[EvidenceLine]:
    src = "get_workload_spec"
    aff = " OR ".join(" AND ".join(_expr(e) for e in term) or "(empty term)" for term in c.affinity) or "none"
    tols = ", ".join(_tol(t) for t in c.tolerations) or "none"
    pools = ", ".join(c.node_pools) or "not set"
    node_type = quote(c.node_type) if c.node_type else "not set"
    return [EvidenceLine(source=src, text=f"Submitted placement: node pools {pools}; node type {node_type}; "
                                          f"required node affinity {aff}; tolerations {tols}")]


def tolerates(tol: dict, taint: Any) -> bool:
    key, op = tol.get("key") or "", tol.get("operator") or "Equal"
    if key and key != taint.key:
        return False
    if not key and op != "Exists":
        return False
    if op != "Exists" and (tol.get("value") or "") != (taint.value or ""):
        return False
    return not tol.get("effect") or tol.get("effect") == taint.effect


def _affinity_allows(c: Constraints, pool: Any) -> bool | None:
    """Whether the required affinity admits the pool's nodes by the pool's own label (None: not comparable)."""
    if not c.affinity or not pool.label_key:
        return None
    verdicts = []
    for term in c.affinity:
        on_pool = [e for e in term if e.get("key") == pool.label_key]
        if len(on_pool) != len(term) or not term:
            return None  # another label decides too: the nodes API does not serve it
        ok = True
        for e in on_pool:
            vals = [str(v) for v in e.get("values") or []]
            op = e.get("operator")
            ok &= {"In": pool.label_value in vals, "NotIn": pool.label_value not in vals, "Exists": True,
                   "DoesNotExist": False}.get(op, True)
        verdicts.append(ok)
    return any(verdicts)


def mismatches(c: Constraints | None, node_pools: list | None, nodes: dict[str, list], pools: list[str]) -> list[str]:
    """What no node can satisfy, as read (``node_pools`` None: not read; ``nodes``: pool → its listed nodes)."""
    out: list[str] = []
    by_name = {p.name: p for p in node_pools or []}
    if c is not None and node_pools is not None:
        out += [f"submitted node pool {p} is not a node pool of the cluster" for p in c.node_pools
                if p not in by_name]
    for name in pools:
        pool = by_name.get(name)
        if pool is not None and pool.phase in ("Empty", "Unschedulable"):
            out.append(f"node pool {name} is {pool.phase}" + (f" ({pool.phase_message})" if pool.phase_message else ""))
        if pool is not None and c is not None and _affinity_allows(c, pool) is False:
            out.append(f"the required node affinity excludes node pool {name} (its nodes carry "
                       f"{pool.label_key}={pool.label_value})")
        listed = nodes.get(name)
        if listed is None:
            continue
        if not listed:
            out.append(f"node pool {name} lists no nodes")
            continue
        ready = [n for n in listed if n.status == "Ready"]
        if not ready:
            out.append(f"no listed node of node pool {name} is Ready")
            continue
        if c is not None:
            blocked = [(n, t) for n in ready for t in n.taints if t.effect in BLOCKING
                       and not any(tolerates(x, t) for x in c.tolerations)]
            if {n.name for n, _ in blocked} == {n.name for n in ready}:
                n, t = blocked[0]
                out.append(f"every Ready node of node pool {name} has a taint the submitted tolerations do not "
                           f"tolerate (e.g. {t.text} on {n.name})")
    return out
