"""What the scoreboard checks on a pending diagnosis (``"procedure": "pending"``) beyond what every result shares:
its ``--json`` contract, structurally, and the fewest reads its rules need on a scenario's path.

The minimum is derived from the world and the procedure's rules (``agent/procedures/pending``, the reason records'
``reads``), not from what the agent did.
"""
from __future__ import annotations

import math
import re
from typing import Any

from workload_diagnose.agent.model import phases
from workload_diagnose.agent.taxonomy.pending_registry import BY_NAME, NAMES
from workload_diagnose.evals.scenarios import Scenario

_SPEC_KINDS = ("training", "workspace", "inference", "distributed", "interactive")
MAX_POOLS = 2
# what the status alone shows of a pod past scheduling or failing to start (the phase rule stops there)
_POD_START = re.compile(r"imagepullbackoff|errimagepull|failed to pull|failedmount|failedattachvolume|init:|"
                        r"crashloopbackoff|oom[ -]?kill|exit(?:ed)? (?:with )?code [1-9]|podscheduled=true|"
                        r"successfully assigned", re.I)


def pending_validity(res: Any, routes: dict[str, set[str]]) -> list[str]:
    out = []
    if res.outcome == "diagnosed":
        if res.reason not in NAMES:
            out.append(f"diagnosed with reason {res.reason!r}")
        if res.route is not None or res.owner is None:
            out.append("diagnosed with a route, or without an owner")
        if not res.report.startswith(f"Reason: {res.reason} ("):
            out.append("report does not put the reason on line one")
    elif res.outcome in routes:
        if res.reason is not None:
            out.append(f"{res.outcome} with a reason")
        if res.route not in routes[res.outcome]:
            out.append(f"{res.outcome} with route {res.route!r}")
        if not res.report.startswith("Reason: none ("):
            out.append("report line one is not 'Reason: none (...)'")
        if res.outcome == "needs_input" and not res.question:
            out.append("needs_input without a question")
        if res.route == "pod_start" and not res.next:
            out.append("routed to the failed diagnosis without naming its command (next)")
    else:
        out.append(f"unknown outcome {res.outcome!r}")
    return out + ["an empty evidence line" for e in res.evidence if not e.text.strip()]


def _status_text(world: dict, w: dict) -> str:
    parts = [w.get("phaseMessage") or "", w.get("phaseReason") or "", w.get("k8sPhase") or ""]
    for c in w.get("conditions") or []:
        parts += [f"{c.get('type')}={c.get('status')}", c.get("reason") or "", c.get("message") or ""]
    for e in (world.get("events") or {}).get(w["id"]) or []:
        parts += [e.get("reason") or "", e.get("message") or ""]
    return "\n".join(parts)


def _history_pages(sc: Scenario, world: dict, wid: str) -> int:
    from workload_diagnose.agent.model.time import parse_lookback, parse_time

    now = parse_time(sc.args.now)
    cutoff = now - parse_lookback(sc.args.lookback)
    recs = sorted(((world.get("history") or {}).get(wid) or []), reverse=True,
                  key=lambda r: parse_time((r.get("meta") or {}).get("creationTimestamp")) or cutoff)
    first_old = next((i for i, r in enumerate(recs)
                      if (parse_time((r.get("meta") or {}).get("creationTimestamp")) or cutoff) < cutoff), None)
    return first_old // 50 + 1 if first_old is not None else max(1, math.ceil(len(recs) / 50))


def pending_minimum_calls(sc: Scenario, world: dict) -> dict[str, int]:
    """The fewest read requests on this scenario's path: Option B lists every page of exact matches; the status is
    the workload plus its events (2 requests); a stop at the phase rule needs nothing more; otherwise the pods
    (every page), the history when the events could not be fetched, then exactly the figures the expected reason
    needs (project 1, node pools 1, per node pool in question its GPUs and its nodes, the spec when its kind has
    an endpoint)."""
    a, e = sc.args, sc.expected
    calls: dict[str, int] = {}
    if not a.complete:
        return calls
    wls = world.get("workloads") or []
    if a.workload_id:
        selected = next((w for w in wls if w["id"] == a.workload_id), None)
    else:
        matches = [w for w in wls if w.get("name") == a.workload_name and w.get("projectName") == a.project
                   and w.get("clusterId") == a.cluster_id]
        calls["list_workloads"] = max(1, math.ceil(len(matches) / 50))
        pending = [w for w in matches if phases.norm(w.get("phase")) == "pending"]
        if not pending:
            return calls
        selected = max(pending, key=lambda w: w.get("phaseUpdatedAt") or "")
    if selected is None:
        calls["get_workload_status"] = 1
        return calls
    calls["get_workload_status"] = 2
    events_null = (world.get("events") or {}).get(selected["id"], []) is None
    decided_by_status = e.route != "pod_start" or bool(_POD_START.search(_status_text(world, selected)))
    if e.outcome != "diagnosed" and decided_by_status:
        return calls
    wid = selected["id"]
    calls["get_workload_pods"] = max(1, math.ceil(len((world.get("pods") or {}).get(wid) or []) / 50))
    if events_null:
        calls["get_workload_history"] = _history_pages(sc, world, wid)
    if e.outcome != "diagnosed":
        return calls
    reads = BY_NAME[e.reason].reads
    named = [m.get("nodePool") for m in selected.get("pendingSchedulingMessages") or [] if m.get("nodePool")]
    pools = list(dict.fromkeys(named or selected.get("requestedNodePools") or []))[:MAX_POOLS]
    if "project" in reads and selected.get("projectName"):
        calls["find_project"] = 1
    if "node_pools" in reads:
        calls["list_node_pools"] = 1
    if "capacity" in reads and pools:
        calls["get_node_pool_gpus"] = len(pools)
    if "spec" in reads and any(k in (selected.get("type") or "").lower() for k in _SPEC_KINDS):
        calls["get_workload_spec"] = 1
    if "nodes" in reads and pools:
        calls["list_nodes"] = len(pools)
    return calls
