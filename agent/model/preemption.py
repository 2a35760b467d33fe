"""The public result of ``workload-diagnose preempted``: the ``failed --json`` core fields (``outcome``,
``workload``, ``evidence``, ``recommendations``, ``limitations``, ``question``, ``report``,
``ignored_instructions``, ``tool_calls``, and ``route`` / ``next`` / ``recurrence`` in the same shapes) plus its
own: ``reason`` (one of the taxonomy's preemption reasons), ``owner`` (researcher, project admin, platform),
``preemptions`` (each preemption in the lookback), ``scheduling`` (priority and preemptibility) and ``quota`` (the
project's deserved vs allocated GPUs per node pool). Field names and meanings are a stable contract.

A figure that was not read is null, never 0; the report says it is missing.
"""
from __future__ import annotations

from pydantic import BaseModel, Field

from workload_diagnose.agent.model.lines import EvidenceLine, ToolCall
from workload_diagnose.agent.model.result import RecurrenceOut, WorkloadRef

__all__ = ["PreemptionOut", "SchedulingOut", "PoolOut", "QuotaOut", "PreemptionResult"]


class PreemptionOut(BaseModel):
    """One preemption in the lookback: when, why (the notice's reason), and who preempted it when named."""

    at: str | None = None
    reason: str  # the preemption reason this notice supports
    preemptor: str | None = None  # "<namespace>/<name>" as the notice names it
    preemptor_project: str | None = None
    preemptor_type: str | None = None  # the preemptor's workload type, when it was looked up
    preemptor_priority: str | None = None  # its priority class (and value), when it was looked up
    source: str  # the tool whose record reported it


class SchedulingOut(BaseModel):
    priority_class: str | None = None
    priority: int | None = None
    preemptible: bool | None = None  # None: not reported
    terminate_after_preemption: bool | None = None
    node_pools: list[str] = Field(default_factory=list)  # the pools it requested / ran in, as reported


class PoolOut(BaseModel):
    node_pool: str | None = None
    deserved_gpus: float | None = None
    limit_gpus: float | None = None  # -1: no limit
    over_quota_weight: float | None = None
    allocated_gpus: float | None = None
    allocated_non_preemptible_gpus: float | None = None
    over_quota: bool | None = None  # allocated above deserved (None: a figure is missing)


class QuotaOut(BaseModel):
    """The project's quota per node pool as read at ``read_at`` (its state then, not at the preemption)."""

    project: str
    read_at: str
    workload_pool: str | None = None  # the pool the workload ran in, when known
    pools: list[PoolOut] = Field(default_factory=list)


class PreemptionResult(BaseModel):
    outcome: str
    reason: str | None = None
    owner: str | None = None
    route: str | None = None
    next: str | None = None  # the command that answers the route (``failed`` for a workload that was not preempted)
    workload: WorkloadRef | None = None
    evidence: list[EvidenceLine] = Field(default_factory=list)
    preemptions: list[PreemptionOut] = Field(default_factory=list)
    recurrence: RecurrenceOut | None = None
    scheduling: SchedulingOut | None = None
    quota: QuotaOut | None = None
    recommendations: list[str] = Field(default_factory=list)
    limitations: list[str] = Field(default_factory=list)
    question: str | None = None
    ignored_instructions: list[EvidenceLine] = Field(default_factory=list)
    tool_calls: list[ToolCall] = Field(default_factory=list)
    report: str = ""
