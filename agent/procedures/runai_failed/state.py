"""The procedure's state: its input (the request), what its reads returned, the findings its nodes add, its end.

List fields that several nodes add to are reducer fields (``Added``): a node returns only what it adds.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field

from workload_diagnose.agent.model.lifecycle import PodLayers
from workload_diagnose.agent.model.findings import Added, Call, Limitation
from workload_diagnose.agent.model.outcomes import Stop
from workload_diagnose.agent.model.request import DiagnosisRequest
from workload_diagnose.agent.model.result import DiagnosisResult
from workload_diagnose.agent.model.signals import Signal
from workload_diagnose.agent.procedures.kit.steps import Step  # noqa: F401  (the order of this procedure's findings)
from workload_diagnose.agent.procedures.runai_failed.recurrence import Episode, Mark, Recurrence, Restarts
from workload_diagnose.agent.taxonomy.classifier import Verdict
from workload_diagnose.tools.base import ToolResult


class KubeEvidence(BaseModel):
    """What Tier 2 (read-only Kubernetes) contributed."""

    namespace: str | None = None
    signals: list[Signal] = Field(default_factory=list)
    lines: list[tuple[str, str]] = Field(default_factory=list)  # (source, text) context lines
    log_line: str | None = None
    log_source: str | None = None
    calls: list[str] = Field(default_factory=list)
    limitations: list[str] = Field(default_factory=list)
    injections: list[Any] = Field(default_factory=list)
    layers: PodLayers | None = None  # the pod's lifecycle layers (a Pending workload with a pod-start signal)
    nodes: list[str] = Field(default_factory=list)  # the nodes read (kubectl describe node)
    restarts: list[Restarts] = Field(default_factory=list)  # the kubelet's count of each restarted container


class Input(BaseModel):
    request: DiagnosisRequest


class Output(BaseModel):
    result: DiagnosisResult


@dataclass
class State:
    """The graph's internal state (a dataclass: LangGraph builds one for every node it runs, and nothing here needs
    validating again: the request was validated once as the input, every other field is set by the nodes from
    typed results; the output, ``DiagnosisResult``, is a validated model)."""

    request: DiagnosisRequest
    # Step 1: resolution and phase
    selected_id: str | None = None
    status: ToolResult | None = None
    # Step 2/3/4 reads (written by parallel nodes: one key each)
    spec: ToolResult | None = None
    pods: ToolResult | None = None
    history: ToolResult | None = None
    metrics: ToolResult | None = None
    kube: KubeEvidence | None = None
    # findings, added by the nodes
    signals: Added[Signal] = field(default_factory=list)  # status + pods + current history episode
    limitations: Added[Limitation] = field(default_factory=list)
    calls: Added[Call] = field(default_factory=list)
    past_episodes: list[Episode] = field(default_factory=list)
    # the current failure's events as each source holds them (its history episode, the status's recent events), to
    # count its distinct kills
    current_marks: list[list[Mark]] = field(default_factory=list)
    current_episode_end: str | None = None
    # a Pending/Running phase rule that could not be decided from status alone because events were null
    # (Step 1.6: a fetch failure, not "no events"): decided again once history and pods are in
    deferred_phase: str | None = None
    # the end: a stop (route / needs_input) or a verdict
    stop: Stop | None = None
    verdict: Verdict | None = None
    recurrence: Recurrence | None = None
    result: DiagnosisResult | None = None

    @property
    def workload(self):
        """The workload as Run:ai reported it (None before a usable status was read)."""
        return self.status.data.workload if self.status is not None and self.status.ok else None
