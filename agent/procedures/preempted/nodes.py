"""The procedure's steps: one small function per step (``graph.py`` wires them).

Each node takes the State and the run's ``Runtime[Context]`` and returns only what it adds; a node that decides
where the procedure goes next returns a ``Command`` (an early end is ``Command(goto="report")`` with its ``Stop``).
"""
from __future__ import annotations

from langgraph.runtime import Runtime
from langgraph.types import Command

from workload_diagnose.agent.model.findings import calls_of, limitations
from workload_diagnose.agent.model.outcomes import Route, Stop
from workload_diagnose.agent.procedures.kit import lookup, stops
from workload_diagnose.agent.procedures.kit.context import Context
from workload_diagnose.agent.procedures.kit.lookup import end
from workload_diagnose.agent.procedures.kit.reads import fatal_if_unreachable, read_limitations
from workload_diagnose.agent.procedures.preempted import evidence as ev
from workload_diagnose.agent.procedures.preempted.state import State, Step
from workload_diagnose.tools.base import ToolStatus
from workload_diagnose.tools.runai import ApiAuthError, ApiUnavailable
from workload_diagnose.tools.runai.source import ProjectSource

MAX_PREEMPTOR_LOOKUPS = 3  # the most recent distinct preemptors whose priority and type are read

NOT_PREEMPTED = ("No preemption was found in the workload's status, recent events or history in the lookback: it "
                 "was not preempted in that window.")


TIER1_ONLY = ("This diagnosis reads the Run:ai evidence only: a preemption that only Kubernetes (Tier 2) events or pod "
              "conditions show, as the failed-workload diagnosis may report with a kubeconfig, is not seen here.")


def _notes(result, step: int) -> list:
    return limitations(step, *(f"{result.tool}: {n}" for n in result.notes))


# ------------------------------------------------------------------------------------------ Step 1
def resolve_workload(state: State, runtime: Runtime[Context]) -> Command:
    """Step 1.1 — require cluster_id and Option A or B; Option B: the newest exact match (any phase: a preempted
    workload may be pending again, running again, or ended)."""
    req, ctx = state.request, runtime.context
    got = lookup.candidates(req, ctx)
    if isinstance(got, Command):
        return got
    cands, found = got
    if not cands:
        return end(stops.no_match(f"No workload named {req.workload_name!r} was found in project {req.project!r} on "
                                   f"cluster {req.cluster_id}. Which workload ID do you mean?"), **found)
    if len(cands) > 1:
        others = ", ".join(f"{w.id} ({w.phase})" for w in cands[1:4]) + (" …" if len(cands) > 4 else "")
        found["limitations"] = found["limitations"] + limitations(
            Step.LIST, f"{len(cands)} workloads are named {req.workload_name!r} in project {req.project!r}: the "
                       f"newest phase update ({cands[0].id}) was diagnosed; the others: {others}. Give a workload ID "
                       "to diagnose another.")
    return Command(goto="get_workload_status", update={**found, "selected_id": cands[0].id})


def get_workload_status(state: State, runtime: Runtime[Context]) -> Command:
    """Step 1.2 — the workload and its recent events; the cluster check."""
    ctx, req = runtime.context, state.request
    ctx.step("get_workload_status")
    st = ctx.runai.get_workload_status(state.selected_id, cutoff=req.cutoff)
    upd: dict = {"status": st, "calls": calls_of(st, Step.STATUS), "limitations": _notes(st, Step.STATUS)}
    if st.status == ToolStatus.ABSENT:
        return end(stops.no_match(f"Workload {state.selected_id} was not found. Please check the workload ID or give "
                                   "the workload name and project."), **upd)
    fatal_if_unreachable(st, f"workload {state.selected_id}")
    if not st.ok:
        raise ApiUnavailable(f"the Run:ai API returned an unusable status for workload {state.selected_id}: "
                             f"{st.error.message if st.error else 'unknown error'}")
    w = st.data.workload
    if st.data.events is None:
        upd["limitations"] = upd["limitations"] + limitations(
            Step.STATUS, "Recent events could not be fetched (events: null): a fetch failure, not proof that no "
                         f"events occurred ({st.data.events_error or 'no detail'}); history was used instead.")
    if not w.clusterId:
        upd["limitations"] = upd["limitations"] + limitations(
            Step.STATUS, f"Run:ai did not report the cluster of workload {w.id}: it could not be checked against the "
                         f"requested cluster {req.cluster_id}.")
    elif w.clusterId.lower() != (req.cluster_id or "").lower():
        return end(stops.cluster_mismatch(w.id, w.clusterId, req.cluster_id), **upd)
    return Command(goto="read_history", update=upd)


