"""The root-cause taxonomy: ONE place to read or add a category.

Order in ``CATEGORIES`` is the skill's precedence ("apply the strongest direct signal"): the first category whose
signal kinds are present wins; UNKNOWN is last and has no signals. Each entry carries everything the category
implies: its recommendation, whether it needs metrics, why it needs Tier 2 evidence, which submitted-spec lines
corroborate it, and the limitations it must state. To add a category: add a signal ``Kind`` in
``agent/model/signals.py`` and the rule that emits it in ``agent/evidence/rules.py``, then one entry here (its
recommendation in ``recommendations.py``) and its scenarios.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from agent.model.signals import Kind
from agent.taxonomy import recommendations as r
from agent.taxonomy.recommendations import RecoContext

if TYPE_CHECKING:
    from agent.taxonomy.classifier import Verdict


def _never(v: "Verdict") -> str | None:
    return None


def _no_limits(v: "Verdict", c: RecoContext) -> list[str]:
    return []


@dataclass(frozen=True)
class Category:
    name: str
    kinds: frozenset[Kind]
    summary: str
    recommend: Callable[[RecoContext], list[str]]
    # Step 4: get_workload_metrics is needed (OOM: request/limit/peak); an unexplained 137 needs it too
    needs_metrics: bool = False
    # Step 4: why Tier 2 (kubectl) evidence is needed for this verdict, or None
    tier2_reason: Callable[["Verdict"], str | None] = _never
    # submitted-spec lines (by prefix) that corroborate this category in the report
    spec_lines: tuple[str, ...] = ()
    # limitations the report must state for this verdict
    limitations: Callable[["Verdict", RecoContext], list[str]] = field(default=_no_limits)
    # preemption evidence excludes this category (it is routed out instead)
    excluded_by_preemption: bool = False


def _pull_tier2(v: "Verdict") -> str | None:
    if all(s.detail in (None, "unspecified") for s in v.supporting):
        return "the registry error text"
    return None


def _crash_limits(v: "Verdict", c: RecoContext) -> list[str]:
    if c.log_line:
        return []
    return ["The failing log line is not available (needs kubectl logs --previous with Tier 2 access); no log "
            "line is quoted."]


def _unknown_tier2(v: "Verdict") -> str:
    return "exit 137 is unexplained" if v.unresolved_137 else "Tier 1 evidence gives no category"


def _unknown_limits(v: "Verdict", c: RecoContext) -> list[str]:
    out = []
    if v.unresolved_137:
        out.append("Exit 137 (SIGKILL) was observed without OOMKilled: it stays unexplained — neither history, pod "
                   "events nor node conditions identified the cause, so it is not classified as OOM.")
    if v.sigterm:
        out.append("Exit 143 (SIGTERM) means the system stopped the container, but no eviction, policy or stop "
                   "evidence names why.")
    return out


CATEGORIES: list[Category] = [
    Category("OOM_KILLED", frozenset({Kind.OOM}), "killed by the out-of-memory killer", r.oom, needs_metrics=True),
    Category("IMAGE_PULL_FAILED", frozenset({Kind.IMAGE_PULL}), "the container image could not be pulled",
             r.image_pull, tier2_reason=_pull_tier2, spec_lines=("Submitted image",)),
    Category("INIT_FAILED", frozenset({Kind.INIT_FAILED}), "an init container exited non-zero", r.init,
             tier2_reason=lambda v: "the init container's state and logs"),
    Category("DATASOURCE_MOUNT_FAILED", frozenset({Kind.MOUNT_FAILED}), "a volume / data source failed to mount",
             r.mount, spec_lines=("Submitted mounts",)),
    Category("CRASH_APP_ERROR", frozenset({Kind.APP_EXIT}), "the main container exited non-zero", r.crash,
             tier2_reason=lambda v: "the failing log line: kubectl logs --previous",
             spec_lines=("Submitted image", "Submitted command", "Restart policy"), limitations=_crash_limits),
    Category("NODE_FAILURE", frozenset({Kind.NODE_FAILURE}), "the node failed or evicted the pod", r.node,
             tier2_reason=lambda v: "kubectl describe node for the NODE_FAILURE evidence",
             spec_lines=("Restart policy",), excluded_by_preemption=True),
    Category("SCHEDULING_POLICY_TERMINATED", frozenset({Kind.POLICY_STOP}),
             "terminated by a scheduling, idle, duration or manual-stop policy", r.policy),
    Category("UNKNOWN", frozenset(), "no supported category", r.unknown, tier2_reason=_unknown_tier2,
             limitations=_unknown_limits),
]
BY_NAME = {c.name: c for c in CATEGORIES}
NAMES = [c.name for c in CATEGORIES]
UNKNOWN = BY_NAME["UNKNOWN"]


def metrics_needed_by(kinds: set[Kind]) -> bool:
    """Whether evidence of a category that needs metrics (OOM) is already present (Step 4 may start early)."""
    return any(c.needs_metrics and c.kinds & kinds for c in CATEGORIES)
