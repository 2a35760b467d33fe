"""Graph nodes: one per step of the skill. Each is a small function (state, config) → partial update.

Dependencies (the Run:ai client, the optional Kubernetes reader) and the Configuration arrive through
``config["configurable"]``; nodes never read globals, so the same compiled graph serves every run.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from langchain_core.runnables import RunnableConfig

from agent import evidence as ev
from agent.classifier import classify, needs_metrics
from agent.config import Configuration
from agent.recurrence import Episode, count_recurrence, episodes, split_current
from agent.signals import CRASH_CONFIRMING_KINDS, DIRECT_FAILURE_KINDS, Kind, Signal
from agent.state import KubeEvidence, State
from tools.base import ErrorKind, ToolStatus
from tools.runai import ApiAuthError, ApiUnavailable, RunaiClient, WorkloadStatus, parse_time

TERMINAL_PHASES = {"failed", "crashed", "stopped", "error", "completed", "succeeded"}
FAILED_PHASES = {"failed", "crashed", "stopped", "error"}


@dataclass
class Deps:
    runai: RunaiClient
    kube: Any = None  # tools.kube.KubeReader or None
    kube_unavailable: str | None = "no kubeconfig was given"
    progress: Any = None  # callable(str) for the CLI's progress line
    extras: dict = field(default_factory=dict)


def _ctx(config: RunnableConfig) -> tuple[Configuration, Deps]:
    c = config["configurable"]
    return c["cfg"], c["deps"]


def _progress(deps: Deps, msg: str) -> None:
    if deps.progress:
        deps.progress(msg)


def _fatal_if_unreachable(result, what: str) -> None:
    err = result.error
    if err is None:
        return
    if err.kind == ErrorKind.UNAUTHORIZED:
        raise ApiAuthError(f"the Run:ai API refused the credentials for {what} ({err.message})")
    if err.kind == ErrorKind.FORBIDDEN:
        raise ApiAuthError(f"the Run:ai service account may not read {what} ({err.message})")
    if err.kind in (ErrorKind.UNREACHABLE, ErrorKind.TIMEOUT, ErrorKind.SERVER_ERROR, ErrorKind.RATE_LIMITED):
        raise ApiUnavailable(f"the Run:ai API could not answer {what}: {err.message}")


# ------------------------------------------------------------------------------------------ Step 1
def resolve_workload(state: State, config: RunnableConfig) -> dict:
    """Step 1.1 — require cluster_id and Option A or B; resolve Option B by intent."""
    cfg, deps = _ctx(config)
    missing = []
    if not cfg.cluster_id:
        missing.append("cluster_id")
    if not cfg.workload_id and not (cfg.workload_name and cfg.project):
        if cfg.workload_name and not cfg.project:
            missing.append("project (Option B needs workload_name and project)")
        elif cfg.project and not cfg.workload_name:
            missing.append("workload_name (Option B needs workload_name and project)")
        else:
            missing.append("workload_id (Option A) or workload_name + project (Option B)")
    if missing:
        return {"outcome": "needs_input", "route": "missing_parameters",
                "question": "Which workload should I diagnose? Please provide " + "; ".join(missing) + ".",
                "stop_message": "Required identifiers are missing; no tool was called."}
    if cfg.workload_id:
        return {"selected_id": cfg.workload_id}

    _progress(deps, "list_workloads")
    lr = deps.runai.list_workloads(name=cfg.workload_name, cluster_id=cfg.cluster_id, project=cfg.project)
    _fatal_if_unreachable(lr, "the workload list")
    if not lr.ok:
        return {"list_result": lr, "outcome": "needs_input", "route": "no_matching_workload",
                "question": f"I could not list workloads named {cfg.workload_name!r}: what is the workload ID?",
                "notes": [f"list_workloads failed: {lr.error.message if lr.error else 'unknown error'}"]}
    # newest phase update first (the API was asked to sort; a stable local sort keeps that true regardless)
    def newest_first(w):
        t = parse_time(w.phaseUpdatedAt)
        return (t is None, -(t.timestamp() if t else 0.0))  # unknown times last

    cands = sorted(lr.data or [], key=newest_first)
    if cfg.intent == "terminal":
        for w in cands:
            if (w.phase or "").lower() in TERMINAL_PHASES:
                return {"list_result": lr, "selected_id": w.id}
        found = ", ".join(f"{w.id} ({w.phase})" for w in cands[:5]) or "none"
        return {"list_result": lr, "outcome": "needs_input", "route": "no_matching_workload",
                "question": (f"No terminal workload named {cfg.workload_name!r} was found in project {cfg.project!r} "
                             f"on cluster {cfg.cluster_id} (matches: {found}). Which workload ID do you mean, or "
                             "are you asking about a run that is still active?")}
    probes = []
    for w in cands:
        phase = (w.phase or "").lower()
        if phase not in ("running", "pending"):
            continue
        _progress(deps, f"get_workload_status {w.id}")
        st = deps.runai.get_workload_status(w.id)
        _fatal_if_unreachable(st, f"workload {w.id}")
        if st.ok and _confirms_symptom(st.data, phase):
            return {"list_result": lr, "probe_results": probes, "selected_id": w.id, "status": st}
        probes.append(st)
    return {"list_result": lr, "probe_results": probes, "outcome": "needs_input", "route": "no_matching_workload",
            "question": (f"No Running or Pending workload named {cfg.workload_name!r} in project {cfg.project!r} shows "
                         "a confirmed failure symptom. Which workload ID do you mean?")}


def _confirms_symptom(st: WorkloadStatus, phase: str) -> bool:
    kinds = {s.kind for s in ev.status_signals(st, ev.names_of(st))}
    if phase == "running":
        return bool(kinds & CRASH_CONFIRMING_KINDS)
    return bool(kinds & DIRECT_FAILURE_KINDS) and Kind.PREEMPTED not in kinds


def get_workload_status(state: State, config: RunnableConfig) -> dict:
    """Step 1.2 — get_workload_status, unless resolution already returned it."""
    if state.status is not None:
        return {}
    cfg, deps = _ctx(config)
    _progress(deps, "get_workload_status")
    st = deps.runai.get_workload_status(state.selected_id)
    if st.status == ToolStatus.ABSENT:
        return {"status": st, "outcome": "needs_input", "route": "no_matching_workload",
                "question": f"Workload {state.selected_id} was not found. Please check the workload ID or give the "
                            "workload name and project."}
    _fatal_if_unreachable(st, f"workload {state.selected_id}")
    if not st.ok:
        raise ApiUnavailable(f"the Run:ai API returned an unusable status for workload {state.selected_id}: "
                             f"{st.error.message if st.error else 'unknown error'}")
    return {"status": st}


PENDING_ROUTE = {"outcome": "routed", "route": "pending_scheduling",
                 "stop_message": "Pending with only scheduling or resource-wait evidence: use the pending-workload "
                                 "diagnosis."}
RUNNING_ASK = {"outcome": "needs_input", "route": "running_without_failure",
               "question": "This workload is Running with no confirmed failure symptom. Did you mean a past run? If "
                           "so, give its workload ID or ask about the terminal run.",
               "stop_message": "Running without a confirmed failure symptom."}


def check_phase(state: State, config: RunnableConfig) -> dict:
    """Step 1.3–1.6 — cluster check, preemption, the phase rule; record candidate signals."""
    cfg, _ = _ctx(config)
    st: WorkloadStatus = state.status.data
    w = st.workload
    sigs = ev.status_signals(st, ev.names_of(st))
    kinds = {s.kind for s in sigs}
    upd: dict = {"signals": sigs}
    if w.clusterId != cfg.cluster_id:
        return upd | {"outcome": "stopped", "route": "cluster_mismatch",
                      "stop_message": f"Workload {w.id} belongs to cluster {w.clusterId or 'not reported'}, not the "
                                      f"requested cluster {cfg.cluster_id}. Not diagnosed."}
    if Kind.PREEMPTED in kinds:
        return upd | {"outcome": "routed", "route": "preempted",
                      "stop_message": "A recent event reports preemption: this is not a failure. Use the "
                                      "preempted-workload diagnosis."}
    phase = (w.phase or "").lower()
    if phase in FAILED_PHASES:
        return upd
    if phase in ("completed", "succeeded"):
        return upd | {"outcome": "stopped", "route": "completed",
                      "stop_message": f"Workload phase is {w.phase}: it finished successfully; no failure to diagnose."}
    if phase == "pending":
        if kinds & DIRECT_FAILURE_KINDS:
            return upd
        if st.events is None:  # events: null is a fetch failure: decide after history instead (Step 1.6)
            return upd | {"deferred_phase": "pending"}
        return upd | PENDING_ROUTE
    if phase == "suspended":
        return upd | {"outcome": "stopped", "route": "suspended",
                      "stop_message": "Workload is Suspended (paused, not failed): out of scope."}
    if phase == "running":
        if kinds & CRASH_CONFIRMING_KINDS:
            return upd
        if st.events is None:
            return upd | {"deferred_phase": "running"}
        return upd | RUNNING_ASK
    return upd | {"outcome": "stopped", "route": "phase_not_terminal",
                  "stop_message": f"Workload phase is {w.phase or 'not reported'}: not a terminal failure; no "
                                  "category assigned."}


def fanout_after_phase(state: State) -> list[str] | str:
    """Independent reads after the status call run concurrently; metrics join them when status already needs it."""
    if state.outcome:
        return "report"
    branches = ["inspect_spec", "inspect_pods", "inspect_history"]
    if any(s.kind == Kind.OOM for s in state.signals):  # a direct OOM needs metrics whatever history says
        branches.append("fetch_metrics")
    return branches


# ------------------------------------------------------------------------------------------ Step 2
def inspect_spec(state: State, config: RunnableConfig) -> dict:
    _, deps = _ctx(config)
    _progress(deps, "get_workload_spec")
    w = state.status.data.workload
    return {"spec": deps.runai.get_workload_spec(w.id, w.type)}


def inspect_pods(state: State, config: RunnableConfig) -> dict:
    _, deps = _ctx(config)
    _progress(deps, "get_workload_pods")
    return {"pods": deps.runai.get_workload_pods(state.status.data.workload.id)}


# ------------------------------------------------------------------------------------------ Step 3
def inspect_history(state: State, config: RunnableConfig) -> dict:
    cfg, deps = _ctx(config)
    _progress(deps, "get_workload_history")
    return {"history": deps.runai.get_workload_history(state.status.data.workload.id, cutoff=cfg.cutoff)}


def fetch_metrics(state: State, config: RunnableConfig) -> dict:
    cfg, deps = _ctx(config)
    if state.metrics is not None:
        return {}
    _progress(deps, "get_workload_metrics")
    return {"metrics": deps.runai.get_workload_metrics(state.status.data.workload.id, start=cfg.cutoff,
                                                       end=cfg.now)}


def apply_history_rules(state: State, config: RunnableConfig) -> dict:
    """Step 3 — episodes in the lookback; preemption in the current episode routes out; pods join the signals."""
    st: WorkloadStatus = state.status.data
    pods = state.pods.data if state.pods and state.pods.ok else []
    names = ev.names_of(st, pods)
    sigs = list(state.signals) + ev.pod_signals(pods or [])
    past: list[Episode] = []
    current_end = None
    if state.history and state.history.ok:
        eps = episodes(ev.history_items(state.history.data, names))
        current, past = split_current(eps, st.workload.phaseUpdatedAt)
        if current is not None:
            sigs += current.signals
            current_end = current.end or current.start
    upd = {"signals": sigs, "past_episode_signals": [e.signals for e in past], "current_episode_end": current_end}
    if any(s.kind == Kind.PREEMPTED for s in sigs):
        return upd | {"outcome": "routed", "route": "preempted",
                      "stop_message": "Pod or history evidence for the current termination reports preemption: "
                                      "this is not a failure. Use the preempted-workload diagnosis."}
    # the phase rule deferred because events were null, now applied to status + pods + current history episode
    kinds = {s.kind for s in sigs}
    if state.deferred_phase == "pending" and not kinds & DIRECT_FAILURE_KINDS:
        if Kind.SCHEDULING_WAIT in kinds:
            return upd | PENDING_ROUTE
        # no failure signal, but no scheduling evidence either: the events that would tell are missing, so
        # this is not "only scheduling evidence" — continue (Tier 2 may tell; otherwise UNKNOWN, never a guess)
        return upd | {"notes": list(state.notes) + [
            "Pending workload whose events could not be fetched: neither a pod-start failure nor scheduling-only "
            "evidence was found in status, pods or history, so it could not be routed as a scheduling wait."]}
    if state.deferred_phase == "running" and not kinds & CRASH_CONFIRMING_KINDS:
        return upd | RUNNING_ASK
    return upd


def after_history(state: State) -> str:
    return "report" if state.outcome else "collect_conditional_evidence"


# ------------------------------------------------------------------------------------------ Step 4
def collect_conditional_evidence(state: State, config: RunnableConfig) -> dict:
    """Step 4 — metrics for OOM / unexplained 137; Tier 2 when container evidence is needed or Tier 1 is silent."""
    cfg, deps = _ctx(config)
    upd: dict = {}
    sigs = list(state.signals)
    if needs_metrics(sigs) and state.metrics is None:
        upd |= fetch_metrics(state, config)
    prelim = classify(sigs)
    why = _tier2_reason(prelim)
    if why is None:
        return upd
    if deps.kube is None:
        upd["kube"] = KubeEvidence(used=False, limitations=[
            f"Tier 2 Kubernetes evidence was needed ({why}) but is unavailable: {deps.kube_unavailable}."])
        return upd
    from agent.tier2 import collect as tier2_collect

    _progress(deps, "kubectl (read-only)")
    kube = tier2_collect(deps.kube, cfg, state, prelim)
    upd["kube"] = kube
    if needs_metrics(sigs + kube.signals) and state.metrics is None and "metrics" not in upd:
        upd |= fetch_metrics(state, config)
    return upd


def _tier2_reason(prelim) -> str | None:
    """The skill's conditions for Tier 2: container-level evidence needed, unexplained 137, no Tier-1 category."""
    if prelim.unresolved_137:
        return "exit 137 is unexplained"
    if prelim.category == "UNKNOWN":
        return "Tier 1 evidence gives no category"
    if prelim.category == "CRASH_APP_ERROR":
        return "the failing log line: kubectl logs --previous"
    if prelim.category == "INIT_FAILED":
        return "the init container's state and logs"
    if prelim.category == "IMAGE_PULL_FAILED" and all(s.detail in (None, "unspecified") for s in prelim.supporting):
        return "the registry error text"
    if prelim.category == "NODE_FAILURE":
        return "kubectl describe node for the NODE_FAILURE evidence"
    return None


# ------------------------------------------------------------------------------------------ Step 5
def classify_failure(state: State, config: RunnableConfig) -> dict:
    cfg, _ = _ctx(config)
    sigs = list(state.signals) + (state.kube.signals if state.kube else [])
    if any(s.kind == Kind.PREEMPTED for s in sigs):
        return {"outcome": "routed", "route": "preempted",
                "stop_message": "Kubernetes evidence reports preemption: this is not a failure. Use the "
                                "preempted-workload diagnosis."}
    verdict = classify(sigs)
    past = [Episode(start=None, end=_last_at(s), signals=s) for s in state.past_episode_signals]
    current = Episode(start=None, end=state.current_episode_end, signals=sigs)
    rec = count_recurrence(verdict.category, current, past, cfg.lookback_text)
    return {"outcome": "diagnosed", "route": None, "verdict": verdict, "recurrence": rec}


def _last_at(sigs: list[Signal]) -> str | None:
    ats = [s.at for s in sigs if s.at]
    return max(ats) if ats else None


def report(state: State, config: RunnableConfig) -> dict:
    cfg, deps = _ctx(config)
    from agent.report import build_result

    return {"result": build_result(state, cfg, deps)}
