"""The public result: the ``workload-diagnose failed --json`` contract. Field names and meanings are stable."""
from __future__ import annotations

from pydantic import BaseModel, Field


class WorkloadRef(BaseModel):
    id: str | None = None
    name: str | None = None
    project: str | None = None
    cluster_id: str | None = None
    phase: str | None = None


class EvidenceLine(BaseModel):
    source: str
    text: str


class RecurrenceOut(BaseModel):
    count: int
    lookback: str
    recurring: bool


class ToolCall(BaseModel):
    tool: str
    request: str
    status: int | None = None


class Explanation(BaseModel):
    text: str
    source: str  # "llm" | "deterministic"
    rejected_reasons: list[str] = Field(default_factory=list)


class DiagnosisResult(BaseModel):
    """The public result. Field names and meanings are a stable contract (``workload-diagnose failed --json``)."""

    outcome: str
    category: str | None = None
    route: str | None = None
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
