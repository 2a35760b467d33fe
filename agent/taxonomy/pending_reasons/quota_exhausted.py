"""The project's quota: scheduling the workload would put the project's non-preemptible use over its deserved
quota in the node pool, or over its limit."""
from __future__ import annotations

from workload_diagnose.agent.taxonomy.pending_record import (CAPACITY, PROJECT, PendingReason, WaitContext, WaitRule,
                                                             figure)


def recommend(c: WaitContext) -> list[str]:
    pool = f" in node pool {c.pool}" if c.pool else ""
    who = f"Project {c.project}" if c.project else "The project"
    limit = f", {figure(c.limit, 'limit')}" if c.limit is not None else ""
    out = [f"{who}{pool}: {figure(c.deserved, 'deserved')}, {figure(c.allocated, 'allocated')}{limit}; the "
           f"workload requests {c.requested or 'a GPU count not reported'}."]
    if c.preemptible is not True:
        out.append("Submit it as a preemptible workload to run over the deserved quota (it may then be preempted "
                   "when other projects reclaim their quota), or wait for the project's non-preemptible workloads "
                   "to finish.")
    else:
        out.append("Wait for the project's other workloads to finish or stop idle ones.")
    out.append(f"If the project needs this much routinely, the project admin asks for more quota{pool} with these "
               "figures.")
    return out


REASON = PendingReason(
    "QUOTA_EXHAUSTED", 40, "the project's quota (deserved or limit) in the node pool does not cover the request",
    "project-admin", recommend, reads=frozenset({PROJECT, CAPACITY}), rules=(
        WaitRule("quota_exhausted.runai", reasons=frozenset({"nonpreemptibleoverquota", "overlimit",
                                                            "non-preemptibleoverquota"}),
                 message=r"\bis over quota\b|\bquota has reached the allowable limit\b|\bnon-preemptible over quota\b"
                         r"|\breached the limit of non-preemptible resources\b",
                 true=(
                     # Run:ai OpenAPI: PhaseReason enum and the Workload phaseMessage example
                     ("NonPreemptibleOverQuota", "Not enough resources in the requested nodepool"),
                     # Run:ai OpenAPI: PendingSchedulingMessage examples (reason, userMessage)
                     ("Non-preemptible over quota", "You have reached the limit of non-preemptible resources"),
                     # KAI-Scheduler pkg/scheduler/api/unschedule_info.go
                     ("Unschedulable", "Non-preemptible workload is over quota. Workload requested 8 GPUs, but "
                                       "ml-team quota is 16 GPUs, while 16 GPUs are already allocated for "
                                       "non-preemptible pods. Use a preemptible workload to go over quota."),
                     ("Unschedulable", "ml-team quota has reached the allowable limit of GPUs. Limit is 16 GPUs, "
                                       "currently 16 GPUs allocated and workload requested 8 GPUs")),
                 false=(
                     ("FailedScheduling", "0/8 nodes are available: 8 Insufficient nvidia.com/gpu."),
                     ("QuotaReserved", "Quota reserved in ClusterQueue tas-main"),
                     ("Started", "Started container quota-checker"))),
    ))
