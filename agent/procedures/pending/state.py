"""The procedure's state: its input (the request), what its reads returned, the findings its nodes add, its end.

List fields that several nodes add to are reducer fields (``Added``): a node returns only what it adds.
"""
from __future__ import annotations

from pydantic import BaseModel, Field

from workload_diagnose.agent.model.findings import Added, Call, Limitation
from workload_diagnose.agent.model.lines import EvidenceLine
from workload_diagnose.agent.model.outcomes import Stop
from workload_diagnose.agent.model.pending import PendingResult
from workload_diagnose.agent.model.request import DiagnosisRequest
from workload_diagnose.agent.model.signals import Signal
from workload_diagnose.tools.base import ToolResult


class Step:
    """The order of this procedure's findings in the report (limitations and tool calls)."""

    ROUTING, LIST, STATUS, PODS, HISTORY, PROJECT, NODE_POOLS, CAPACITY, SPEC, NODES, KUBE, VERDICT, REPORT = \
        range(13)


class PendingRequest(DiagnosisRequest):
    """Which workload (its id, or its name and project): the failed request's fields, its own type (the runner picks the procedure
    by it). ``intent`` plays no part: only a Pending workload is this procedure's."""


class Input(BaseModel):
    request: PendingRequest


class Output(BaseModel):
    result: PendingResult


class WaitLine(BaseModel):
    """One system message that shows a pending reason (the record's name), cited."""

    reason: str
    source: str
    text: str
    at: str | None = None
    pool: str | None = None  # the node pool the message is about, when it names one


class KubeFound(BaseModel):
    """What Tier 2 (read-only Kubernetes) contributed."""

    waits: list[WaitLine] = Field(default_factory=list)
    signals: list[Signal] = Field(default_factory=list)
    lines: list[EvidenceLine] = Field(default_factory=list)
    past_scheduling: bool = False  # a pod of the workload is bound to a node
    calls: list[str] = Field(default_factory=list)
    limitations: list[str] = Field(default_factory=list)
    recommendations: list[str] = Field(default_factory=list)
    injections: list = Field(default_factory=list)


class State(BaseModel):
    request: PendingRequest
    selected_id: str | None = None
    status: ToolResult | None = None
    pods: ToolResult | None = None
    history: ToolResult | None = None
    # the figures (written by parallel nodes: one key each)
    project: ToolResult | None = None
    node_pools: ToolResult | None = None
    capacity: list[ToolResult] = Field(default_factory=list)
    spec: ToolResult | None = None
    nodes: list[ToolResult] = Field(default_factory=list)
    kube: KubeFound | None = None
    # findings
    signals: Added[Signal] = Field(default_factory=list)  # failure / progress signals (the phase rules)
    waits: Added[WaitLine] = Field(default_factory=list)
    limitations: Added[Limitation] = Field(default_factory=list)
    calls: Added[Call] = Field(default_factory=list)
    deferred: bool = False  # events could not be fetched: the phase rule is decided after pods and history
    preempted: bool = False  # preemption evidence: it was preempted before it waited again
    pools: list[str] = Field(default_factory=list)  # the node pool(s) in question
    reason: str | None = None  # the pending reason, once the wait messages are in
    # the end: a stop (route / needs_input) or a reason
    stop: Stop | None = None
    next: str | None = None
    result: PendingResult | None = None

    @property
    def workload(self):
        return self.status.data.workload if self.status is not None and self.status.ok else None
