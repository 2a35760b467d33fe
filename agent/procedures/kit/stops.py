"""Every early end of the Run:ai failed-workload procedure, worded once (the skill's stop and routing rules)."""
from __future__ import annotations

from workload_diagnose.agent.model.outcomes import Route, Stop


def missing_parameters(missing: list[str]) -> Stop:
    return Stop(route=Route.MISSING_PARAMETERS,
                question="Which workload should I diagnose? Please provide " + "; ".join(missing) + ".",
                message="Required identifiers are missing; no tool was called.")


def missing_input(req) -> Stop | None:
    """Step 1.1: the stop when the request lacks cluster_id, or both the workload id (the skill's Option A) and its
    name with its project (Option B); None when it names a workload. The question is in plain words."""
    missing = []
    if not req.cluster_id:
        missing.append("cluster_id")
    if not req.has_workload:
        if req.workload_name and not req.project:
            missing.append("project (a workload name is looked up in its project)")
        elif req.project and not req.workload_name:
            missing.append("workload_name (a project is searched for the workload's exact name)")
        else:
            missing.append("the workload id (workload_id), or its name and project (workload_name + project)")
    return missing_parameters(missing) if missing else None


def no_match(question: str) -> Stop:
    return Stop(route=Route.NO_MATCHING_WORKLOAD, question=question)


def cluster_mismatch(workload_id: str, reported: str | None, requested: str | None) -> Stop:
    return Stop(route=Route.CLUSTER_MISMATCH,
                message=f"Workload {workload_id} belongs to cluster {reported or 'not reported'}, not the requested "
                        f"cluster {requested}. Not diagnosed.")


# where the preemption evidence was found → how the report words it
PREEMPTION_SEEN_IN = {
    "status": "A recent event reports preemption",
    "pods_history": "Pod or history evidence for the current termination reports preemption",
    "kube": "Kubernetes evidence reports preemption",
}


def preempted(seen_in: str) -> Stop:
    return Stop(route=Route.PREEMPTED, message=f"{PREEMPTION_SEEN_IN[seen_in]}: this is not a failure. Use the "
                                               "preempted-workload diagnosis.")


PENDING = Stop(route=Route.PENDING_SCHEDULING,
               message="Pending with only scheduling or resource-wait evidence: use the pending-workload diagnosis.")
RUNNING_WITHOUT_FAILURE = Stop(
    route=Route.RUNNING_WITHOUT_FAILURE,
    question="This workload is Running with no confirmed failure symptom. Did you mean a past run? If so, give its "
             "workload ID or ask about the terminal run.",
    message="Running without a confirmed failure symptom.")
SUSPENDED = Stop(route=Route.SUSPENDED, message="Workload is Suspended (paused, not failed): out of scope.")


def completed(phase: str | None) -> Stop:
    return Stop(route=Route.COMPLETED,
                message=f"Workload phase is {phase}: it finished successfully; no failure to diagnose.")


def not_terminal(phase: str | None) -> Stop:
    return Stop(route=Route.PHASE_NOT_TERMINAL,
                message=f"Workload phase is {phase or 'not reported'}: not a terminal failure; no category assigned.")
