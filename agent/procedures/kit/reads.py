"""What a Tier-1 read could not give, worded once: the limitations of the spec, pods, history and metrics reads, and
the reads whose failure ends the run."""
from __future__ import annotations

from workload_diagnose.agent.model.findings import Limitation, calls_of, limitations
from workload_diagnose.agent.model.time import parse_time
from workload_diagnose.agent.procedures.kit.steps import Step
from workload_diagnose.tools.base import ErrorKind, ToolResult, ToolStatus
from workload_diagnose.tools.quantity import MAX_BYTES
from workload_diagnose.tools.runai import ApiAuthError, ApiUnavailable

LABELS = {"spec": "submitted spec", "pods": "pods", "history": "history", "metrics": "metrics"}


def read_limitations(key: str, r: ToolResult | None, step: int) -> list[Limitation]:
    if r is None:
        return []
    out = []
    msg = r.error.message if r.error else None
    if r.status == ToolStatus.ABSENT:
        out.append(f"The {LABELS[key]} is not available ({r.tool}: {msg or 'absent'}); continued without it.")
    elif r.status == ToolStatus.ERROR:
        out.append(f"The {LABELS[key]} could not be read ({r.tool}: {msg or 'error'}); the corresponding evidence "
                   "and calculations are omitted.")
    out += [f"{r.tool}: {n}" for n in r.notes]
    found = limitations(step, *out)
    if key == "pods" and r.ok:
        if not r.data:
            found += limitations(Step.PODS_CONTENT, "get_workload_pods returned no pods: pod-level evidence is "
                                                    "missing.")
        elif all(p.requestedResources is None for p in r.data):
            found += limitations(Step.PODS_CONTENT, "get_workload_pods returned no requestedResources for the pods.")
    if key == "metrics" and r.ok:
        bad = sum(s.unparsable for s in r.data)
        if bad:
            found += limitations(Step.METRICS_CONTENT, f"get_workload_metrics returned {bad} value(s) that are not "
                                                       "numbers; they were ignored, not counted as zero.")
        huge = sum(1 for s in r.data for x in s.samples if not 0 <= x.value <= MAX_BYTES)
        if huge:
            found += limitations(Step.METRICS_CONTENT, f"get_workload_metrics returned {huge} value(s) outside any "
                                                       "possible memory size (negative or above 1 EiB); they were "
                                                       "ignored as invalid data.")
    return found


def fatal_if_unreachable(result: ToolResult, what: str) -> None:
    """A read the diagnosis cannot go on without: refused credentials or permission, or an API that could not
    answer, is the one error of the run (exit 4 / 3), not a limitation."""
    err = result.error
    if err is None:
        return
    if err.kind == ErrorKind.UNAUTHORIZED:
        raise ApiAuthError(f"the Run:ai API refused the credentials for {what} ({err.message})")
    if err.kind == ErrorKind.FORBIDDEN:
        raise ApiAuthError(f"the Run:ai service account may not read {what} ({err.message})")
    if err.kind in (ErrorKind.UNREACHABLE, ErrorKind.TIMEOUT, ErrorKind.SERVER_ERROR, ErrorKind.RATE_LIMITED):
        raise ApiUnavailable(f"the Run:ai API could not answer {what}: {err.message}")


def status_update(st: ToolResult, step: int) -> dict:
    """A usable status read: its call, and the limitation when its events could not be fetched (Step 1.6)."""
    upd: dict = {"status": st, "calls": calls_of(st, step),
                 "limitations": limitations(step, *(f"{st.tool}: {n}" for n in st.notes))}
    if st.ok and st.data.events is None:
        upd["limitations"] = upd["limitations"] + limitations(
            step, "Recent events could not be fetched (events: null): a fetch failure, not proof that no "
                  f"events occurred ({st.data.events_error or 'no detail'}); history and Tier 2 evidence were "
                  "used instead.")
    return upd


def newest_first(workloads: list) -> list:
    """Listed workloads, newest phase update first (the API was asked to sort; a stable local sort keeps that true
    regardless); unknown times last."""
    def key(w):
        t = parse_time(w.phaseUpdatedAt)
        return (t is None, -(t.timestamp() if t else 0.0))

    return sorted(workloads, key=key)


def checked_status(st: ToolResult, workload_id: str, step: int) -> tuple[object, dict]:
    """Step 1.2's rule for the selected workload's status read, for every Run:ai procedure: (the ``Stop`` when the
    workload does not exist, else None; the state update). A read the run cannot go on without raises (refused
    credentials, an API that could not answer, a body that is no workload)."""
    from workload_diagnose.agent.procedures.kit import stops

    if st.status == ToolStatus.ABSENT:
        return stops.no_match(f"Workload {workload_id} was not found. Please check the workload ID or give the "
                              "workload name and project."), status_update(st, step)
    fatal_if_unreachable(st, f"workload {workload_id}")
    if not st.ok:
        raise ApiUnavailable(f"the Run:ai API returned an unusable status for workload {workload_id}: "
                             f"{st.error.message if st.error else 'unknown error'}")
    return None, status_update(st, step)
