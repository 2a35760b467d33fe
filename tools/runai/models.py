"""The Run:ai domain models every source returns (REST today, the official MCP server later).

Field names follow Run:ai's API (``shared/reference/runai-api.md``); ``extra="allow"`` keeps fields this project
does not model yet. Every string in them has already passed the guardrails when a source builds them.
"""
from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["OOM_METRICS", "Condition", "InvolvedObject", "Event", "Workload", "WorkloadStatus", "Pod",
           "PhaseUpdate", "HistoryRecord", "History", "MetricSample", "MetricSeries", "SubmittedSpec"]

# The metric types the OOM procedure reads (the default of ``get_workload_metrics``).
OOM_METRICS = ("CPU_MEMORY_USAGE_BYTES", "CPU_MEMORY_LIMIT_BYTES", "CPU_MEMORY_REQUEST_BYTES")


class _M(BaseModel):
    model_config = ConfigDict(extra="allow")


class Condition(_M):
    type: str | None = None
    status: str | None = None
    reason: str | None = None
    message: str | None = None
    lastTransitionTime: str | None = None


class InvolvedObject(_M):
    kind: str | None = None
    name: str | None = None
    namespace: str | None = None


class Event(_M):
    createdAt: str | None = None
    type: str | None = None
    reason: str | None = None
    message: str | None = None
    source: str | None = None
    involvedObject: InvolvedObject | None = None


class Workload(_M):
    id: str
    name: str
    type: str | None = None
    clusterId: str | None = None
    projectName: str | None = None
    namespace: str | None = None
    phase: str | None = None
    phaseMessage: str | None = None
    phaseReason: str | None = None
    k8sPhase: str | None = None
    phaseUpdatedAt: str | None = None
    createdAt: str | None = None
    completedAt: str | None = None
    conditions: list[Condition] = Field(default_factory=list)
    podsRequestedResources: dict | None = None
    allocatedResources: dict | None = None


class WorkloadStatus(BaseModel):
    """The skill's ``get_workload_status``: the workload plus its recent events.

    ``events is None`` means the events fetch failed: not proof that no events occurred.
    """

    workload: Workload
    events: list[Event] | None = None
    events_error: str | None = None


class Pod(_M):
    name: str
    id: str | None = None
    nodeName: str | None = None
    k8sPhase: str | None = None
    createdAt: str | None = None
    completedAt: str | None = None
    containers: list[dict] = Field(default_factory=list)
    requestedResources: dict | None = None
    allocatedResources: dict | None = None


class PhaseUpdate(_M):
    phase: str | None = None
    phaseMessage: str | None = None


class HistoryRecord(BaseModel):
    at: str | None
    type: str | None
    event: Event | None = None
    phase_update: PhaseUpdate | None = None


class History(BaseModel):
    records: list[HistoryRecord]  # newest first, only those inside the lookback window
    pages: int
    reached_cutoff: bool


class MetricSample(BaseModel):
    timestamp: str | None
    value: float


class MetricSeries(BaseModel):
    type: str
    samples: list[MetricSample]
    unparsable: int = 0  # values that were not numbers (reported, never coerced to zero)


class SubmittedSpec(BaseModel):
    kind: str
    body: dict

