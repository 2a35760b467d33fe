"""The procedure's steps: one small function per step (``graph.py`` wires them).

Each node takes the State and the run's ``Runtime[Context]`` and returns only what it adds. A node that decides
where the procedure goes next returns a ``Command``: an early end is one ``Command(goto="report")`` with its
``Stop``.
"""
from __future__ import annotations

from contextlib import nullcontext

from langgraph.runtime import Runtime
from langgraph.types import Command

from workload_diagnose.agent.model import phases
from workload_diagnose.agent.model.findings import Call, calls_of, limitations
from workload_diagnose.agent.model.outcomes import Route, Stop
from workload_diagnose.agent.model.signals import Kind, kinds_of
from workload_diagnose.agent.procedures.kit import evidence as ev
from workload_diagnose.agent.procedures.kit import lookup, routing, stops
from workload_diagnose.agent.procedures.kit.context import Context
from workload_diagnose.agent.procedures.kit.lookup import end
from workload_diagnose.agent.procedures.kit.reads import checked_status, read_limitations
from workload_diagnose.agent.procedures.pending import evidence as pev
from workload_diagnose.agent.procedures.pending.figures import READERS
from workload_diagnose.agent.procedures.pending.state import State, Step
from workload_diagnose.agent.taxonomy.pending_registry import BY_NAME, UNKNOWN
from workload_diagnose.agent.taxonomy.registry import DIRECT_FAILURE_KINDS

MAX_POOLS = 2  # node pools whose capacity and nodes are read (the first ones the workload names)


def _failed_command() -> str | None:
    """The command of the procedure that answers a Pending workload past scheduling or failing to start."""
    return routing.command_of("runai_failed")


def _pod_start(why: str) -> Stop:
    cmd = _failed_command()
    return Stop(route=Route.POD_START, message=f"{why}: this is not a scheduling wait. "
                + (f"Use `{cmd} --intent active` (the failed-workload diagnosis)." if cmd else
                   "Use the failed-workload diagnosis."))


# ------------------------------------------------------------------------------------------------ which workload
def resolve_workload(state: State, runtime: Runtime[Context]) -> Command:
    """Require cluster_id and Option A or B; Option B: the newest Pending workload of that name in the project."""
    req, ctx = state.request, runtime.context
    got = lookup.candidates(req, ctx)
    if isinstance(got, Command):
        return got
    cands, found = got
    pending = [w for w in cands if phases.norm(w.phase) == "pending"]
    if pending:
        return Command(goto="get_workload_status", update={**found, "selected_id": pending[0].id})
    names = ", ".join(f"{w.id} ({w.phase})" for w in cands[:5]) or "none"
    return end(stops.no_match(
        f"No Pending workload named {req.workload_name!r} was found in project {req.project!r} on cluster "
        f"{req.cluster_id} (matches: {names}). Which workload ID do you mean?"), **found)


def get_workload_status(state: State, runtime: Runtime[Context]) -> Command:
    ctx, wid = runtime.context, state.selected_id
    ctx.step("get_workload_status")
    st = ctx.runai.get_workload_status(wid, cutoff=state.request.cutoff)
    stop, update = checked_status(st, wid, Step.STATUS)
    return end(stop, **update) if stop is not None else Command(goto="check_phase", update=update)


# ------------------------------------------------------------------------------------------------ the phase rule
def check_phase(state: State, runtime: Runtime[Context]) -> Command:
    """Cluster check; only a Pending workload with scheduling-only evidence is this procedure's (the phase rules
    of ``kit.routing``, the failed diagnosis's own); fan out the workload's reads."""
    req = state.request
    st = state.status.data
    w = st.workload
    names = ev.names_of(st)
    sigs = ev.status_signals(st, names)
    found: dict = {"signals": sigs, "waits": pev.status_waits(st, names)}
    if not w.clusterId:
        found["limitations"] = limitations(
            Step.STATUS, f"Run:ai did not report the cluster of workload {w.id}: it could not be checked against the "
                         f"requested cluster {req.cluster_id}.")
    elif w.clusterId.lower() != (req.cluster_id or "").lower():
        return end(stops.cluster_mismatch(w.id, w.clusterId, req.cluster_id), **found)
    if phases.norm(w.phase) != "pending":
        ended = phases.norm(w.phase) in phases.FAILED
        cmd = _failed_command() if ended else None
        msg = f"Workload phase is {w.phase or 'not reported'}: it is not waiting to be scheduled."
        return end(Stop(route=Route.NOT_PENDING, message=msg + (f" Use `{cmd}` to diagnose why it failed."
                                                                  if cmd else "")), next=cmd, **found)
    kinds = kinds_of(sigs)
    found["preempted"] = routing.preempted(kinds)
    decision = routing.decide(w.phase, kinds - {Kind.PREEMPTED}, events_known=st.events is not None)
    if decision.rule == "pending_scheduled":
        return end(_pod_start("The workload's pod is already past scheduling"), next=_failed_command(), **found)
    if decision.rule is None:  # a pod-start failure: the failed diagnosis's
        return end(_pod_start("The Pending workload shows a pod-start failure"), next=_failed_command(), **found)
    found["deferred"] = decision.defer is not None
    return Command(goto=["read_pods", "read_history"] if found["deferred"] else ["read_pods"], update=found)


