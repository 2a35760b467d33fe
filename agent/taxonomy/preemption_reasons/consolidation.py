"""The scheduler moved the workload to pack GPUs (consolidation); it is rescheduled, not refused."""
from __future__ import annotations

from workload_diagnose.agent.taxonomy.preemption_record import (PreemptionContext, PreemptionReason, PreemptionRule,
    checkpoint)

RULES = (
    # NVIDIA/KAI-Scheduler pkg/scheduler/api/unschedule_info.go GetConsolidateMessage
    PreemptionRule("consolidation.message", message=r"\bbin[- ]packing\b|\bresource consolidation\b|"
                                                    r"\bconsolidation (?:action|procedure)\b",
                   true=(("Evict", "Pod runai-team/train-0-0 was preempted and rescheduled due to bin packing "
                                   "(resource consolidation) procedure"),
                         ("PreemptionByScheduler", "Pod ns/p was preempted and rescheduled due to bin packing")),
                   false=(("Evict", "Pod ns/p was preempted by higher priority workload ns/x"),
                          ("Evict", "Pod ns/p was preempted by workload ns/consolidation-job."))),
)


def recommend(c: PreemptionContext) -> list[str]:
    return ["The scheduler consolidated GPUs (bin packing): the workload was moved to free whole nodes for others "
            "and is rescheduled; nothing in the workload caused it.",
            checkpoint(c),
            "If consolidation interrupts it often, ask the platform team about the node pool's placement strategy or "
            "a minimum guaranteed runtime (minGuaranteedRuntime) for preemptible workloads."]


REASON = PreemptionReason(
    "CONSOLIDATION", 20, "the scheduler moved the workload to consolidate GPUs (bin packing)", "platform", recommend,
    rules=RULES)
