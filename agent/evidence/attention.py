"""A listed workload → the attention rules that hold for it: the interpreter of the health taxonomy's records
(``agent.taxonomy.attention_registry``). Pure functions; no I/O.

Only the workload's own system-written fields are read for signal kinds (``phaseReason``/``phaseMessage``,
``k8sPhase``, each condition's reason and message), through the taxonomy's signal rules with the workload's own
names scrubbed out (``agent.evidence.rules``): a workload named ``crashloopbackoff-repro`` is not crash-looping.
Times come from ``phaseUpdatedAt``; a time that cannot be placed matches no rule that needs one.
"""
from __future__ import annotations

from datetime import datetime
from typing import Any

from workload_diagnose.agent.evidence.rules import kinds_from_reason_message
from workload_diagnose.agent.model import phases
from workload_diagnose.agent.model.signals import Kind
from workload_diagnose.agent.model.time import parse_time, timestamp_problem
from workload_diagnose.agent.taxonomy.attention_record import AttentionRule
from workload_diagnose.agent.taxonomy.attention_registry import RULES

__all__ = ["listed_kinds", "idle_gpus", "holds", "candidates", "confirmed"]


def _names(w: Any) -> list[str]:
    return [x for x in (w.name, w.projectName, w.namespace) if x]


def listed_kinds(w: Any) -> set[Kind]:
    """The signal kinds the listed workload's own status fields show."""
    names = _names(w)
    kinds: set[Kind] = set()
    pairs = [(w.phaseReason, w.phaseMessage), (w.k8sPhase, None)]
    for c in w.conditions:
        if (c.status or "").lower() == "true" and (c.type or "").lower() in {"ready", "available", "running",
                                                                             "initialized", "podscheduled"}:
            continue  # a healthy condition carries no signal
        pairs.append((c.reason, c.message))
    for reason, message in pairs:
        if reason or message:
            kinds |= {k for k, _, _ in kinds_from_reason_message(reason, message, names)}
    return kinds


def idle_gpus(w: Any) -> float | None:
    """Run:ai's ``idleAllocatedGpus`` as listed: a plain non-negative number, else None (not reported)."""
    v = (w.model_extra or {}).get("idleAllocatedGpus")
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v != v or v < 0:
        return None
    return float(v)


def _when(w: Any, now: datetime) -> datetime | None:
    if not w.phaseUpdatedAt or timestamp_problem(w.phaseUpdatedAt, now):
        return None
    return parse_time(w.phaseUpdatedAt)


def holds(rule: AttentionRule, w: Any, now: datetime, cutoff: datetime, kinds: set[Kind] | None = None) -> bool:
    """Whether the listing part of ``rule`` holds for the listed workload ``w`` (a rule that needs a verdict's
    count is then only a candidate: ``confirmed``)."""
    if phases.norm(w.phase) not in rule.phases:
        return False
    if rule.kinds or rule.unless_kinds:
        kinds = listed_kinds(w) if kinds is None else kinds
        if rule.kinds and not kinds & rule.kinds:
            return False
        if kinds & rule.unless_kinds:
            return False
    if rule.in_lookback or rule.min_age is not None:
        at = _when(w, now)
        if at is None:
            return False
        if rule.in_lookback and at < cutoff:
            return False
        if rule.min_age is not None and now - at < rule.min_age:
            return False
    if rule.idle_above is not None:
        idle = idle_gpus(w)
        if idle is None or idle <= rule.idle_above:
            return False
    return True


def candidates(w: Any, now: datetime, cutoff: datetime) -> list[AttentionRule]:
    """Every rule whose listing part holds for ``w``, in precedence order."""
    kinds = listed_kinds(w)
    return [r for r in RULES if holds(r, w, now, cutoff, kinds)]


def confirmed(rule: AttentionRule, count: int | None) -> bool:
    """Whether a verdict's count confirms ``rule`` (a rule without a count needs none)."""
    if rule.min_count is None:
        return True
    return count is not None and count >= rule.min_count
