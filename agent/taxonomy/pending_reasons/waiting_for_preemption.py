"""The scheduler has placed the workload and waits for the pods it preempted (or reclaimed) to release their
resources: the wait ends by itself."""
from __future__ import annotations

from workload_diagnose.agent.taxonomy.pending_record import CAPACITY, PROJECT, PendingReason, WaitContext, WaitRule


def recommend(c: WaitContext) -> list[str]:
    return ["The scheduler has already chosen where the workload runs and is waiting for the workloads it preempted "
            "to release their resources: no change is needed. If it stays Pending for long, the platform admin "
            "checks for pods stuck terminating on the chosen node(s)."]


REASON = PendingReason(
    "WAITING_FOR_PREEMPTION", 10, "placed; waiting for preempted workloads to release their resources", "platform",
    recommend, reads=frozenset({PROJECT, CAPACITY}), rules=(
        WaitRule("waiting_for_preemption.pipelined", reasons=frozenset({"pipelined"}),
                 message=r"\bwas pipelined to node\b|\bPending the preemption of \d+ workload",
                 true=(
                     # KAI-Scheduler (Run:ai's scheduler) pkg/scheduler/framework/statement.go + the "Pipelined"
                     # event of pkg/scheduler/cache/status_updater/default_status_updater.go
                     ("Pipelined", "Pod runai-ml-team/train-0-0 was pipelined to node gpu-node-3"),
                     # kubernetes-sigs/kueue#7350: QuotaReserved=False on the preemptor, verbatim
                     ("Pending", "couldn't assign flavors to pod set main: insufficient unused quota for memory in "
                                 "flavor default, 1953125Ki more needed. Pending the preemption of 1 workload(s)")),
                 false=(
                     # NVIDIA/k8s-device-plugin#430: "preemption:" is the scheduler finding no victims
                     ("FailedScheduling", "0/1 nodes are available: 1 Insufficient nvidia.com/gpu. preemption: 0/1 "
                                          "nodes are available: 1 No preemption victims found for incoming pod.."),
                     ("Preempted", "Pod was preempted by workload x"),
                     "the data loader pipelined 8 batches")),
    ))
