"""The record types of the preemption reasons (``preemption_reasons/``, one record per reason; the registry is
``agent.taxonomy.preemption``), the quota facts their rules may require, and the wording helpers their
recommendations share. The interpreter is ``agent.evidence.preemption`` (it scrubs user-chosen names first, as for
the failure categories).

A rule fires on one preemption notice — a (reason, message) pair a system component wrote (the Run:ai scheduler's
``Evict`` event or ``PreemptionByScheduler`` condition, Kueue's ``Preempted`` condition or event) — when the reason
token is one of ``reasons`` or the scrubbed message matches ``message``, and every quota fact it names in ``when``
holds. The facts come from the notice itself (the scheduler's reclaim message states each queue's use, quota and
fair share) or, failing that, from the project's quota read (its state when read: the procedure says so). Reasons
are tried in precedence order; the first rule that fires decides; no rule firing is the fallback (the record
without rules). Sources of every wording: ``docs/reference/runai-projects-nodepools.md``.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Callable

# the quota facts a rule may require (``when``); a fact that cannot be established is absent, never False-by-default
PROJECT_OVER_QUOTA = "project_over_quota"  # the workload's project used more than it deserves (the pool / queue)
RECLAIMER_BELOW_QUOTA = "reclaimer_below_quota"  # the reclaiming queue used less than its deserved quota
RECLAIMER_AT_OR_OVER_QUOTA = "reclaimer_at_or_over_quota"  # ... at or above it: it claimed its fair share of the rest
FACTS = frozenset({PROJECT_OVER_QUOTA, RECLAIMER_BELOW_QUOTA, RECLAIMER_AT_OR_OVER_QUOTA})

OWNERS = ("researcher", "project admin", "platform")

# the scheduler's reclaim wording ("Pod <ns>/<pod> was preempted by workload <ns>/<name>.": another queue took
# resources back), which both reclaim reasons start from
RECLAIM_MESSAGE = r"\bpreempted by workload\b|\breclaim(?:ed|ing)? by\b"


@dataclass(frozen=True)
class PreemptionRule:
    name: str
    reasons: frozenset[str] = frozenset()  # reason tokens, lower case without spaces
    message: str | None = None  # a regular expression over the scrubbed message (case-insensitive)
    when: frozenset[str] = frozenset()  # facts (``FACTS``) that must hold
    # the notice's detail: a fixed string, or a function of the reason token and the scrubbed message
    detail: str | Callable[[str, str], str | None] | None = None
    # samples: (reason, message) or (reason, message, {fact: bool}); a bare string is a message without a reason
    true: tuple = ()
    false: tuple = ()

    @property
    def rx(self) -> re.Pattern | None:
        return _compiled(self.message) if self.message else None


@dataclass(frozen=True)
class Pool:
    """One node pool of the workload's project as the recommendation words it (figures None when not read)."""

    name: str | None
    deserved: float | None
    allocated: float | None
    allocated_non_preemptible: float | None
    limit: float | None
    over_quota_weight: float | None


@dataclass(frozen=True)
class PreemptionContext:
    """What a reason's recommendation may quote: only facts read (None / empty when not read)."""

    project: str | None
    requested_gpus: float | None  # the workload's GPU request (devices per pod × pods), when reported
    preemptible: bool | None
    priority_class: str | None
    terminate_after_preemption: bool | None
    pool: Pool | None  # the node pool it ran in (or the project's only pool)
    other_pools: tuple[Pool, ...] = ()  # the project's other pools with deserved GPUs it does not use
    preemptors: tuple[str, ...] = ()  # "<namespace>/<name>" as the notices name them
    detail: str | None = None  # the deciding notice's detail (Kueue's reason)
    count: int = 1
    lookback: str = ""


