"""A higher-priority workload of the same project took the GPUs."""
from __future__ import annotations

from workload_diagnose.agent.taxonomy.preemption_record import (PreemptionContext, PreemptionReason, PreemptionRule,
    checkpoint, quota_line, within_quota)

RULES = (
    # NVIDIA/KAI-Scheduler pkg/scheduler/api/unschedule_info.go GetPreemptMessage (the preempt action: same queue)
    PreemptionRule("priority.message", message=r"\bpreempted by (?:an? )?higher[- ]priority\b",
                   true=(("Evict", "Pod runai-team/train-0-0 was preempted by higher priority workload "
                                   "runai-team/infer-7"),
                         "Workload was preempted by a higher-priority workload"),
                   false=(("Evict", "Pod ns/p was preempted by workload ns/x."),
                          ("Evict", "Pod ns/p was preempted and rescheduled due to bin packing"))),
)


def recommend(c: PreemptionContext) -> list[str]:
    who = f" ({', '.join(c.preemptors)})" if c.preemptors else ""
    state = ("preemptible" if c.preemptible else "non-preemptible" if c.preemptible is False else
             "of a preemptibility that was not reported")
    out = [f"A higher-priority workload of the same project{who} needed the GPUs; this workload was {state}"
           + (f" (priority class {c.priority_class})" if c.priority_class else "") + "."]
    out.append(within_quota(c))
    q = quota_line(c)
    if q:
        out.append(f"Quota now: {q}.")
    out.append(checkpoint(c))
    return out


REASON = PreemptionReason(
    "PRIORITY_PREEMPTION", 30, "a higher-priority workload of the same project preempted it", "researcher",
    recommend, rules=RULES)
