"""The scoreboard's checks for the ``preempted`` procedure's results: a structurally valid ``preempted --json``
object, and the fewest reads its rules need on a scenario's path (derived from the world and the procedure's
steps, ``agent/procedures/preempted/graph.py``, not from what the agent did)."""
from __future__ import annotations

import math
import re

from workload_diagnose.agent.model.preemption import PreemptionResult
from workload_diagnose.agent.taxonomy.preemption import NAMES as REASON_NAMES
from workload_diagnose.agent.taxonomy.preemption import OWNERS

ROUTES = {"routed": {"not_preempted"}, "stopped": {"cluster_mismatch"},
          "needs_input": {"missing_parameters", "no_matching_workload"}}
_SPEC_KINDS = ("training", "workspace", "inference", "distributed", "interactive")
_PREEMPTOR = re.compile(r"\bpreempted by (?:higher priority )?workload (runai-[a-z0-9.-]+)/([a-z0-9][a-z0-9.-]*?)\.?"
                        r"(?=\s|$)")
MAX_PREEMPTOR_LOOKUPS = 3


def validity_problems(res: PreemptionResult) -> list[str]:
    out = []
    if res.outcome == "diagnosed":
        if res.reason not in REASON_NAMES:
            out.append(f"diagnosed with reason {res.reason!r}")
        if res.owner not in OWNERS:
            out.append(f"diagnosed with owner {res.owner!r}")
        if res.route is not None:
            out.append("diagnosed with a route")
        undetermined = res.reason == "UNKNOWN" and not res.preemptions  # a read that would show one failed
        if undetermined and not any("not read in full" in x for x in res.limitations):
            out.append("UNKNOWN without a preemption and without the limitation that says why")
        if not res.preemptions and not undetermined:
            out.append("diagnosed without a preemption")
        if res.recurrence is None and not undetermined:
            out.append("diagnosed without a recurrence count")
        if undetermined and res.recurrence is not None:
            out.append("a recurrence count without a preemption")
        if not res.report.startswith(f"Reason: {res.reason} — "):
            out.append("report does not put the reason on line one")
    elif res.outcome in ROUTES:
        if res.reason is not None or res.owner is not None:
            out.append(f"{res.outcome} with a reason")
        if res.route not in ROUTES[res.outcome]:
            out.append(f"{res.outcome} with route {res.route!r}")
        if not res.report.startswith("Reason: none ("):
            out.append("report line one is not 'Reason: none (...)'")
        if res.outcome == "needs_input" and not res.question:
            out.append("needs_input without a question")
        if res.route == "not_preempted" and not res.next:
            out.append("not_preempted without the command that answers it")
    else:
        out.append(f"unknown outcome {res.outcome!r}")
    return out


def _texts(world: dict, w: dict, cutoff, t) -> list[str]:
    """Every system message of the workload the procedure reads: status (phase, conditions, events) and history
    records inside the lookback."""
    out = [w.get("phaseMessage") or ""] + [c.get("message") or "" for c in w.get("conditions") or []]
    out += [e.get("message") or "" for e in (world.get("events") or {}).get(w["id"]) or []]
    for r in (world.get("history") or {}).get(w["id"]) or []:
        if t((r.get("meta") or {}).get("creationTimestamp") or (r.get("spec") or {}).get("event", {}).get("createdAt"))\
                < cutoff:
            continue
        spec = r.get("spec") or {}
        out += [(spec.get("event") or {}).get("message") or "", (spec.get("phaseUpdate") or {}).get("phaseMessage")
                or ""]
    return out


def minimum_calls(sc, world: dict) -> dict[str, int]:
    from workload_diagnose.agent.model.time import parse_lookback
    from workload_diagnose.evals.worldcalls import history_pages
    from workload_diagnose.evals.worldcalls import when as _t

    a, e = sc.args, sc.expected
    calls: dict[str, int] = {}
    if not a.complete:
        return calls
    wls = world.get("workloads") or []
    if a.workload_id:
        selected = next((w for w in wls if w["id"] == a.workload_id), None)
    else:
        matches = sorted((w for w in wls if w.get("name") == a.workload_name and w.get("projectName") == a.project
                          and w.get("clusterId") == a.cluster_id), key=lambda w: _t(w.get("phaseUpdatedAt")),
                         reverse=True)
        calls["list_workloads"] = max(1, math.ceil(len(matches) / 50))
        if not matches:
            return calls
        selected = matches[0]
    if selected is None:  # the workload read answers 404; its events read went beside it all the same
        calls["get_workload_status"] = 2
        return calls
    calls["get_workload_status"] = 2
    if e.route == "cluster_mismatch":
        return calls
    cutoff = _t(a.now) - parse_lookback(a.lookback)
    calls["get_workload_history"] = history_pages(world, selected["id"], cutoff)
    if e.outcome != "diagnosed":
        return calls
    if any(k in (selected.get("type") or "").lower() for k in _SPEC_KINDS):
        calls["get_workload_spec"] = 1
    if selected.get("projectName"):
        calls["find_project"] = 1
    named: list[tuple[str, str]] = []
    for text in _texts(world, selected, cutoff, _t):
        for m in _PREEMPTOR.finditer(text):
            if m.groups() not in named:
                named.append(m.groups())
    if named:
        calls["list_workloads"] = calls.get("list_workloads", 0) + min(len(named), MAX_PREEMPTOR_LOOKUPS)
    return calls
