"""The procedure's state: its input (the scope), what its reads returned, the findings its nodes add, its end.

List fields that several nodes add to are reducer fields (``Added``): a node returns only what it adds.
"""
from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, Field, field_validator

from workload_diagnose.agent.model.findings import Added, Call, Limitation
from workload_diagnose.agent.model.health import HealthResult, Verdict
from workload_diagnose.agent.model.outcomes import Stop
from workload_diagnose.agent.model.request import DiagnosisRequest, build_request
from workload_diagnose.tools.base import ToolResult
from workload_diagnose.tools.runai import InvalidInput, check_name

DEFAULT_MAX_DIAGNOSES = 5  # per-workload diagnoses a snapshot runs at most (the rest are stated, not diagnosed)
MAX_DIAGNOSES = 50


class Step:
    """The order of this procedure's findings in the report (limitations and tool calls)."""

    ROUTING, LIST, QUOTA, ATTENTION, DIAGNOSE, REPORT = range(6)


class HealthRequest(DiagnosisRequest):
    """Which scope: a project (``project``) or a department (``department``) on one cluster, and how many
    per-workload diagnoses the snapshot may run. The workload fields play no part."""

    department: str | None = None
    max_diagnoses: int = DEFAULT_MAX_DIAGNOSES

    @field_validator("max_diagnoses")
    @classmethod
    def _bounded(cls, v: int) -> int:
        if not 0 <= v <= MAX_DIAGNOSES:
            raise ValueError(f"max_diagnoses must be between 0 and {MAX_DIAGNOSES}")
        return v

    @property
    def has_workload(self) -> bool:  # a snapshot names a scope, not a workload
        return bool(self.project or self.department)

    @property
    def complete(self) -> bool:
        return bool(self.cluster_id and self.has_workload)


def health_request(cluster_id: str | None = None, project: str | None = None, department: str | None = None,
                   lookback: str = "7d", now: str | None = None,
                   max_diagnoses: Annotated[int, Field(ge=0, le=MAX_DIAGNOSES)] = DEFAULT_MAX_DIAGNOSES
                   ) -> HealthRequest:
    """The procedure's parameters (its HTTP body and MCP tool): every problem is one ``InvalidInput`` line, before
    any read. ``cluster_id``: the cluster's UUID; ``project`` or ``department``: the scope, by exact name;
    ``lookback``: how far back a failure is recent (90m, 36h, 7d, 2w); ``now``: ISO 8601 to pin the clock;
    ``max_diagnoses``: per-workload diagnoses at most (0–50)."""
    base = build_request(cluster_id=cluster_id, project=project, lookback=lookback, now=now)
    return HealthRequest.model_validate({**dict(base), **scope_fields(project, department, max_diagnoses)})


# the body's JSON Schema (the HTTP route documents it): a project or a department, never both
health_request.json_schema = {  # type: ignore[attr-defined]
    "not": {"required": ["project", "department"],
            "properties": {"project": {"type": "string"}, "department": {"type": "string"}}}}


def scope_fields(project: str | None, department: str | None, max_diagnoses: Any) -> dict:
    """The fields a health request adds to a Run:ai request, checked (``InvalidInput``)."""
    if project and department:
        raise InvalidInput("give a project or a department, not both")
    if department:
        check_name(department, "department")
    if isinstance(max_diagnoses, bool) or not isinstance(max_diagnoses, int) or \
            not 0 <= max_diagnoses <= MAX_DIAGNOSES:
        raise InvalidInput(f"max diagnoses must be a whole number from 0 to {MAX_DIAGNOSES}, not {max_diagnoses!r}")
    return {"department": department or None, "max_diagnoses": max_diagnoses}


class Input(BaseModel):
    request: HealthRequest


class Output(BaseModel):
    result: HealthResult


class Diagnosed(BaseModel):
    """One per-workload diagnosis the snapshot ran (or could not finish)."""

    workload_id: str
    rule: str
    verdict: Verdict | None = None
    error: str | None = None
    evidence: list[Any] = Field(default_factory=list)  # its first cited lines (EvidenceLine)
    recommendations: list[str] = Field(default_factory=list)


class State(BaseModel):
    request: HealthRequest
    listing: ToolResult | None = None
    listing_problem: str | None = None  # why the listing part is omitted
    quota: ToolResult | None = None
    quota_problem: str | None = None
    diagnosed: list[Diagnosed] = Field(default_factory=list)
    skipped: list[str] = Field(default_factory=list)  # ids of workloads not diagnosed (the limit)
    limitations: Added[Limitation] = Field(default_factory=list)
    calls: Added[Call] = Field(default_factory=list)
    stop: Stop | None = None
    result: HealthResult | None = None
