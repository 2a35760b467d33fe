"""Gang scheduling: the workload's pods are placed together or not at all, and fewer pods exist (or are ready to
be scheduled) than the group's minimum, so the scheduler waits for the rest."""
from __future__ import annotations

from workload_diagnose.agent.taxonomy.pending_record import PendingReason, WaitContext, WaitRule


def recommend(c: WaitContext) -> list[str]:
    have = f" ({c.gang})" if c.gang else ""
    return [f"The scheduler places the workload's pods together and waits until the group's minimum exists{have}. "
            "Check that every pod was created and is not gated (replicas and min-member of the submitted "
            "workload); when pods are missing, the job controller or the requested pod count is the cause, not "
            "the GPUs."]


REASON = PendingReason(
    "GANG_WAIT", 30, "gang scheduling: fewer pods exist than the group's minimum", "researcher", recommend, rules=(
        WaitRule("gang_wait.min_member",
                 message=r"\bJob is not ready for scheduling\b|\bWaiting for \d+ pods(?: for SubGroup \S+)?, "
                         r"currently \d+ exist\b|\bcannot find enough sibling pods\b|\bless than min(?:Available|"
                         r"Member)\b",
                 true=(
                     # KAI-Scheduler pkg/scheduler/cache/status_updater/default_status_updater.go (NotReady event
                     # on the PodGroup)
                     ("NotReady", "Job is not ready for scheduling. Waiting for 4 pods, currently 2 exist, 0 are "
                                  "gated"),
                     # kubernetes-sigs/scheduler-plugins#364 (coscheduling PreFilter)
                     ("FailedScheduling", "pre-filter pod mysql-0 cannot find enough sibling pods, current pods "
                                          "number: 1, minMember of group: 5"),
                     # kubernetes-sigs/scheduler-plugins#114
                     ("FailedScheduling", "rejected by \"coscheduling\" at prefilter: less than minAvailable")),
                 false=(
                     # KAI-Scheduler: a running job below its minimum (StaleJob), not a pending one
                     ("StaleJob", "Job is stale. 2 pods are active, minMember is 4"),
                     ("NodeNotReady", "Node gpu-node-1 status is now: NodeNotReady"),
                     ("Unschedulable", "0/8 nodes are available: 8 Insufficient nvidia.com/gpu."))),
    ))
