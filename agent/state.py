"""The one State type that flows through the graph, and the public result (the ``--json`` contract)."""
from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from agent.classifier import Verdict
from agent.recurrence import Recurrence
from agent.signals import Signal
from tools.base import ToolResult


class KubeEvidence(BaseModel):
    """What Tier 2 (read-only Kubernetes) contributed."""

    used: bool = False
    namespace: str | None = None
    signals: list[Signal] = Field(default_factory=list)
    lines: list[tuple[str, str]] = Field(default_factory=list)  # (source, text) context lines
    log_line: str | None = None
    log_source: str | None = None
    calls: list[str] = Field(default_factory=list)
    limitations: list[str] = Field(default_factory=list)
    injections: list[Any] = Field(default_factory=list)


class State(BaseModel):
    # Step 1: resolution and phase
    list_result: ToolResult | None = None
    probe_results: list[ToolResult] = Field(default_factory=list)  # status calls on non-selected candidates
    selected_id: str | None = None
    status: ToolResult | None = None
    # Step 2/3/4 reads (written by parallel nodes: one key each)
    spec: ToolResult | None = None
    pods: ToolResult | None = None
    history: ToolResult | None = None
    metrics: ToolResult | None = None
    kube: KubeEvidence | None = None
    # derived
    signals: list[Signal] = Field(default_factory=list)  # status + pods + current history episode (+ Tier 2)
    past_episode_signals: list[list[Signal]] = Field(default_factory=list)
    current_episode_end: str | None = None
    notes: list[str] = Field(default_factory=list)  # limitations raised by the routing nodes
    # a Pending/Running phase rule that could not be decided from status alone because events were null
    # (Step 1.6: a fetch failure, not "no events"): decided again once history and pods are in
    deferred_phase: str | None = None
    # decision
    outcome: str | None = None  # diagnosed | routed | stopped | needs_input
    route: str | None = None
    question: str | None = None
    stop_message: str | None = None
    verdict: Verdict | None = None
    recurrence: Recurrence | None = None
    result: "DiagnosisResult | None" = None


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



State.model_rebuild()
