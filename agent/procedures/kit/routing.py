"""The phase rules of a Run:ai procedure, one table: from the workload's phase and the signal kinds found so far,
either an early end (a ``Stop``: preempted, completed, suspended, pending_scheduling, running without a failure,
phase not terminal), a decision deferred until history and pods are read (events could not be fetched), or go on.

Rows are tried in order; the first that applies decides. A procedure that answers one of these routes (e.g. the
preempted-workload diagnosis) reads the same rows to know that the workload is its own.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from workload_diagnose.agent.model import phases
from workload_diagnose.agent.model.outcomes import Stop
from workload_diagnose.agent.model.signals import Kind
from workload_diagnose.agent.procedures.kit import stops
from workload_diagnose.agent.taxonomy.registry import CRASH_CONFIRMING_KINDS, DIRECT_FAILURE_KINDS


def preempted(kinds: set | frozenset) -> bool:
    """The one preemption test: any signal of kind PREEMPTED (status, pods, history or Kubernetes evidence)."""
    return Kind.PREEMPTED in kinds


@dataclass(frozen=True)
class Facts:
    phase: str | None  # as Run:ai reported it
    kinds: frozenset  # signal kinds found so far
    events_known: bool  # False when the events could not be fetched (events: null)

    @property
    def p(self) -> str:
        return phases.norm(self.phase)

    @property
    def failure(self) -> bool:
        return bool(self.kinds & DIRECT_FAILURE_KINDS)

    @property
    def crash(self) -> bool:
        return bool(self.kinds & CRASH_CONFIRMING_KINDS)


@dataclass(frozen=True)
class PhaseRule:
    name: str  # the route's name, or the deferred decision's
    applies: Callable[[Facts], bool]
    stop: Callable[[Facts], Stop] | None = None  # an early end …
    defer: str | None = None  # … or a decision taken again after history and pods (``after_history``)
    # the registered procedure that answers this route, when one exists: ``failed --json`` then names its command
    # in the key ``next`` (``next_command``)
    answered_by: str | None = None
    # (phase, kinds, events known) this row decides, and one it must leave to a later row (checked by a test)
    true: tuple[str, frozenset, bool] = ("", frozenset(), True)
    false: tuple[str, frozenset, bool] = ("", frozenset(), True)


_F = frozenset
RULES: tuple[PhaseRule, ...] = (
    PhaseRule("preempted", lambda f: preempted(f.kinds), stop=lambda f: stops.preempted("status"),
              answered_by="preempted", true=("Failed", _F({Kind.PREEMPTED, Kind.APP_EXIT}), True),
              false=("Failed", _F({Kind.APP_EXIT}), True)),
    PhaseRule("completed", lambda f: f.p in phases.SUCCEEDED, stop=lambda f: stops.completed(f.phase),
              true=("Succeeded", _F(), True), false=("Failed", _F(), True)),
    PhaseRule("suspended", lambda f: f.p in phases.SUSPENDED, stop=lambda f: stops.SUSPENDED,
              true=("Suspended", _F(), True), false=("Stopped", _F(), True)),
    # past scheduling: not "only scheduling evidence"; look further
    PhaseRule("pending_scheduled", lambda f: f.p == "pending" and not f.failure and Kind.POD_SCHEDULED in f.kinds,
              defer="pending_scheduled", true=("Pending", _F({Kind.POD_SCHEDULED}), True),
              false=("Pending", _F({Kind.SCHEDULING_WAIT}), True)),
    PhaseRule("pending_scheduling", lambda f: f.p == "pending" and not f.failure and f.events_known,
              stop=lambda f: stops.PENDING, answered_by="pending",
              true=("Pending", _F({Kind.SCHEDULING_WAIT}), True),
              false=("Pending", _F({Kind.IMAGE_PULL}), True)),
    PhaseRule("pending", lambda f: f.p == "pending" and not f.failure, defer="pending",  # events: null (Step 1.6)
              true=("Pending", _F(), False), false=("Pending", _F({Kind.IMAGE_PULL}), False)),
    PhaseRule("running_without_failure", lambda f: f.p == "running" and not f.crash and f.events_known,
              stop=lambda f: stops.RUNNING_WITHOUT_FAILURE, true=("Running", _F(), True),
              false=("Running", _F({Kind.CRASH_LOOP}), True)),
    PhaseRule("running", lambda f: f.p == "running" and not f.crash, defer="running",
              true=("Running", _F(), False), false=("Running", _F({Kind.CRASH_LOOP}), False)),
    PhaseRule("phase_not_terminal", lambda f: f.p not in phases.DIAGNOSABLE,
              stop=lambda f: stops.not_terminal(f.phase), true=("Initializing", _F(), True),
              false=("Crashed", _F(), True)),
)


def command_of(procedure: str | None) -> str | None:
    """The CLI command of a registered procedure (looked up by its registry name, never imported), or None."""
    from workload_diagnose.agent.procedures import specs

    spec = specs().get(procedure or "")
    return spec.command.name if spec is not None and spec.command is not None else None


def next_command(route: str | None) -> str | None:
    """The command of the registered procedure that answers ``route`` (the row of that name says which), or None.
    Every stop with that route (seen in status, in pods or history, or in Kubernetes evidence) is the same route."""
    row = next((r for r in RULES if r.name == route and r.answered_by), None)
    return command_of(row.answered_by) if row is not None else None


@dataclass(frozen=True)
class Decision:
    rule: str | None = None
    stop: Stop | None = None
    defer: str | None = None
    note: str | None = None  # a limitation to state (a deferred decision that could not route)


def decide(phase: str | None, kinds: set | frozenset, events_known: bool) -> Decision:
    """Step 1.3–1.6 after the cluster check: the first row that applies, or go on (``Decision()``)."""
    facts = Facts(phase=phase, kinds=frozenset(kinds), events_known=events_known)
    for rule in RULES:
        if rule.applies(facts):
            return Decision(rule=rule.name, stop=rule.stop(facts) if rule.stop else None, defer=rule.defer)
    return Decision()


PAST_SCHEDULING = ("Pending workload whose pod is already past scheduling (scheduled, pulling or starting): status, "
                   "pods and history show no pod-start failure yet, so it is not routed as a scheduling wait.")
PENDING_UNROUTED = ("Pending workload whose events could not be fetched: neither a pod-start failure nor "
                    "scheduling-only evidence was found in status, pods or history, so it could not be routed as a "
                    "scheduling wait.")


def after_history(deferred: str | None, kinds: set | frozenset) -> Decision:
    """Step 3: preemption in the current episode, then the deferred phase rule over status + pods + history."""
    if preempted(kinds):
        return Decision(rule="preempted", stop=stops.preempted("pods_history"))
    failure, crash = bool(kinds & DIRECT_FAILURE_KINDS), bool(kinds & CRASH_CONFIRMING_KINDS)
    if deferred == "pending_scheduled" and not failure:
        return Decision(note=PAST_SCHEDULING)
    if deferred == "pending" and not failure:
        if Kind.SCHEDULING_WAIT in kinds and Kind.POD_SCHEDULED not in kinds:
            return Decision(rule="pending_scheduling", stop=stops.PENDING)
        # no failure signal, but no scheduling evidence either: the events that would tell are missing, so this
        # is not "only scheduling evidence" — go on (Tier 2 may tell; otherwise UNKNOWN, never a guess)
        return Decision(note=PENDING_UNROUTED)
    if deferred == "running" and not crash:
        return Decision(rule="running_without_failure", stop=stops.RUNNING_WITHOUT_FAILURE)
    return Decision()
