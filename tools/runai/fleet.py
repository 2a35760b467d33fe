"""One diagnosis of a triage: :class:`WorkloadReads`, the :class:`~tools.runai.source.RunaiSource` it reads
through — a view of the fleet's source (:class:`~tools.runai.source.FleetSource`: one connection pool, one
credential), the listed workload standing in for the status read's single-workload read when it is the same
object, and the spec and pods it read kept for the cross-workload patterns.
"""
from __future__ import annotations

from datetime import datetime
from typing import Any

from workload_diagnose.tools.base import ToolResult
from workload_diagnose.tools.runai.models import Workload

__all__ = ["WorkloadReads", "STANDS_IN_PHASES", "stands_in"]

# Phases whose listed object can replace ``GET /api/v1/workloads/{id}``: the single read adds only
# ``pendingSchedulingMessages`` (runai-api.md), which describe a workload that is waiting to be scheduled.
STANDS_IN_PHASES = frozenset({"failed", "stopped", "crashed", "error"})


def stands_in(listed: Any) -> bool:
    """Whether this listed workload can replace its single-workload read (its phase is one of STANDS_IN_PHASES)."""
    return listed is not None and (getattr(listed, "phase", None) or "").lower() in STANDS_IN_PHASES


class WorkloadReads:
    """The six skill reads of ONE diagnosis in a triage (a ``RunaiSource``), sharing the fleet's source."""

    def __init__(self, client: Any, listed: Workload | None = None):
        self._c = client.view()
        self._listed = listed if stands_in(listed) else None
        self.spec: ToolResult | None = None
        self.pods: ToolResult | None = None

    @property
    def injections(self) -> list[Any]:
        return self._c.injections

    @property
    def stood_in(self) -> bool:
        return self._listed is not None

    def list_workloads(self, *, name: str, cluster_id: str, project: str) -> ToolResult:
        return self._c.list_workloads(name=name, cluster_id=cluster_id, project=project)

    def get_workload_status(self, workload_id: str, *, cutoff: datetime | None = None) -> ToolResult:
        if self._listed is not None and self._listed.id == workload_id:
            return self._c.get_listed_workload_status(self._listed, cutoff=cutoff)
        return self._c.get_workload_status(workload_id, cutoff=cutoff)

    def get_workload_spec(self, workload_id: str, workload_type: str | None) -> ToolResult:
        self.spec = self._c.get_workload_spec(workload_id, workload_type)
        return self.spec

    def get_workload_pods(self, workload_id: str) -> ToolResult:
        self.pods = self._c.get_workload_pods(workload_id)
        return self.pods

    def get_workload_history(self, workload_id: str, *, cutoff: datetime) -> ToolResult:
        return self._c.get_workload_history(workload_id, cutoff=cutoff)

    def get_workload_metrics(self, workload_id: str, **kw: Any) -> ToolResult:
        return self._c.get_workload_metrics(workload_id, **kw)

    def close(self) -> None:  # the fleet's source is closed once, by whoever made it
        pass
