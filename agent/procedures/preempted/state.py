"""The procedure's state: its input (the request), what its reads returned, the findings its nodes add, its end.

List fields that several nodes add to are reducer fields (``Added``): a node returns only what it adds.
"""
from __future__ import annotations

from pydantic import BaseModel, Field

from workload_diagnose.agent.model.findings import Added, Call, Limitation
from workload_diagnose.agent.model.outcomes import Stop
from workload_diagnose.agent.model.preemption import PreemptionResult
from workload_diagnose.agent.model.request import DiagnosisRequest
from workload_diagnose.agent.procedures.preempted.evidence import Notice, Preemption
from workload_diagnose.tools.base import ToolResult


class Step:
    """The order of this procedure's findings in the report (limitations and tool calls)."""

    ROUTING, LIST, STATUS, HISTORY, SPEC, QUOTA, PREEMPTORS, VERDICT, REPORT = range(9)


class PreemptedRequest(DiagnosisRequest):
    """Which workload's preemption to explain: the workload id (``workload_id``), or its name and project
    (``workload_name`` + ``project``). Its own type: the runner picks this procedure by it."""


class Input(BaseModel):
    request: PreemptedRequest


class Output(BaseModel):
    result: PreemptionResult


class State(BaseModel):
    request: PreemptedRequest
    selected_id: str | None = None
    status: ToolResult | None = None
    history: ToolResult | None = None
    spec: ToolResult | None = None
    project: ToolResult | None = None
    preemptors: dict[str, ToolResult] = Field(default_factory=dict)  # "<ns>/<name>" -> list_workloads result
    notices: list[Notice] = Field(default_factory=list)  # every preemption notice found, oldest first
    resumes: list[str] = Field(default_factory=list)  # times the workload started running again (history)
    preemptions: list[Preemption] = Field(default_factory=list)  # oldest first, each with its reason
    # no notice found, but a read that would show one failed: whether it was preempted is not in the evidence
    undetermined: bool = False
    limitations: Added[Limitation] = Field(default_factory=list)
    calls: Added[Call] = Field(default_factory=list)
    stop: Stop | None = None
    result: PreemptionResult | None = None

    @property
    def workload(self):
        return self.status.data.workload if self.status is not None and self.status.ok else None
