"""The public result: the ``workload-diagnose failed --json`` contract. Field names and meanings are stable."""
from __future__ import annotations

from pydantic import BaseModel, Field, model_serializer

from workload_diagnose.agent.model.lifecycle import PodLayers
from workload_diagnose.agent.model.lines import EvidenceLine, ToolCall

__all__ = ["WorkloadRef", "EvidenceLine", "RecurrenceOut", "ToolCall", "Explanation", "DiagnosisResult"]


class WorkloadRef(BaseModel):
    id: str | None = None
    name: str | None = None
    project: str | None = None
    cluster_id: str | None = None
    phase: str | None = None


class RecurrenceOut(BaseModel):
    count: int
    lookback: str
    recurring: bool


class Explanation(BaseModel):
    text: str
    source: str  # "llm" | "deterministic"
    rejected_reasons: list[str] = Field(default_factory=list)


class DiagnosisResult(BaseModel):
    """The public result. Field names and meanings are a stable contract (``workload-diagnose failed --json``)."""

    outcome: str
    category: str | None = None
    route: str | None = None
    # The command that answers ``route`` (e.g. "preempted"), when a registered procedure answers it. Optional:
    # absent from --json (not null) when there is none.
    next: str | None = None
    workload: WorkloadRef | None = None
    evidence: list[EvidenceLine] = Field(default_factory=list)
    recurrence: RecurrenceOut | None = None
    recommendations: list[str] = Field(default_factory=list)
    limitations: list[str] = Field(default_factory=list)
    question: str | None = None
    ignored_instructions: list[EvidenceLine] = Field(default_factory=list)
    tool_calls: list[ToolCall] = Field(default_factory=list)
    report: str = ""
    explanation: Explanation | None = None  # only when an LLM was given; validated or the report itself
    # The lifecycle layer walk of the pod (Pod scheduling … Ready), only for a Pending workload with a pod-start
    # signal whose pod Tier 2 read. Optional: absent from --json (not null) when there is none.
    lifecycle: PodLayers | None = None

    @model_serializer(mode="wrap")
    def _omit_absent_optional_keys(self, handler):
        data = handler(self)
        if isinstance(data, dict):
            for key in ("next", "lifecycle"):
                if data.get(key) is None:
                    data.pop(key, None)
        return data
