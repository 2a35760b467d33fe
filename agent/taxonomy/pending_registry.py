"""The pending-reason registry: every module under ``pending_reasons/`` in precedence order, and what derives from
them (names, the fallback, the rules in matching order). Adding a reason is adding a module; nothing here names one.
"""
from __future__ import annotations

import importlib
import pkgutil

import workload_diagnose.agent.taxonomy.pending_reasons as _pkg
from workload_diagnose.agent.taxonomy.pending_record import FIGURES, OWNERS, PendingReason

__all__ = ["REASONS", "BY_NAME", "NAMES", "UNKNOWN", "reason"]


def _load() -> list[PendingReason]:
    return [importlib.import_module(f"{_pkg.__name__}.{m.name}").REASON
            for m in sorted(pkgutil.iter_modules(_pkg.__path__), key=lambda m: m.name)]


REASONS: list[PendingReason] = sorted(_load(), key=lambda r: r.precedence)
BY_NAME: dict[str, PendingReason] = {r.name: r for r in REASONS}
NAMES: list[str] = [r.name for r in REASONS]
UNKNOWN: PendingReason = REASONS[-1]  # the fallback: the one reason without rules, last in precedence


def _check() -> None:
    if len(BY_NAME) != len(REASONS) or len({r.precedence for r in REASONS}) != len(REASONS):
        raise ValueError("pending reasons: names and precedences must be unique")
    if UNKNOWN.rules or any(not r.rules for r in REASONS[:-1]):
        raise ValueError("pending reasons: exactly one reason (the last) has no rules")
    for r in REASONS:
        if r.owner not in OWNERS or not r.reads <= set(FIGURES):
            raise ValueError(f"pending reason {r.name}: unknown owner or figure")
    rules = [rule.name for r in REASONS for rule in r.rules]
    if len(rules) != len(set(rules)):
        raise ValueError("pending reasons: rule names must be unique")


_check()


def reason(name: str | None) -> PendingReason:
    """The record of ``name``; the fallback for a name that is not one."""
    return BY_NAME.get(name or "", UNKNOWN)
