"""Another project, itself over its deserved quota, reclaimed its fair share of the over-quota GPUs."""
from __future__ import annotations

from workload_diagnose.agent.taxonomy.preemption_record import (RECLAIM_MESSAGE, RECLAIMER_AT_OR_OVER_QUOTA,
    PreemptionContext, PreemptionReason, PreemptionRule, checkpoint, gpus, quota_line, within_quota)
_DETAILS = ("team-a uses <GPU: 12, CPU: 0 (cores), memory: 0 (GB)> with a quota of <GPU: 8, CPU: 0 (cores), memory: "
            "0 (GB)>, fair-share of <GPU: 10, CPU: 0 (cores), memory: 0 (GB)> and queue priority of <100>.")

RULES = (
    # NVIDIA/KAI-Scheduler GetReclaimMessage + GetReclaimQueueDetailsMessage: the reclaiming queue used at least its
    # quota, so it took its fair share of the over-quota GPUs (the over-quota weight decides the shares)
    PreemptionRule("fair_share.reclaim", message=RECLAIM_MESSAGE, when=frozenset({RECLAIMER_AT_OR_OVER_QUOTA}),
                   true=(("Evict", f"Pod runai-team-a/t-0 was preempted by workload runai-team-b/x. {_DETAILS}",
                          {RECLAIMER_AT_OR_OVER_QUOTA: True}),),
                   false=(("Evict", "Pod ns/p was preempted by workload ns/x.", {}),
                          ("Evict", "Pod ns/p was preempted by higher priority workload ns/x",
                           {RECLAIMER_AT_OR_OVER_QUOTA: True}))),
)


def recommend(c: PreemptionContext) -> list[str]:
    p = c.pool
    weight = (f" (the project's over-quota weight in node pool {p.name}: {gpus(p.over_quota_weight)})"
              if p is not None and p.over_quota_weight is not None else "")
    out = ["The GPUs above deserved quota are shared between projects by over-quota weight: another project "
           "claimed its fair share of them, and this workload ran on that share.",
           within_quota(c),
           f"If the project needs more of the shared GPUs, its administrator can ask for a higher over-quota weight"
           f"{weight} or a larger deserved quota."]
    q = quota_line(c)
    if q:
        out.append(f"Quota now: {q}.")
    out.append(checkpoint(c))
    return out


REASON = PreemptionReason(
    "FAIR_SHARE_RECLAIM", 40, "another over-quota project reclaimed its fair share of the over-quota GPUs",
    "project admin", recommend, rules=RULES)
