"""A preemption was reported, but no evidence says which mechanism caused it; or none was found while a read that
would show one failed (whether it was preempted is then not in the evidence: never "not preempted")."""
from __future__ import annotations

from workload_diagnose.agent.taxonomy.preemption_record import (PreemptionContext, PreemptionReason, checkpoint)


def recommend(c: PreemptionContext) -> list[str]:
    return ["The evidence reports a preemption but not which mechanism: ask the platform team for the scheduler's "
            "Evict event of the workload's PodGroup (its message names the preempting workload and the queues' "
            "quota), or read it with Tier 2 access (kubectl get events -n <namespace> "
            "--field-selector reason=Evict).",
            checkpoint(c)]


REASON = PreemptionReason("UNKNOWN", 99, "a preemption was reported but its cause is not in the evidence, or a read "
                                        "that would show whether one happened failed",
                          "platform", recommend)
