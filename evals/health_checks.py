"""What the scoreboard checks on a health snapshot (``"procedure": "health"``) beyond what every result shares: its
``--json`` contract, structurally, and the fewest reads its rules need on a scenario's path.

The minimum is derived from the world and the taxonomy's attention rules (``agent/taxonomy/attention_rules``),
not from what the agent did: one listing of the scope (every page of 500; one more when the pages name the same
``next`` again), the project's quota (a project scope), and, for each listed workload whose first attention rule
needs a verdict, at most ``max_diagnoses`` of them, the minimum of the procedure that answers it (its own rules,
run by the workload's id) less the reads the snapshot shares with it: the single-workload read where the listed
object stands in (``tools.runai.fleet.STANDS_IN_PHASES``) and the project's quota.
"""
from __future__ import annotations

import math
import re
from typing import Any, Callable

from workload_diagnose.evals.scenarios import Scenario

LIST_PAGE = 500


def health_validity(res: Any) -> list[str]:
    from workload_diagnose.agent.taxonomy.attention_registry import BY_NAME as RULES
    from workload_diagnose.agent.taxonomy.health_states import NAMES

    out: list[str] = []
    if res.outcome == "diagnosed":
        if res.state not in NAMES:
            out.append(f"diagnosed with state {res.state!r}")
        if res.route is not None:
            out.append("diagnosed with a route")
        if not res.report.startswith(f"State: {res.state} ("):
            out.append("report does not put the state on line one")
        if res.counts is None and res.state != "UNDETERMINED":
            out.append("no counts (the listing was not read) but a state other than UNDETERMINED")
    elif res.outcome == "needs_input":
        if res.state is not None or not res.question or res.route != "missing_parameters":
            out.append("needs_input with a state, without a question or with another route")
        if not res.report.startswith("State: none ("):
            out.append("report line one is not 'State: none (...)'")
    else:
        out.append(f"unknown outcome {res.outcome!r}")
    for i in res.attention:
        rule = RULES.get(i.rule)
        if rule is None:
            out.append(f"attention item with rule {i.rule!r}")
            continue
        if not i.next.strip() or i.source != "list_workloads":
            out.append(f"attention item {i.workload_id} without a next action or a source")
        if rule.min_count is not None and (i.verdict is None or (i.verdict.preemptions or 0) < rule.min_count):
            out.append(f"attention item {i.workload_id}: {i.rule} without the verdict that counts it")
        if rule.diagnose and i.verdict is None and not i.not_diagnosed:
            out.append(f"attention item {i.workload_id}: no verdict and no reason why")
    return out + ["an empty evidence line" for e in res.evidence if not e.text.strip()]


def _faulted(world: dict, path: str, kind: str) -> bool:
    """Whether the world injects a fault of ``kind`` on ``path`` (``status``: its answer replaced; ``next_repeats``:
    its pages name the same ``next`` again, seen only on the page read after it)."""
    return any(re.search(f.get("path", ""), path) and f.get("times", 1) != 0 and f.get("kind", "status") == kind
               for f in world.get("faults") or [])


def health_minimum_calls(sc: Scenario, world: dict, minimum_of: Callable[[Scenario, dict], dict[str, int]]) \
        -> dict[str, int]:
    """``minimum_of``: any procedure's minimum (``evals.checks.minimum_calls``), for the per-workload diagnoses."""
    from workload_diagnose.agent.evidence import attention as att
    from workload_diagnose.agent.model.time import parse_lookback, parse_time
    from workload_diagnose.agent.procedures.health.state import DEFAULT_MAX_DIAGNOSES
    from workload_diagnose.evals.scenarios import CaseArgs, Expected
    from workload_diagnose.evals.simulator import complete_workload
    from workload_diagnose.tools.runai.fleet import stands_in
    from workload_diagnose.tools.runai.models import Workload

    a = sc.args
    if not a.cluster_id or not (a.project or a.department):
        return {}
    listed = [complete_workload(w) for w in world.get("workloads") or []]
    listed = [w for w in listed if w.get("clusterId") == a.cluster_id and
              (w.get("projectName") == a.project if a.project else w.get("departmentName") == a.department)]
    pages = max(1, math.ceil(len(listed) / LIST_PAGE))
    calls = {"list_workloads": pages + 1 if _faulted(world, "/api/v1/workloads", "next_repeats") else pages}
    if a.project:
        calls["find_project"] = 1
    if _faulted(world, "/api/v1/workloads", "status"):
        return calls
    now = parse_time(a.now)
    cutoff = now - parse_lookback(a.lookback)
    limit = a.max_diagnoses if a.max_diagnoses is not None else DEFAULT_MAX_DIAGNOSES
    needing = []
    for raw in listed:
        w = Workload.model_validate(raw)
        rules = att.candidates(w, now, cutoff)
        if rules and rules[0].diagnose:
            needing.append((w, rules[0]))
    for w, rule in needing[:limit]:
        # the answering procedure's own minimum for this workload, by its id, less what the snapshot shares:
        # the single-workload read when the listed object stands in, the project's quota when it was read
        sub = sc.model_copy(update={
            "procedure": rule.answered_by, "expected": Expected(outcome="diagnosed"),
            "args": CaseArgs(cluster_id=a.cluster_id, workload_id=w.id, intent=rule.intent, lookback=a.lookback,
                             now=a.now)})
        shared_status = stands_in(w)
        if not shared_status and _faulted(world, f"/api/v1/workloads/{w.id}", "status"):
            # the read the diagnosis cannot go on without, and its events read beside it: it ends there
            own = {"get_workload_status": 2}
        else:
            own = minimum_of(sub, world)
        if shared_status and own.get("get_workload_status", 0) >= 2:
            own["get_workload_status"] -= 1
        if a.project and w.projectName == a.project:
            own.pop("find_project", None)
        for tool, n in own.items():
            calls[tool] = calls.get(tool, 0) + n
    return {k: v for k, v in calls.items() if v}
