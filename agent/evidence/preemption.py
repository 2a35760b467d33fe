"""Preemption notices → a preemption reason: the interpreter of the taxonomy's preemption-reason records
(``agent.taxonomy.preemption``). Pure functions; no I/O.

A notice is matched like every system message (``agent.evidence.rules``): user-chosen names are scrubbed out first,
so a workload or a preemptor named ``higher-priority-x`` cannot steer the reason. The quota facts come from the
notice when the scheduler wrote the queues' figures into it (its reclaim message: "<queue> uses <GPU: 12, ...>
with a quota of <GPU: 8, ...>, fair-share of <GPU: 10, ...> and queue priority of <100>.", the preempted workload's
queue first), else from the project's quota as read (``project_over_quota``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

from workload_diagnose.agent.evidence.rules import scrub
from workload_diagnose.agent.taxonomy.preemption import (FALLBACK, PROJECT_OVER_QUOTA, REASONS,
                                                         RECLAIMER_AT_OR_OVER_QUOTA, RECLAIMER_BELOW_QUOTA,
                                                         PreemptionReason, PreemptionRule)

__all__ = ["QueueFigures", "NoticeReason", "queue_figures", "facts_from_figures", "neutral", "rule_fires",
           "classify_notice", "preemptor_of"]

_QUEUE = re.compile(r"(?P<queue>[A-Za-z0-9][\w.-]{0,80}) uses <GPU: (?P<used>\d+(?:\.\d+)?)[^>]{0,200}> with a quota "
                    r"of <GPU: (?P<quota>\d+(?:\.\d+)?)[^>]{0,200}>, fair-share of <GPU: (?P<fair>\d+(?:\.\d+)?)"
                    r"[^>]{0,200}> and queue priority of <(?P<prio>-?\d+)>")
# "preempted by [higher priority] workload <namespace>/<name>" (the scheduler's preempt and reclaim messages)
_PREEMPTOR = re.compile(r"\bpreempted by (?:higher priority )?workload (?P<ns>[a-z0-9][a-z0-9.-]{0,62})/"
                        r"(?P<name>[a-z0-9][a-z0-9.-]{0,252}?)\.?(?=\s|$)")


@dataclass(frozen=True)
class QueueFigures:
    """One queue's GPU figures as the scheduler's reclaim message states them."""

    queue: str
    used: float
    quota: float
    fair_share: float
    priority: int


@dataclass(frozen=True)
class NoticeReason:
    reason: PreemptionReason
    rule: str | None  # the rule that decided (None: the fallback)
    detail: str | None = None


def queue_figures(message: str | None) -> list[QueueFigures]:
    """The queues' figures in a reclaim message, in the order written (the preempted workload's queue first)."""
    return [QueueFigures(m.group("queue"), float(m.group("used")), float(m.group("quota")), float(m.group("fair")),
                         int(m.group("prio"))) for m in _QUEUE.finditer(message or "")]


def facts_from_figures(figures: list[QueueFigures]) -> dict[str, bool]:
    """The quota facts two queues' figures establish (nothing from fewer: a fact is never guessed)."""
    if len(figures) < 2:
        return {}
    mine, theirs = figures[0], figures[1]
    return {PROJECT_OVER_QUOTA: mine.used > mine.quota, RECLAIMER_BELOW_QUOTA: theirs.used < theirs.quota,
            RECLAIMER_AT_OR_OVER_QUOTA: theirs.used >= theirs.quota}


def preemptor_of(message: str | None) -> tuple[str, str] | None:
    """(namespace, name) of the workload the message says preempted this one, when it names one."""
    m = _PREEMPTOR.search(message or "")
    return (m.group("ns"), m.group("name")) if m else None


def _token(reason: str | None) -> str:
    return (reason or "").strip().lower().replace(" ", "")


def neutral(message: str | None, names: Iterable[str] = ()) -> str:
    """The message as the rules read it: the preempting workload's ``<namespace>/<name>`` and the queues' names
    (user-chosen: a workload named ``bin-packing-7`` or a project named ``higher-priority``) replaced, then the
    workload's own names scrubbed (``agent.evidence.rules.scrub``)."""
    text = _PREEMPTOR.sub(lambda m: m.group(0).replace(f"{m.group('ns')}/{m.group('name')}", "<name>"),
                          message or "")
    text = _QUEUE.sub(lambda m: m.group(0).replace(m.group("queue"), "<queue>", 1), text)
    return scrub(text, names)


def rule_fires(rule: PreemptionRule, reason: str | None, message: str | None, facts: dict[str, bool],
               names: Iterable[str] = ()) -> bool:
    msg = neutral(message, names)
    text_ok = _token(reason) in rule.reasons or (rule.rx is not None and bool(rule.rx.search(msg)))
    return text_ok and all(facts.get(f) is True for f in rule.when)


def classify_notice(reason: str | None, message: str | None, facts: dict[str, bool],
                    names: Iterable[str] = ()) -> NoticeReason:
    """The first reason (in precedence order) one of whose rules fires on this notice, else the fallback."""
    names = list(names)
    for rec in REASONS:
        for rule in rec.rules:
            if rule_fires(rule, reason, message, facts, names):
                d = rule.detail
                detail = d(_token(reason), neutral(message, names)) if callable(d) else d
                return NoticeReason(reason=rec, rule=rule.name, detail=detail)
    return NoticeReason(reason=FALLBACK, rule=None)
