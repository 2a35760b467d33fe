"""The node pool lacks free resources for the request: matching nodes exist, but not enough of their GPUs (or CPU,
memory) are free."""
from __future__ import annotations

from workload_diagnose.agent.taxonomy.pending_record import (CAPACITY, NODE_POOLS, PROJECT, PendingReason,
                                                             WaitContext, WaitRule, figure)


def recommend(c: WaitContext) -> list[str]:
    pool = f"Node pool {c.pool}" if c.pool else "The node pool"
    out = [f"{pool}: {figure(c.free, 'free')}, {figure(c.total, 'total')}; the workload requests "
           f"{c.requested or 'a GPU count not reported'}."]
    if c.other_pools:
        out.append("Node pools with free GPUs: " + ", ".join(c.other_pools) + ": submit to one of them (a "
                   "prioritized list of node pools lets the scheduler try the next one).")
    out.append("Otherwise wait for GPUs to free up or reduce the request; the pool's capacity is the platform "
               "admin's.")
    return out


REASON = PendingReason(
    "NODE_POOL_FULL", 60, "matching nodes exist but the node pool lacks free GPUs (or CPU, memory) for the request",
    "platform", recommend, reads=frozenset({PROJECT, NODE_POOLS, CAPACITY}), rules=(
        WaitRule("node_pool_full.capacity",
                 message=r"\bInsufficient (?!unused)\S+|\bhave enough resources?\b|\bno nodes with enough "
                         r"resources were found\b|\bNot enough resources (?:in the requested nodepool|for the "
                         r"workload)\b",
                 true=(
                     # NVIDIA/k8s-device-plugin#430
                     ("FailedScheduling", "0/1 nodes are available: 1 Insufficient nvidia.com/gpu. preemption: 0/1 "
                                          "nodes are available: 1 No preemption victims found for incoming pod.."),
                     # loft-sh/devpod-provider-kubernetes#63
                     ("FailedScheduling", "0/4 nodes are available: 1 node(s) didn't match pod affinity rules, 3 "
                                          "Insufficient nvidia.com/gpu. preemption: 0/4 nodes are available: 1 "
                                          "Preemption is not helpful for scheduling, 3 No preemption victims found "
                                          "for incoming pod."),
                     # KAI-Scheduler pkg/scheduler/api/common_info/job_errors.go (JobFitErrorsToMessage)
                     ("Unschedulable", "Not enough resources for the workload: node-group(s) didn't have enough "
                                       "resources: GPUs."),
                     # KAI-Scheduler pkg/scheduler/api/common_info/pod_errors.go
                     ("Unschedulable", "no nodes with enough resources were found")),
                 false=(
                     ("FailedScheduling", "0/4 nodes are available: 4 node(s) didn't match Pod's node "
                                          "affinity/selector."),
                     ("Scheduled", "Successfully assigned runai-ml-team/train-0-0 to gpu-node-1"),
                     "the trainer loaded 8 shards")),
    ))
