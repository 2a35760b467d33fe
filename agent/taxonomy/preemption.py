"""Why a workload was preempted: the fixed set of preemption reasons, defined once (``preemption_reasons/``, one
module per reason defining ``REASON``, a :class:`preemption_record.PreemptionReason` with its rules as data, their
samples, its owner and its recommendation). This registry collects them in precedence order; the last, without
rules, is the fallback. Adding a reason is adding a module (and its scenarios); nothing here names one.
"""
from __future__ import annotations

import importlib
import pkgutil

import workload_diagnose.agent.taxonomy.preemption_reasons as _reasons_pkg
from workload_diagnose.agent.taxonomy.preemption_record import (FACTS, OWNERS, PROJECT_OVER_QUOTA,  # noqa: F401
                                                                RECLAIMER_AT_OR_OVER_QUOTA, RECLAIMER_BELOW_QUOTA,
                                                                Pool, PreemptionContext, PreemptionReason,
                                                                PreemptionRule, as_sample, gpus)

__all__ = ["REASONS", "BY_NAME", "FALLBACK", "NAMES", "PreemptionReason", "PreemptionRule", "PreemptionContext",
           "Pool", "as_sample", "gpus", "FACTS", "PROJECT_OVER_QUOTA", "RECLAIMER_BELOW_QUOTA",
           "RECLAIMER_AT_OR_OVER_QUOTA"]


def _load() -> list[PreemptionReason]:
    return [importlib.import_module(f"{_reasons_pkg.__name__}.{m.name}").REASON
            for m in sorted(pkgutil.iter_modules(_reasons_pkg.__path__), key=lambda m: m.name)]


REASONS: list[PreemptionReason] = sorted(_load(), key=lambda r: r.precedence)
BY_NAME: dict[str, PreemptionReason] = {r.name: r for r in REASONS}
FALLBACK: PreemptionReason = REASONS[-1]
NAMES: list[str] = [r.name for r in REASONS]


def _check() -> None:
    if len(BY_NAME) != len(REASONS) or len({r.precedence for r in REASONS}) != len(REASONS):
        raise ValueError("preemption reasons: names and precedences must be unique")
    if FALLBACK.rules or any(not r.rules for r in REASONS[:-1]):
        raise ValueError("preemption reasons: exactly one reason (the last) has no rules")
    for r in REASONS:
        if r.owner not in OWNERS:
            raise ValueError(f"preemption reason {r.name}: owner {r.owner!r} is not one of {OWNERS}")
        for rule in r.rules:
            if not rule.when <= FACTS:
                raise ValueError(f"preemption rule {rule.name}: unknown facts {sorted(rule.when - FACTS)}")


_check()


