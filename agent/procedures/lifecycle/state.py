"""The procedure's state: its input (the request), what its reads returned, the findings its nodes add, its end.

List fields that several nodes add to are reducer fields (``Added``): a node returns only what it adds.
"""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

from workload_diagnose.agent.model.findings import Added, Call, Limitation
from workload_diagnose.agent.model.lifecycle import LifecycleResult, Phase


class Step:
    """The order of findings in the report (limitations and tool calls)."""

    RUN, QUEUE, RAYCLUSTER, PODS, CLAIMS, EVENTS, PROFILE = range(7)


class LifecycleRequest(BaseModel):
    name: str
    namespace: str
    kind: Literal["auto", "job", "rayjob"] = "auto"
    run_profile: bool = False
    now: datetime = Field(default_factory=lambda: datetime.now(timezone.utc).replace(microsecond=0))

    @field_validator("now")
    @classmethod
    def _zone(cls, v: datetime) -> datetime:
        return v if v.tzinfo else v.replace(tzinfo=timezone.utc)


class Input(BaseModel):
    request: LifecycleRequest


class Output(BaseModel):
    result: LifecycleResult


class State(BaseModel):
    request: LifecycleRequest
    kind: str | None = None  # "Job" | "RayJob" | None (neither exists)
    job: dict | None = None
    rayjob: dict | None = None
    workloads: list[dict] | None = Field(default_factory=list)  # None: could not be read
    kueue_version: str | None = None  # the served kueue.x-k8s.io version the Workloads were read at
    kueue_served: bool = True  # False: discovery found no kueue.x-k8s.io (Kueue is not installed)
    submitter: dict | None = None  # RayJob only: KubeRay's submitter batch Job (same name, owned by the RayJob)
    submitter_pods: list[dict] | None = Field(default_factory=list)  # its pods (None: could not be read)
    raycluster_name: str | None = None
    raycluster: dict | None = None
    pods: list[dict] | None = Field(default_factory=list)
    claims: dict[str, dict | None] = Field(default_factory=dict)
    claims_error: str | None = None
    events: dict[str, list[dict]] = Field(default_factory=dict)  # "Kind/name" -> events
    run_profile: dict | None = None
    phases: list[Phase] = Field(default_factory=list)
    limitations: Added[Limitation] = Field(default_factory=list)
    calls: Added[Call] = Field(default_factory=list)
    injections: Added[Any] = Field(default_factory=list)
    result: LifecycleResult | None = None
