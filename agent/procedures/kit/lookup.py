"""Step 1.1 of every Run:ai procedure: which workload. The identifiers are required (a question when they are not
given); a workload id goes straight to its status; a name is listed in its project and cluster, newest phase update
first. Each procedure then picks among the candidates by its own rule (failed: by intent; pending: the newest
Pending one; preempted: the newest of any phase)."""
from __future__ import annotations

from typing import Any

from langgraph.types import Command

from workload_diagnose.agent.model.findings import calls_of, limitations
from workload_diagnose.agent.procedures.kit import stops
from workload_diagnose.agent.procedures.kit.reads import fatal_if_unreachable, newest_first
from workload_diagnose.agent.procedures.kit.steps import Step


def end(stop: Any, **update: Any) -> Command:
    return Command(goto="report", update={"stop": stop, **update})


def candidates(req: Any, ctx: Any) -> Command | tuple[list, dict]:
    """A ``Command`` when the step is decided here (a question, a workload id, a failed listing), else the listed
    workloads of that name newest first and what the listing adds to the state (its call and notes; a failed
    listing states its error as a limitation)."""
    missing = stops.missing_input(req)
    if missing is not None:
        return end(missing)
    if req.workload_id:
        return Command(goto="get_workload_status", update={"selected_id": req.workload_id})
    ctx.step("list_workloads")
    lr = ctx.runai.list_workloads(name=req.workload_name, cluster_id=req.cluster_id, project=req.project)
    fatal_if_unreachable(lr, "the workload list")
    found = {"calls": calls_of(lr, Step.LIST),
             "limitations": limitations(Step.LIST, *(f"{lr.tool}: {n}" for n in lr.notes))}
    if not lr.ok:
        found["limitations"] = found["limitations"] + limitations(
            Step.ROUTING, f"list_workloads failed: {lr.error.message if lr.error else 'unknown error'}")
        return end(stops.no_match(f"I could not list workloads named {req.workload_name!r}: what is the workload "
                                  "ID?"), **found)
    return newest_first(lr.data or []), found
