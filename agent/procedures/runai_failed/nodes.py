"""The procedure's steps: one small function per step of the skill (``graph.py`` wires them).

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
from workload_diagnose.agent.model.signals import kinds_of
from workload_diagnose.agent.taxonomy.registry import CRASH_CONFIRMING_KINDS, DIRECT_FAILURE_KINDS
from workload_diagnose.agent.model.time import iso, parse_time, timestamp_problem
from workload_diagnose.agent.procedures.kit import evidence as ev
from workload_diagnose.agent.procedures.kit import lookup, routing, stops
from workload_diagnose.agent.procedures.kit.ahead import Read, announce, speculate
from workload_diagnose.agent.procedures.kit.context import Context
from workload_diagnose.agent.procedures.kit.lookup import end
from workload_diagnose.agent.procedures.kit.reads import (checked_status, fatal_if_unreachable, read_limitations,
                                                          status_update)
from workload_diagnose.agent.procedures.runai_failed.recurrence import (count_recurrence, episodes, split_current,
                                                                       status_marks)
from workload_diagnose.agent.procedures.runai_failed.state import KubeEvidence, State, Step
from workload_diagnose.agent.taxonomy import causes, metrics_needed_by
from workload_diagnose.agent.taxonomy.classifier import classify
from workload_diagnose.tools.runai import WorkloadStatus



# ------------------------------------------------------------------------------------------ Step 1
def resolve_workload(state: State, runtime: Runtime[Context]) -> Command:
    """Step 1.1 — require cluster_id and Option A or B; resolve Option B by intent."""
    req, ctx = state.request, runtime.context
    got = lookup.candidates(req, ctx)
    if isinstance(got, Command):
        return got
    cands, found = got
    if req.intent == "terminal":
        for w in cands:
            if phases.norm(w.phase) in phases.ENDED:
                return Command(goto="get_workload_status", update={**found, "selected_id": w.id})
        names = ", ".join(f"{w.id} ({w.phase})" for w in cands[:5]) or "none"
        return end(stops.no_match(
            f"No terminal workload named {req.workload_name!r} was found in project {req.project!r} on cluster "
            f"{req.cluster_id} (matches: {names}). Which workload ID do you mean, or are you asking about a run "
            "that is still active?"), **found)
    probe_calls, probe_notes = [], []
    for w in cands:
        phase = (w.phase or "").lower()
        if phase not in ("running", "pending"):
            continue
        ctx.step(f"get_workload_status {w.id}")
        st = ctx.runai.get_workload_status(w.id, cutoff=req.cutoff)
        fatal_if_unreachable(st, f"workload {w.id}")
        if st.ok and _confirms_symptom(st.data, phase):
            upd = status_update(st, Step.STATUS)
            return Command(goto="check_phase", update={
                **found, "selected_id": w.id, "status": st, "calls": found["calls"] + probe_calls + upd["calls"],
                "limitations": found["limitations"] + probe_notes + upd.get("limitations", [])})
        probe_calls += calls_of(st, Step.PROBES)
        probe_notes += limitations(Step.PROBES, *_probe_notes(w.id, st))
    return end(stops.no_match(
        f"No Running or Pending workload named {req.workload_name!r} in project {req.project!r} shows a confirmed "
        "failure symptom. Which workload ID do you mean?"),
        **(found | {"calls": found["calls"] + probe_calls, "limitations": found["limitations"] + probe_notes}))


def _probe_notes(wid: str, st) -> list[str]:
    """Option B candidates whose status could not be read or had no events."""
    if not st.ok:
        return [f"The status of candidate {wid} could not be read ({st.tool}: "
                f"{st.error.message if st.error else 'error'}); it could not be confirmed or excluded."]
    if st.data is not None and st.data.events is None:
        return [f"The recent events of candidate {wid} could not be fetched (events: null); its symptom could only "
                "be checked in its status and conditions."]
    return []


def _confirms_symptom(st: WorkloadStatus, phase: str) -> bool:
    kinds = kinds_of(ev.status_signals(st, ev.names_of(st)))
    if phase == "running":
        return bool(kinds & CRASH_CONFIRMING_KINDS)
    return bool(kinds & DIRECT_FAILURE_KINDS) and not routing.preempted(kinds)


def get_workload_status(state: State, runtime: Runtime[Context]) -> Command:
    """Step 1.2 — get_workload_status of the selected workload."""
    ctx = runtime.context
    ctx.step("get_workload_status")
    speculate(ctx.runai, (r for k, r in _reads(_Selected(state.selected_id), state.request).items()
                          if k in BY_ID))
    st = ctx.runai.get_workload_status(state.selected_id, cutoff=state.request.cutoff)
    stop, update = checked_status(st, state.selected_id, Step.STATUS)
    return end(stop, **update) if stop is not None else Command(goto="check_phase", update=update)


READS = ["inspect_spec", "inspect_pods", "inspect_history"]
BY_ID = ("inspect_pods", "inspect_history", "fetch_metrics")  # reads that need only the workload's id (not its type)


class _Selected:
    """The selected workload before its status is read: its id only."""

    type = None

    def __init__(self, wid: str):
        self.id = wid


def check_phase(state: State, runtime: Runtime[Context]) -> Command:
    """Step 1.3–1.6 — cluster check, preemption, the phase rule; record candidate signals; fan out the reads."""
    req = state.request
    st: WorkloadStatus = state.status.data
    w = st.workload
    sigs = ev.status_signals(st, ev.names_of(st))
    kinds = kinds_of(sigs)
    found: dict = {"signals": sigs}
    if not w.clusterId:  # not reported: a limitation, not a mismatch
        found["limitations"] = limitations(
            Step.STATUS, f"Run:ai did not report the cluster of workload {w.id}: it could not be checked against the "
                         f"requested cluster {req.cluster_id}.")
    elif w.clusterId.lower() != (req.cluster_id or "").lower():
        return end(stops.cluster_mismatch(w.id, w.clusterId, req.cluster_id), **found)
    decision = routing.decide(w.phase, kinds, events_known=st.events is not None)
    if decision.stop is not None:
        return end(decision.stop, **found)
    if decision.defer is not None:
        found["deferred_phase"] = decision.defer
    # independent reads run concurrently; metrics join them when the status already shows an OOM (Step 4)
    # (a reading another record overrides on its line, e.g. a kubelet rejection's OutOfmemory, is not an OOM)
    reads = READS + (["fetch_metrics"] if metrics_needed_by(kinds_of(causes(sigs))) else [])
    announce(runtime.context.runai, (_reads(w, req)[r] for r in reads))
    return Command(goto=reads, update=found)


def _reads(w, req) -> dict[str, Read]:
    """The Tier-1 read each read node makes (one declaration: the nodes make them, ``check_phase`` names them
    ahead to a source that can start them at once)."""
    return {"inspect_spec": Read("get_workload_spec", (w.id, w.type)),
            "inspect_pods": Read("get_workload_pods", (w.id,)),
            "inspect_history": Read("get_workload_history", (w.id,), {"cutoff": req.cutoff}),
            "fetch_metrics": Read("get_workload_metrics", (w.id,), {"start": req.cutoff, "end": req.now})}


# ------------------------------------------------------------------------------------------ Step 2 / 3 reads
def inspect_spec(state: State, runtime: Runtime[Context]) -> dict:
    ctx = runtime.context
    ctx.step("get_workload_spec")
    return _read("spec", _reads(state.workload, state.request)["inspect_spec"](ctx.runai), Step.SPEC)


def inspect_pods(state: State, runtime: Runtime[Context]) -> dict:
    ctx = runtime.context
    ctx.step("get_workload_pods")
    return _read("pods", _reads(state.workload, state.request)["inspect_pods"](ctx.runai), Step.PODS)


def inspect_history(state: State, runtime: Runtime[Context]) -> dict:
    ctx = runtime.context
    ctx.step("get_workload_history")
    return _read("history", _reads(state.workload, state.request)["inspect_history"](ctx.runai), Step.HISTORY)


def fetch_metrics(state: State, runtime: Runtime[Context]) -> dict:
    """Step 4 — get_workload_metrics over the lookback window (OOM, or an exit 137 still unexplained)."""
    ctx = runtime.context
    ctx.step("get_workload_metrics")
    return _read("metrics", _reads(state.workload, state.request)["fetch_metrics"](ctx.runai), Step.METRICS)


def _read(key: str, result, step: int) -> dict:
    return {key: result, "calls": calls_of(result, step), "limitations": read_limitations(key, result, step)}


# ------------------------------------------------------------------------------------------ Step 3
def apply_history_rules(state: State) -> Command:
    """Step 3 — episodes in the lookback; preemption in the current episode routes out; pods join the signals."""
    st: WorkloadStatus = state.status.data
    pods = state.pods.data if state.pods and state.pods.ok else []
    names = ev.names_of(st, pods)
    added = ev.pod_signals(pods or [])
    found: dict = {}
    current, past = None, []
    if state.history and state.history.ok:
        unusable: list[tuple[str, str]] = []
        eps = episodes(ev.history_items(state.history.data, names, state.request.now, unusable))
        if unusable:
            shown = "; ".join(f"{v!r} ({why})" for v, why in unusable[:3])
            found["limitations"] = limitations(
                Step.HISTORY, f"{len(unusable)} history record(s) have timestamps that cannot be placed in time and "
                              f"were left out of the episodes and the recurrence count: {shown}"
                              + (" …" if len(unusable) > 3 else "") + ".")
        current, past = split_current(eps, st.workload.phaseUpdatedAt)
        if current is not None:
            added += current.signals
            found["current_episode_end"] = current.end or current.start
        found["past_episodes"] = past
    # the current failure's kills as history holds them and as the status's recent events do (from its start, or
    # after the last past failure: a kill already counted in the past is never counted again)
    since = current.start if current is not None else past[-1].end if past else None
    found["current_marks"] = ([current.marks] if current is not None else []) + [status_marks(st.events, names, since)]
    found["signals"] = added
    problem = timestamp_problem(st.workload.phaseUpdatedAt, state.request.now)
    if problem:
        found["limitations"] = found.get("limitations", []) + limitations(
            Step.HISTORY, f"The workload's phaseUpdatedAt {st.workload.phaseUpdatedAt!r} cannot be used ({problem}): "
                          "the current failure could not be placed in time against its history.")
    kinds = kinds_of(list(state.signals) + added)
    decision = routing.after_history(state.deferred_phase, kinds)
    if decision.stop is not None:
        return end(decision.stop, **found)
    if decision.note is not None:
        found["limitations"] = found.get("limitations", []) + limitations(Step.ROUTING, decision.note)
    return Command(goto="collect_conditional_evidence", update=found)


# ------------------------------------------------------------------------------------------ Step 4
def collect_conditional_evidence(state: State, runtime: Runtime[Context]) -> dict:
    """Step 4 — metrics for OOM / unexplained 137; Tier 2 when container evidence is needed or Tier 1 is silent."""
    ctx = runtime.context
    sigs = list(state.signals)
    verdict = classify(sigs)  # Tier 1 verdict: decides what Step 4 still needs
    found: dict = {"calls": [], "limitations": []}

    def add(upd: dict) -> None:
        for k, v in upd.items():
            found[k] = found[k] + v if k in ("calls", "limitations") else v

    if verdict.needs_metrics and state.metrics is None:
        add(fetch_metrics(state, runtime))
    why = verdict.tier2_reason
    if why is not None and ctx.kube is None:
        add({"kube": KubeEvidence(), "limitations": limitations(
            Step.KUBE, f"Tier 2 Kubernetes evidence was needed ({why}) but is unavailable: {ctx.kube_unavailable}.")})
    elif why is not None:
        from workload_diagnose.agent.procedures.runai_failed.tier2 import collect as tier2_collect

        ctx.step("kubectl (read-only)")
        bounded = getattr(ctx.kube, "bounded_by", None)  # (a stand-in reader may not have it)
        with bounded(ctx.deadline) if bounded is not None and ctx.deadline is not None else nullcontext():
            kube = tier2_collect(ctx.kube, ctx.limits, state)
        verdict = classify(sigs + kube.signals)  # the final verdict: Tier 1 and Tier 2 evidence together
        add({"kube": kube, "calls": [Call(step=Step.KUBE, tool="kubernetes", request=c) for c in kube.calls],
             "limitations": limitations(Step.KUBE, *kube.limitations)})
        if verdict.needs_metrics and state.metrics is None and "metrics" not in found:
            add(fetch_metrics(state, runtime))
    return found | {"verdict": verdict}


# ------------------------------------------------------------------------------------------ Step 5
def classify_failure(state: State) -> Command:
    """Step 5 — the deterministic verdict (computed in Step 4) and its recurrence in the lookback."""
    sigs = list(state.signals) + (state.kube.signals if state.kube else [])
    if routing.preempted(kinds_of(sigs)):
        return end(stops.preempted("kube"))
    verdict = state.verdict
    req = state.request
    when = _failure_time(state)
    outside = when is not None and when < req.cutoff
    rec = count_recurrence(verdict.category, state.past_episodes, req.lookback_text, current_in_window=not outside,
                           current=state.current_marks, kubelet=state.kube.restarts if state.kube else [],
                           window_start=req.cutoff)
    update: dict = {"recurrence": rec}
    if outside:
        update["limitations"] = limitations(
            Step.VERDICT, f"The failure being diagnosed happened at {iso(when)}, before the {req.lookback_text} lookback "
                          f"window (from {iso(req.cutoff)}): it is not counted as a failure in the window, and history "
                          "and metrics read for the window may not cover it. Use a longer --lookback to include it.")
    return Command(goto="report", update=update)


def _failure_time(state: State):
    """When the current failure happened: the workload's phase update, else the current history episode's end."""
    req = state.request
    for value in (state.workload.phaseUpdatedAt if state.workload else None, state.current_episode_end):
        if value and not timestamp_problem(value, req.now):
            return parse_time(value)
    return None


def report(state: State, runtime: Runtime[Context]) -> dict:
    from workload_diagnose.agent.procedures.runai_failed.report import build_result

    return {"result": build_result(state, runtime.context)}
