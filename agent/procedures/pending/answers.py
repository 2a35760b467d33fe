"""Which command answers a workload this procedure does not: the failed diagnosis for a pod that is past
scheduling or failing to start, the procedure the phase rules name for a preemption (``kit.routing``'s
``answered_by``). Looked up in the registry, never an import of another procedure."""
from __future__ import annotations

from workload_diagnose.agent.procedures.kit import routing

FAILED = "runai_failed"  # the procedure that answers a Pending workload with a pod-start failure


def command_of(procedure: str | None) -> str | None:
    """The command of a registered procedure, or None."""
    from workload_diagnose.agent.procedures import specs

    s = specs().get(procedure or "")
    return s.command.name if s is not None and s.command is not None else None


def command_for_route(route: str) -> str | None:
    """The command of the procedure the phase rules name for ``route`` (its row's ``answered_by``), or None."""
    return command_of(next((r.answered_by for r in routing.RULES if r.name == route), None))
