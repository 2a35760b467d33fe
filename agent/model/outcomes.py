"""Outcomes and routes: how a procedure ends when it does not (or does) assign a category.

One table: every route names its outcome; ``Stop`` is what a node returns to end the procedure early.
"""
from __future__ import annotations

from enum import Enum

from pydantic import BaseModel


class Outcome(str, Enum):
    DIAGNOSED = "diagnosed"
    ROUTED = "routed"  # handed to another diagnosis (preemption, pending scheduling, not preempted)
    STOPPED = "stopped"  # out of scope (completed, suspended, not terminal, other cluster)
    NEEDS_INPUT = "needs_input"  # the user must say more


class Route(str, Enum):
    PREEMPTED = "preempted"
    PENDING_SCHEDULING = "pending_scheduling"
    COMPLETED = "completed"
    SUSPENDED = "suspended"
    PHASE_NOT_TERMINAL = "phase_not_terminal"
    CLUSTER_MISMATCH = "cluster_mismatch"
    MISSING_PARAMETERS = "missing_parameters"
    NO_MATCHING_WORKLOAD = "no_matching_workload"
    RUNNING_WITHOUT_FAILURE = "running_without_failure"
    NOT_PREEMPTED = "not_preempted"  # the preemption diagnosis found no preemption: the failed-workload one answers
    # the pending diagnosis: a Pending workload past scheduling or with a pod-start failure (the failed diagnosis
    # answers it), and a workload that is not Pending
    POD_START = "pod_start"
    NOT_PENDING = "not_pending"

    @property
    def outcome(self) -> Outcome:
        return ROUTE_OUTCOME[self]


ROUTE_OUTCOME: dict[Route, Outcome] = {
    Route.PREEMPTED: Outcome.ROUTED,
    Route.PENDING_SCHEDULING: Outcome.ROUTED,
    Route.COMPLETED: Outcome.STOPPED,
    Route.SUSPENDED: Outcome.STOPPED,
    Route.PHASE_NOT_TERMINAL: Outcome.STOPPED,
    Route.CLUSTER_MISMATCH: Outcome.STOPPED,
    Route.MISSING_PARAMETERS: Outcome.NEEDS_INPUT,
    Route.NO_MATCHING_WORKLOAD: Outcome.NEEDS_INPUT,
    Route.RUNNING_WITHOUT_FAILURE: Outcome.NEEDS_INPUT,
    Route.NOT_PREEMPTED: Outcome.ROUTED,
    Route.POD_START: Outcome.ROUTED,
    Route.NOT_PENDING: Outcome.STOPPED,
}


class Stop(BaseModel):
    """A procedure's early end: the route, what to tell the user, and what to ask when input is needed."""

    route: Route
    message: str | None = None  # the next step shown under "Next step:"
    question: str | None = None

    @property
    def outcome(self) -> Outcome:
        return self.route.outcome