# ------------------------------------------------------------------------------------------ Step 2
def read_history(state: State, runtime: Runtime[Context]) -> dict:
    """Step 2 — history records newer than the lookback cutoff, every page."""
    ctx = runtime.context
    ctx.step("get_workload_history")
    h = ctx.runai.get_workload_history(state.workload.id, cutoff=state.request.cutoff)
    return {"history": h, "calls": calls_of(h, Step.HISTORY),
            "limitations": read_limitations("history", h, Step.HISTORY)}


def find_preemptions(state: State) -> Command:
    """Step 2 — the preemption notices in status and history; none in either: not preempted (``failed`` answers)."""
    st = state.status.data
    found = ev.status_notices(st)
    resumes: list[str] = []
    upd: dict = {}
    if state.history is not None and state.history.ok:
        unusable: list[str] = []
        more, resumes = ev.history_notices(state.history.data, st, state.request.now, unusable)
        found += more
        if unusable:
            upd["limitations"] = limitations(
                Step.HISTORY, f"{len(unusable)} history record(s) have timestamps that cannot be placed in time and "
                              "were left out: " + ", ".join(repr(u) for u in unusable[:3])
                              + (" …" if len(unusable) > 3 else "") + ".")
    notices = ev.merge(found)
    if not notices:
        upd["limitations"] = upd.get("limitations", []) + limitations(Step.VERDICT, TIER1_ONLY)
        if state.history is None or not state.history.ok or st.events is None:
            # a read that would show a preemption failed: "not preempted" would be a guess, the answer is UNKNOWN
            return Command(goto="report", update={**upd, "undetermined": True})
        return end(Stop(route=Route.NOT_PREEMPTED, message=NOT_PREEMPTED), **upd)
    return Command(goto=["read_spec", "read_quota", "lookup_preemptors"],
                   update={**upd, "notices": notices, "resumes": resumes})


# ------------------------------------------------------------------------------------------ Step 3 (concurrent)
def read_spec(state: State, runtime: Runtime[Context]) -> dict:
    """Step 3 — the submitted spec: priority class, preemptibility, terminateAfterPreemption, node pools."""
    ctx = runtime.context
    ctx.step("get_workload_spec")
    w = state.workload
    r = ctx.runai.get_workload_spec(w.id, w.type)
    return {"spec": r, "calls": calls_of(r, Step.SPEC), "limitations": read_limitations("spec", r, Step.SPEC)}


def read_quota(state: State, runtime: Runtime[Context]) -> dict:
    """Step 3 — the project's deserved quota and allocation per node pool (the ``projects`` capability)."""
    ctx, w = runtime.context, state.workload
    if not w.projectName:
        return {"limitations": limitations(Step.QUOTA, "Run:ai did not report the workload's project: its quota "
                                                       "was not read.")}
    if not isinstance(ctx.runai, ProjectSource):
        return {"limitations": limitations(Step.QUOTA, "This Run:ai source does not read projects (the 'projects' "
                                                       "capability): the project's quota was not read.")}
    ctx.step("find_project")
    r = ctx.runai.find_project(cluster_id=w.clusterId or state.request.cluster_id, name=w.projectName)
    notes = _notes(r, Step.QUOTA)
    if r.status == ToolStatus.ABSENT:
        notes += limitations(Step.QUOTA, f"Project {w.projectName} was not found on the cluster "
                                         f"({r.error.message if r.error else 'absent'}): its quota is missing.")
    elif not r.ok:
        notes += limitations(Step.QUOTA, f"The project's quota could not be read ({r.tool}: "
                                         f"{r.error.message if r.error else 'error'}): quota figures are missing.")
    return {"project": r, "calls": calls_of(r, Step.QUOTA), "limitations": notes}