@dataclass(frozen=True)
class PreemptionReason:
    name: str
    precedence: int  # the order the reasons are tried in: lower first
    summary: str  # the definition, as the report states it
    owner: str  # who acts on it: one of ``OWNERS``
    recommend: Callable[[PreemptionContext], list[str]]
    rules: tuple[PreemptionRule, ...] = ()

    @property
    def rests_on_quota(self) -> bool:
        """Its rules need quota facts (the queues' figures, or the project's quota as read)."""
        return any(r.when for r in self.rules)


def as_sample(s) -> tuple[str | None, str | None, dict]:
    if isinstance(s, str):
        return None, s, {}
    return (s[0], s[1], s[2]) if len(s) == 3 else (s[0], s[1], {})


@functools.cache
def _compiled(p: str) -> re.Pattern:
    return re.compile(p, re.IGNORECASE)


# ------------------------------------------------------------------------------------------------ wording helpers
def gpus(n: float | None) -> str:
    """A GPU figure as read ("8", "0.5"), or "not reported"."""
    if n is None:
        return "not reported"
    return f"{n:g}"


def quota_line(ctx: PreemptionContext) -> str | None:
    """'project ml-team deserves 8 GPUs in node pool a100 and had 12 allocated (4 non-preemptible)', or None."""
    p = ctx.pool
    if p is None or ctx.project is None:
        return None
    where = f" in node pool {p.name}" if p.name else ""
    nonp = (f" ({gpus(p.allocated_non_preemptible)} non-preemptible)" if p.allocated_non_preemptible is not None
            else "")
    return (f"project {ctx.project} deserves {gpus(p.deserved)} GPUs{where} and has {gpus(p.allocated)} allocated"
            f"{nonp}")


def within_quota(ctx: PreemptionContext) -> str:
    """The "run within the deserved quota as non-preemptible" advice, with the figures (as read) that bound it."""
    p = ctx.pool
    ask = f"; it requests {gpus(ctx.requested_gpus)} GPUs" if ctx.requested_gpus is not None else ""
    if p is None or p.deserved is None or p.allocated_non_preemptible is None:
        return ("Submit it as non-preemptible to run within the project's deserved quota, where the scheduler does "
                f"not preempt it{ask}; the project's deserved and non-preemptible GPU figures were not read.")
    where = f" in node pool {p.name}" if p.name else ""
    fits = ""
    if ctx.requested_gpus is not None:
        fits = (" — it fits" if p.allocated_non_preemptible + ctx.requested_gpus <= p.deserved
                else " — it does not fit beside them today")
    return (f"Submit it as non-preemptible to run within the project's deserved quota, where the scheduler does not "
            f"preempt it: the project deserves {gpus(p.deserved)} GPUs{where} and non-preemptible workloads hold "
            f"{gpus(p.allocated_non_preemptible)} of them{ask}{fits}.")


def checkpoint(ctx: PreemptionContext) -> str:
    if ctx.terminate_after_preemption is True:
        return ("terminateAfterPreemption is true: a preemption ends the workload instead of requeueing it. Set it "
                "to false and checkpoint so a preempted run resumes from its last checkpoint.")
    if ctx.terminate_after_preemption is False:
        return ("terminateAfterPreemption is false: the scheduler requeues it after a preemption; checkpoint "
                "regularly and resume from the last checkpoint so a preemption costs only the work since then.")
    return ("Checkpoint regularly and resume from the last checkpoint, so a preemption costs only the work since "
            "then (whether it is requeued or terminated after a preemption, terminateAfterPreemption, was not "
            "read).")


def other_pool(ctx: PreemptionContext) -> str | None:
    free = [p for p in ctx.other_pools if p.deserved is not None and p.allocated is not None]
    if not free:
        return None
    best = max(free, key=lambda p: (p.deserved or 0) - (p.allocated or 0))
    return (f"Node pool {best.name}: the project deserves {gpus(best.deserved)} GPUs there and has "
            f"{gpus(best.allocated)} allocated; submitting to it (nodePools) keeps the workload within quota.")
