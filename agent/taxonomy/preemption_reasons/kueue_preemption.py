"""Kueue evicted the Workload to admit another (its ``Preempted`` condition or event names why)."""
from __future__ import annotations

import re

from workload_diagnose.agent.taxonomy.preemption_record import (PreemptionContext, PreemptionReason, PreemptionRule,
    checkpoint)

# Kueue's reasons and the words its message uses for each (kubernetes-sigs/kueue,
# pkg/scheduler/preemption/preemption.go: HumanReadablePreemptionReasons)
KUEUE_REASONS = {"inclusterqueue": "InClusterQueue", "incohortreclamation": "InCohortReclamation",
                 "incohortfairsharing": "InCohortFairSharing",
                 "incohortreclaimwhileborrowing": "InCohortReclaimWhileBorrowing"}
_WORDS = ((r"reclamation within the cohort while borrowing", "InCohortReclaimWhileBorrowing"),
          (r"prioritization in the ClusterQueue", "InClusterQueue"),
          (r"reclamation within the cohort", "InCohortReclamation"),
          (r"fair sharing within the cohort", "InCohortFairSharing"))
MEANING = {
    "InClusterQueue": "a higher-priority workload of the same ClusterQueue needed the quota",
    "InCohortReclamation": "another ClusterQueue of the cohort reclaimed its nominal quota, which this one was "
                           "borrowing",
    "InCohortFairSharing": "fair sharing rebalanced the cohort's unused quota towards another ClusterQueue",
    "InCohortReclaimWhileBorrowing": "another ClusterQueue, itself borrowing, reclaimed quota within the cohort",
}


def _detail(reason: str, message: str) -> str | None:
    if reason in KUEUE_REASONS:
        return KUEUE_REASONS[reason]
    for words, name in _WORDS:
        if re.search(words, message, re.IGNORECASE):
            return name
    return None


RULES = (
    # The Preempted condition's reason (Kueue sets it on the Workload)
    PreemptionRule("kueue.condition_reason", reasons=frozenset(KUEUE_REASONS), detail=_detail,
                   true=(("InCohortReclamation", "Preempted to accommodate a workload (UID: 5c1d, JobUID: UNKNOWN) "
                                                 "due to reclamation within the cohort"),
                         ("InClusterQueue", "")),
                   false=(("Preempted", "Pod ns/p was preempted by higher priority workload ns/x"),
                          ("Evicted", "Preempted to accommodate a workload"))),
    # Kueue's Preempted event / Evicted condition message (reason "Preempted")
    PreemptionRule("kueue.message", message=r"\bpreempted to accommodate a workload\b", detail=_detail,
                   true=(("Preempted", "Preempted to accommodate a workload (UID: 1b0c, JobUID: 9e2f) due to "
                                       "prioritization in the ClusterQueue"),
                         ("Evicted", "Preempted to accommodate a workload (UID: 1b0c, JobUID: UNKNOWN) due to Fair "
                                     "Sharing within the cohort; preemptor path: /root/a; preemptee path: /root/b")),
                   false=(("Evict", "Pod ns/p was preempted by workload ns/x."),
                          ("Preempted", "Workload was preempted by a higher-priority workload"))),
)


def recommend(c: PreemptionContext) -> list[str]:
    why = MEANING.get(c.detail or "", "Kueue did not say which preemption policy applied")
    out = [f"Kueue preempted the Workload ({c.detail or 'reason not stated'}): {why}."]
    if c.detail in ("InCohortReclamation", "InCohortReclaimWhileBorrowing", "InCohortFairSharing"):
        out.append("It ran on quota borrowed from the cohort: to keep it, run it within its ClusterQueue's nominal "
                   "quota, or ask the platform team to raise that quota or the cohort's borrowing limits.")
    elif c.detail == "InClusterQueue":
        out.append("Within its ClusterQueue, a higher WorkloadPriorityClass wins: ask the platform team whether this "
                   "workload should have a higher priority class.")
    out.append(checkpoint(c))
    return out


REASON = PreemptionReason(
    "KUEUE_PREEMPTION", 10, "Kueue evicted the Workload to admit another workload", "platform", recommend,
    rules=RULES)
