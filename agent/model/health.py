"""The public result of ``workload-diagnose health``: what is happening in a project (or department) on one
cluster, and which workload needs attention. It shares the ``failed --json`` core fields (``outcome``, ``evidence``,
``recommendations``, ``limitations``, ``question``, ``report``, ``ignored_instructions``, ``tool_calls``, ``route``;
``scope`` stands where ``workload`` does: a snapshot is about a scope, not one workload) and adds its own:

* ``state``: the overall state (``agent/taxonomy/health_states.py``: HEALTHY, NEEDS_ATTENTION, DEGRADED, UNDETERMINED);
* ``counts``: the listed workloads by phase (absent when the listing could not be read);
* ``attention``: the workloads an attention rule (``agent/taxonomy/attention_rules``) picks, each with its owner,
  the figures quoted, the read it comes from, the verdict of the procedure that answered it (when one was run) and
  the next action (the exact command of the procedure that answers it);
* ``failures``: the failed-workload procedure's categories over the failures it diagnosed;
* ``quota``: the project's GPU quota per node pool (deserved vs allocated), as read.

A part whose read failed is null (or empty) and a limitation says why, never filled in. Field names and meanings
are a stable contract.
"""
from __future__ import annotations

from pydantic import BaseModel, Field

from workload_diagnose.agent.model.lines import EvidenceLine, ToolCall

__all__ = ["ScopeOut", "Verdict", "AttentionItem", "FailuresOut", "PoolUse", "ScopeQuota", "HealthResult"]


class ScopeOut(BaseModel):
    cluster_id: str | None = None
    project: str | None = None
    department: str | None = None


class Verdict(BaseModel):
    """What the procedure that answered one item said (its own ``--json`` fields, as it gave them)."""

    procedure: str  # the registry name of the procedure that was run
    outcome: str
    category: str | None = None  # the failed-workload category, when that procedure diagnosed one
    reason: str | None = None  # the preempted procedure's reason
    route: str | None = None
    preemptions: int | None = None  # preemptions in the lookback, as the preempted procedure counted them
    headline: str  # its report's first line


class AttentionItem(BaseModel):
    rule: str  # the attention rule (agent/taxonomy/attention_rules)
    severity: str  # failing | attention
    owner: str
    workload_id: str
    workload_name: str | None = None
    project: str | None = None
    phase: str | None = None
    since: str | None = None  # the phase's last update, as listed
    figures: list[str] = Field(default_factory=list)  # the figures that matched the rule, quoted as listed
    source: str  # the read the item comes from
    verdict: Verdict | None = None  # the answering procedure's verdict (None: not run, or it could not finish)
    not_diagnosed: str | None = None  # why it has no verdict when its rule has one run
    next: str  # the next action: the exact command line that answers it, or what its owner does


class FailuresOut(BaseModel):
    """The failed-workload procedure's answers over the failures it diagnosed (``by_category`` most first)."""

    diagnosed: int
    by_category: dict[str, int] = Field(default_factory=dict)
    routed: dict[str, int] = Field(default_factory=dict)  # what it answered instead of a category, by route


class PoolUse(BaseModel):
    node_pool: str | None = None
    deserved_gpus: float | None = None
    limit_gpus: float | None = None  # -1: no limit
    allocated_gpus: float | None = None
    allocated_non_preemptible_gpus: float | None = None
    over_quota: bool | None = None  # allocated above deserved (None: a figure is missing)


class ScopeQuota(BaseModel):
    project: str
    node_pools: list[PoolUse] = Field(default_factory=list)


class HealthResult(BaseModel):
    """The public result. Field names and meanings are a stable contract (``workload-diagnose health --json``)."""

    outcome: str  # diagnosed | needs_input
    state: str | None = None  # HEALTHY | NEEDS_ATTENTION | DEGRADED | UNDETERMINED (when diagnosed)
    route: str | None = None
    workload: None = None  # the shared core field: a snapshot is about a scope, never one workload (always null)
    scope: ScopeOut | None = None
    window: dict[str, str] | None = None  # the lookback: since, until
    counts: dict[str, int] | None = None  # listed workloads by phase (None: the listing was not read)
    listed: int | None = None
    attention: list[AttentionItem] = Field(default_factory=list)
    failures: FailuresOut | None = None
    quota: ScopeQuota | None = None
    evidence: list[EvidenceLine] = Field(default_factory=list)
    recommendations: list[str] = Field(default_factory=list)
    limitations: list[str] = Field(default_factory=list)
    question: str | None = None
    ignored_instructions: list[EvidenceLine] = Field(default_factory=list)
    tool_calls: list[ToolCall] = Field(default_factory=list)
    report: str = ""

    @property
    def category(self) -> None:
        """A snapshot has no failure category (what the service's counters read of every result)."""
        return None
