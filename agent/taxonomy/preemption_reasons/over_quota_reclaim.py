"""The workload ran on GPUs above its project's deserved quota; another project reclaimed the GPUs it deserves."""
from __future__ import annotations

from workload_diagnose.agent.taxonomy.preemption_record import (PROJECT_OVER_QUOTA, RECLAIM_MESSAGE,
    RECLAIMER_BELOW_QUOTA, PreemptionContext, PreemptionReason, PreemptionRule, checkpoint, gpus, other_pool,
    within_quota)

RULES = (
    # NVIDIA/KAI-Scheduler GetReclaimMessage with queue details: the reclaiming queue was below its quota
    PreemptionRule("over_quota.reclaimer_below_quota", message=RECLAIM_MESSAGE, when=frozenset({RECLAIMER_BELOW_QUOTA}),
                   true=(("Evict", "Pod ns/p was preempted by workload ns/x. a uses <GPU: 12> with a quota of <GPU: 8>"
                                   ", fair-share of <GPU: 8> and queue priority of <100>. b uses <GPU: 2> with a "
                                   "quota of <GPU: 8>, fair-share of <GPU: 8> and queue priority of <100>.",
                          {RECLAIMER_BELOW_QUOTA: True, PROJECT_OVER_QUOTA: True}),),
                   false=(("Evict", "Pod ns/p was preempted by workload ns/x.", {}),)),
    # a reclaim without the queues' figures: the workload's project was above its deserved quota in the pool
    # (Run:ai docs, "Over Quota, Fairness and Preemption": an over-quota project is preempted back to its quota)
    PreemptionRule("over_quota.project_over_quota", message=RECLAIM_MESSAGE, when=frozenset({PROJECT_OVER_QUOTA}),
                   true=(("Evict", "Pod ns/p was preempted by workload ns/x.", {PROJECT_OVER_QUOTA: True}),
                         ("Preempted", "Pod was preempted by workload x", {PROJECT_OVER_QUOTA: True})),
                   false=(("Evict", "Pod ns/p was preempted by workload ns/x.", {PROJECT_OVER_QUOTA: False}),
                          ("Evict", "Pod ns/p was preempted by higher priority workload ns/x",
                           {PROJECT_OVER_QUOTA: True}))),
)


def recommend(c: PreemptionContext) -> list[str]:
    p = c.pool
    out = ["It ran on over-quota GPUs, which the scheduler lends while they are free and takes back when another "
           "project needs its deserved quota."]
    out.append(within_quota(c))
    if p is not None and p.deserved is not None and p.allocated is not None:
        out.append(f"Quota request (project admin): the project has {gpus(p.allocated)} GPUs allocated"
                   f"{' in node pool ' + p.name if p.name else ''} against {gpus(p.deserved)} deserved; a deserved "
                   f"quota of {gpus(p.allocated)} would cover that use without borrowing.")
    else:
        out.append("A quota request needs the project's deserved and allocated GPUs per node pool, which were not "
                   "read: ask the project admin for them.")
    alt = other_pool(c)
    if alt:
        out.append(alt)
    out.append(checkpoint(c))
    return out


REASON = PreemptionReason(
    "OVER_QUOTA_RECLAIM", 50, "another project reclaimed the over-quota GPUs this workload ran on", "project admin",
    recommend, rules=RULES)
