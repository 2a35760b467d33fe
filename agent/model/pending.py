"""The public result of the pending diagnosis: the ``pending --json`` contract. It shares the ``failed --json`` core
fields (outcome, workload, evidence, recommendations, limitations, question, report, ignored_instructions,
tool_calls, route) and adds its own: the reason, its owner, the command that answers a route elsewhere (``next``),
and the figures (requested, quota per node pool, capacity, how long it has waited), each as read: a figure that
was not read is null, and the limitations say why."""
from __future__ import annotations

from pydantic import BaseModel, Field

from workload_diagnose.agent.model.lines import EvidenceLine, ToolCall
from workload_diagnose.agent.model.result import WorkloadRef

__all__ = ["Requested", "PoolQuotaOut", "QuotaOut", "PoolCapacity", "Waited", "PendingResult"]


class Requested(BaseModel):
    """What the workload asks for, as Run:ai reports it (``get_workload_status``)."""

    gpus: float | None = None  # workloadRequestedResources.gpu.request (the whole workload)
    gpus_per_pod: float | None = None  # podsRequestedResources.gpu.request
    pods: int | None = None  # requestedPods.number (else min)
    node_pools: list[str] = Field(default_factory=list)  # requestedNodePools, in priority order
    preemptible: bool | None = None


class PoolQuotaOut(BaseModel):
    node_pool: str | None = None
    deserved_gpus: float | None = None
    limit_gpus: float | None = None  # -1: no limit
    allocated_gpus: float | None = None
    allocated_non_preemptible_gpus: float | None = None


class QuotaOut(BaseModel):
    """The project's GPU quota in the node pool(s) in question (``find_project``)."""

    project: str
    node_pools: list[PoolQuotaOut] = Field(default_factory=list)


class PoolCapacity(BaseModel):
    """One node pool: its phase and nodes (``list_node_pools``) and GPUs (``get_node_pool_gpus``)."""

    node_pool: str
    phase: str | None = None
    nodes: int | None = None
    total_gpus: float | None = None
    allocated_gpus: float | None = None
    free_gpus: float | None = None
    at: str | None = None


class Waited(BaseModel):
    since: str  # phaseUpdatedAt of the Pending phase (else createdAt)
    seconds: int
    text: str  # "3h 12m"


class PendingResult(BaseModel):
    """The public result. Field names and meanings are a stable contract (``workload-diagnose pending --json``)."""

    outcome: str  # diagnosed | routed | stopped | needs_input
    reason: str | None = None  # the pending reason (agent/taxonomy/pending_reasons) when diagnosed
    owner: str | None = None  # who acts on it
    route: str | None = None
    next: str | None = None  # the command that answers this workload when it is not a scheduling wait
    workload: WorkloadRef | None = None
    requested: Requested | None = None
    quota: QuotaOut | None = None
    capacity: list[PoolCapacity] = Field(default_factory=list)
    waited: Waited | None = None
    evidence: list[EvidenceLine] = Field(default_factory=list)
    recommendations: list[str] = Field(default_factory=list)
    limitations: list[str] = Field(default_factory=list)
    question: str | None = None
    ignored_instructions: list[EvidenceLine] = Field(default_factory=list)
    tool_calls: list[ToolCall] = Field(default_factory=list)
    report: str = ""

    @property
    def category(self) -> None:
        """A pending workload has no failure category (what the service's counters read of every result)."""
        return None
