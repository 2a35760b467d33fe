"""The record types of the health snapshot's taxonomy: which workload of a scope needs attention (an attention
rule) and what the whole scope's state is (a health state). One :class:`AttentionRule` per module under
``agent/taxonomy/attention_rules/``, collected by ``agent.taxonomy.attention_registry``; the states are
``agent/taxonomy/health_states.py``.

A rule is data: the phases it applies to, the signal kinds the listed workload's own fields must (or must not)
show (read by the taxonomy's signal rules, ``agent.evidence.rules``), how recent or how old its phase must be, the
idle-GPU figure Run:ai computed from its metrics, and, when the listing alone cannot tell, the procedure whose
verdict confirms it (with the count that verdict must reach). Each carries true and false samples (a listed
workload as Run:ai's ``GET /api/v1/workloads`` returns it, and the clock): the tests run them through the
interpreter (``agent.evidence.attention``).

Nothing here knows a rule's name.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from workload_diagnose.agent.model.signals import Kind

SEVERITIES = ("failing", "attention")  # failing: a workload fails now or failed in the lookback
OWNERS = ("researcher", "project-admin", "platform")


@dataclass(frozen=True)
class Sample:
    """A listed workload (compact: the fields the rule reads), the clock, and (for a rule a verdict confirms) the
    count that verdict gave."""

    workload: dict
    now: str
    count: int | None = None


@dataclass(frozen=True)
class AttentionRule:
    name: str
    precedence: int  # a workload is one item: the first rule (lowest precedence) that holds
    summary: str
    severity: str
    owner: str
    phases: frozenset[str]  # the listed phase, lower case (``agent.model.phases`` spellings)
    kinds: frozenset[Kind] = frozenset()  # the listed fields show at least one of these (empty: no condition)
    unless_kinds: frozenset[Kind] = frozenset()  # … and none of these
    in_lookback: bool = False  # its phase changed inside the lookback
    min_age: timedelta | None = None  # its phase has not changed for at least this long
    idle_above: float | None = None  # Run:ai's idleAllocatedGpus is above this
    answered_by: str | None = None  # the registered procedure that answers it (its command is the next action)
    intent: str = "terminal"  # the failed-workload procedure's intent for it
    diagnose: bool = False  # the procedure is run on it (bounded): its verdict is quoted, never assumed
    min_count: int | None = None  # with ``diagnose``: the count the verdict must reach, else the rule does not hold
    action: str = ""  # what the owner does when no procedure answers it
    true: tuple[Sample, ...] = ()
    false: tuple[Sample, ...] = ()

    def __post_init__(self) -> None:
        if self.severity not in SEVERITIES or self.owner not in OWNERS:
            raise ValueError(f"attention rule {self.name}: unknown severity or owner")
        if self.min_count is not None and not self.diagnose:
            raise ValueError(f"attention rule {self.name}: a count needs a verdict (diagnose)")
        if not (self.answered_by or self.action):
            raise ValueError(f"attention rule {self.name}: no procedure answers it and it names no action")
        if not self.true or not self.false:
            raise ValueError(f"attention rule {self.name}: true and false samples are required")


@dataclass(frozen=True)
class HealthState:
    """One overall state: its name, its definition (printed in the docs), and its precedence (the first state
    whose condition holds is the scope's)."""

    name: str
    precedence: int
    definition: str
