"""System messages → pending reasons: the interpreter of the pending-reason rule records
(``agent.taxonomy.pending_registry``). Pure functions; no I/O.

The same discipline as the failure signals (``agent.evidence.rules``): only messages written by a system component
(a scheduler, Kueue, the Run:ai control plane) are matched, quoted segments and user-chosen names are scrubbed
first, so a workload named ``quota-exhausted-gang`` cannot steer the verdict.
"""
from __future__ import annotations

from typing import Iterable

from workload_diagnose.agent.evidence.rules import from_system, scrub
from workload_diagnose.agent.taxonomy.pending_record import PendingReason, WaitRule
from workload_diagnose.agent.taxonomy.pending_registry import REASONS

__all__ = ["wait_reasons", "strongest"]


def _fires(rule: WaitRule, r: str, msg: str, both: str) -> bool:
    if rule.unless_rx is not None and rule.unless_rx.search(msg):
        return False
    if r in rule.reasons:
        return True
    if rule.rx is not None and rule.rx.search(both if rule.on_reason_too else msg):
        return True
    if rule.reason_with is not None:
        return r in rule.reason_with[0] and bool(rule.with_rx.search(msg))
    return False


def wait_reasons(reason: str | None, message: str | None, names: Iterable[str], *,
                 emitter: str | None = None) -> list[tuple[PendingReason, WaitRule]]:
    """Every pending reason one (reason, message) pair shows, in precedence order, with the rule that fired.

    ``emitter``: the component that wrote it (an event's ``source``); a message from anything but a system
    component shows nothing."""
    if not from_system(emitter):
        return []
    r = (reason or "").strip().lower().replace(" ", "")
    msg = scrub(message, names)
    both = f"{reason or ''} {msg}"
    out = []
    for rec in REASONS:
        rule = next((x for x in rec.rules if _fires(x, r, msg, both)), None)
        if rule is not None:
            out.append((rec, rule))
    return out


def strongest(found: Iterable[PendingReason]) -> PendingReason | None:
    """The reason that decides when several are shown: the lowest precedence."""
    return min(found, key=lambda r: r.precedence, default=None)