def read_pods(state: State, runtime: Runtime[Context]) -> dict:
    ctx = runtime.context
    ctx.step("get_workload_pods")
    r = ctx.runai.get_workload_pods(state.workload.id)
    return {"pods": r, "calls": calls_of(r, Step.PODS), "limitations": read_limitations("pods", r, Step.PODS)}


def read_history(state: State, runtime: Runtime[Context]) -> dict:
    """Only when the events could not be fetched (Step 1.6): the current episode's records stand in for them."""
    ctx = runtime.context
    ctx.step("get_workload_history")
    r = ctx.runai.get_workload_history(state.workload.id, cutoff=state.request.cutoff)
    return {"history": r, "calls": calls_of(r, Step.HISTORY),
            "limitations": read_limitations("history", r, Step.HISTORY)}


# ------------------------------------------------------------------------------------------------ pods, then figures
NO_WAIT_MESSAGE = ("The recent events could not be fetched, and neither the status, the pods nor the history of the "
                   "current Pending episode carry a message that names why the workload waits.")


def check_pods(state: State, runtime: Runtime[Context]) -> Command:
    """A pod past scheduling or failing to start sends the workload to the failed diagnosis; otherwise the wait
    messages name the reason (Tier 2 is read when none does), and the reads its figures need fan out."""
    st, now = state.status.data, state.request.now
    pods = state.pods.data if state.pods is not None and state.pods.ok else []
    names = ev.names_of(st, pods)
    added = ev.pod_signals(pods or [])
    waits = []
    if state.history is not None and state.history.ok:  # (read when the events were not: the current episode)
        since = pev.at_or_none(st.workload.phaseUpdatedAt, now)
        added += [s for i in ev.history_items(state.history.data, names, now)
                  if since is None or (pev.at_or_none(i.at, now) or since) >= since for s in i.signals]
        waits += pev.history_waits(state.history.data, names, since)
    kinds = kinds_of(list(state.signals) + added)
    found: dict = {"signals": added, "waits": waits, "preempted": routing.preempted(kinds)}
    if state.pods is None or not state.pods.ok:
        found["limitations"] = limitations(Step.PODS, "Without the pods, a pod past scheduling or failing to start "
                                                      "could only be excluded from the status, which shows none.")
    if kinds & DIRECT_FAILURE_KINDS:
        return end(_pod_start("The Pending workload shows a pod-start failure"), next=_failed_command(), **found)
    if Kind.POD_SCHEDULED in kinds:
        return end(_pod_start("The workload's pod is already past scheduling"), next=_failed_command(), **found)
    all_waits = list(state.waits) + waits
    found["limitations"] = found.get("limitations", []) + (
        limitations(Step.VERDICT, NO_WAIT_MESSAGE) if state.deferred and not all_waits else [])
    if not all_waits and runtime.context.kube is not None:
        return Command(goto="read_kube", update=found)
    if not all_waits:
        found["limitations"] += limitations(Step.KUBE, "No Run:ai message names why the workload waits; the "
                                                       "scheduler's events of its pods (Tier 2) might, but Tier 2 is "
                                                       f"unavailable: {runtime.context.kube_unavailable}.")
    return _fan_out(all_waits, st, found)


def _fan_out(waits: list, st, found: dict) -> Command:
    """The reason the wait messages show (the strongest; the fallback when none does), then its figure reads."""
    reason = min((BY_NAME[x.reason] for x in waits), key=lambda r: r.precedence, default=UNKNOWN)
    found.update(reason=reason.name, pools=pev.pools_in_question(waits, pev.requested(st), MAX_POOLS))
    reads = [f"read_{k}" for k in READERS if k in reason.reads]
    return Command(goto=reads or ["report"], update=found)


def read_kube(state: State, runtime: Runtime[Context]) -> Command:
    """Tier 2 when no Run:ai message names the reason: the pods' scheduling condition and events, the lifecycle
    view's scheduling layer; a pod already bound to a node or failing to start is the failed diagnosis's."""
    from workload_diagnose.agent.procedures.pending.tier2 import collect

    ctx = runtime.context
    ctx.step("kubectl (read-only)")
    bounded = getattr(ctx.kube, "bounded_by", None)
    with bounded(ctx.deadline) if bounded is not None and ctx.deadline is not None else nullcontext():
        kube = collect(ctx.kube, ctx.limits, state)
    found: dict = {"kube": kube, "signals": kube.signals, "waits": kube.waits,
                   "calls": [Call(step=Step.KUBE, tool="kubernetes", request=c) for c in kube.calls],
                   "limitations": limitations(Step.KUBE, *kube.limitations)}
    if kinds_of(kube.signals) & DIRECT_FAILURE_KINDS:
        return end(_pod_start("The Pending workload's pod shows a start failure"), next=_failed_command(), **found)
    if kube.past_scheduling:
        return end(_pod_start("The workload's pod is already bound to a node"), next=_failed_command(), **found)
    return _fan_out(list(state.waits) + kube.waits, state.status.data, found)


def report(state: State, runtime: Runtime[Context]) -> dict:
    from workload_diagnose.agent.procedures.pending.report import build_result

    return {"result": build_result(state, runtime.context)}


