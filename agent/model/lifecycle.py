"""The lifecycle-layer vocabulary: phases, their status and owner, the layer to act on, and the public result
of ``workload-diagnose lifecycle --json``. Field names, phase names, statuses and owners are a stable contract.

A phase's evidence lines are the same ``EvidenceLine`` the Run:ai diagnosis cites (one verdict model): a source
(the read or kubectl command it came from) and its text, already redacted and injection-scanned.
"""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from workload_diagnose.agent.model.lines import EvidenceLine, ToolCall

PhaseStatus = Literal["pending", "active", "done", "warning", "skipped"]
Owner = Literal["researcher", "platform", "queue-owner", "node-pool-owner"]
RunKind = Literal["Job", "RayJob"]

# The listed phases, in order. ``first_incomplete`` is taken over these only: an extra phase (e.g. compute release)
# never makes a healthy run look incomplete.
SUBMITTED, KUEUE, RAYCLUSTER, SCHEDULING, DRA, IMAGE_PULL, INIT, CONTAINER_START, READY, RAYJOB_STATUS = (
    "Submitted", "Kueue admission", "RayCluster", "Pod scheduling", "DRA allocation", "Image pull",
    "Init containers", "Container start", "Ready", "RayJob status")
COMPUTE_RELEASE = "Compute release"  # extra (RayJob only): never counted by first_incomplete
LISTED_PHASES: tuple[str, ...] = (SUBMITTED, KUEUE, RAYCLUSTER, SCHEDULING, DRA, IMAGE_PULL, INIT, CONTAINER_START,
                                  READY, RAYJOB_STATUS)
RAYJOB_ONLY = frozenset({RAYCLUSTER, RAYJOB_STATUS, COMPUTE_RELEASE})
COMPLETE_STATUSES = frozenset({"done", "skipped"})


class Phase(BaseModel):
    name: str
    status: PhaseStatus
    detail: str
    hint: str | None = None
    owner: Owner
    next_action: str | None = None  # only for a phase that is neither done nor skipped
    evidence: list[EvidenceLine] = Field(default_factory=list)

    @property
    def complete(self) -> bool:
        return self.status in COMPLETE_STATUSES


class Layer(BaseModel):
    name: str
    owner: Owner
    next_action: str | None = None


class RunRef(BaseModel):
    name: str
    namespace: str
    kind: RunKind | None = None


def first_incomplete(phases: list[Phase]) -> Phase | None:
    """The first LISTED phase that is neither done nor skipped (extra phases are never counted)."""
    for p in phases:
        if p.name in LISTED_PHASES and not p.complete:
            return p
    return None


class PodLayers(BaseModel):
    """The pod's layers of the lifecycle walk (Pod scheduling, Image pull, Init containers, Container start, Ready)
    as the Run:ai report shows them: the same phases, first incomplete layer and owner as ``lifecycle --json``."""

    phases: list[Phase] = Field(default_factory=list)
    first_incomplete: str | None = None
    layer: Layer | None = None


class LifecycleResult(BaseModel):
    """``workload-diagnose lifecycle --json``: one object. Field names and meanings are a stable contract."""

    run: RunRef
    phases: list[Phase] = Field(default_factory=list)
    first_incomplete: str | None = None
    layer: Layer | None = None
    notes: list[str] = Field(default_factory=list)
    run_profile: dict | None = None  # only with --run-profile
    limitations: list[str] = Field(default_factory=list)
    report: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    ignored_instructions: list[EvidenceLine] = Field(default_factory=list)  # injection findings, as for `failed`