def lookup_preemptors(state: State, runtime: Runtime[Context]) -> dict:
    """Step 3 — who preempted it: the most recent distinct preemptors the notices name, their priority and type
    (``list_workloads`` by exact name in the project their namespace names). Optional evidence: a lookup that
    fails or is refused (another project, outside the caller's scope) is a limitation, never the run's end."""
    ctx, req = runtime.context, state.request
    named: list[tuple[str, str]] = []
    for n in reversed(state.notices):
        p = ev.preemptor_of_notice(n)
        if p is not None and p not in named:
            named.append(p)
    found: dict = {}
    calls: list = []
    notes: list = []
    for ns, name in named[:MAX_PREEMPTOR_LOOKUPS]:
        project = ev.preemptor_project(ns)
        if project is None:
            notes += limitations(Step.PREEMPTORS, f"Preemptor {ns}/{name}: its namespace does not have the "
                                                  "runai-<project> form, so its project (and priority) was not "
                                                  "looked up.")
            continue
        ctx.step(f"list_workloads {name}")
        try:
            r = ctx.runai.list_workloads(name=name, cluster_id=req.cluster_id, project=project)
        except ApiAuthError:  # another project, outside what these credentials may read: not this diagnosis's
            notes += limitations(Step.PREEMPTORS, f"Preemptor {ns}/{name} is in project {project}, which these "
                                                  "credentials may not read: its priority and type are not "
                                                  "reported.")
            continue
        found[f"{ns}/{name}"] = r
        calls += calls_of(r, Step.PREEMPTORS)
        notes += _notes(r, Step.PREEMPTORS)
        if not r.ok:
            notes += limitations(Step.PREEMPTORS, f"Preemptor {ns}/{name} could not be looked up in project {project} "
                                                  f"({r.tool}: {r.error.message if r.error else 'error'}): its "
                                                  "priority and type are not reported.")
        elif not r.data:
            notes += limitations(Step.PREEMPTORS, f"Preemptor {ns}/{name} was not found in project {project} (no "
                                                  "workload of that name now): its priority and type are not "
                                                  "reported.")
    if len(named) > MAX_PREEMPTOR_LOOKUPS:
        notes += limitations(Step.PREEMPTORS, f"{len(named)} distinct preemptors are named: the "
                                              f"{MAX_PREEMPTOR_LOOKUPS} most recent were looked up.")
    return {"preemptors": found, "calls": calls, "limitations": notes}


# ------------------------------------------------------------------------------------------ Step 4
def classify_preemptions(state: State) -> dict:
    """Step 4 — the notices grouped into preemptions (a gang's pods, minutes apart, are one), each given the most
    specific reason its notices support; the latest decides the verdict, the others are its recurrence."""
    st = state.status.data
    project = state.project.data if state.project is not None and state.project.ok else None
    spec = state.spec.data if state.spec is not None and state.spec.ok else None
    pool = ev.workload_pool(project, ev.scheduling(st, spec))
    over = ev.over_quota(pool)
    names = ev.names_of(st)
    return {"preemptions": [ev.classify(g, names, over) for g in ev.group(state.notices, state.resumes)]}


def report(state: State, runtime: Runtime[Context]) -> dict:
    from workload_diagnose.agent.procedures.preempted.report import build_result

    return {"result": build_result(state, runtime.context)}
