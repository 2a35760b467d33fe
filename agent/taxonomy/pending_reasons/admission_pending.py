"""Kueue has not admitted the workload (no quota reserved in its ClusterQueue, or its LocalQueue/ClusterQueue is
missing or inactive): the scheduler has not been asked to place it yet, so no later layer is to blame."""
from __future__ import annotations

from workload_diagnose.agent.taxonomy.pending_record import PendingReason, WaitContext, WaitRule


def recommend(c: WaitContext) -> list[str]:
    where = f" (kubectl get workload -n {c.namespace})" if c.namespace else ""
    return ["Kueue has not admitted the workload (its message above). Check that its LocalQueue "
            "exists and points to an active ClusterQueue, and the ClusterQueue's unused quota for what it requests"
            f"{where}; the queue owner decides quota and priority. Nodes and GPUs are not the cause before "
            "admission."]


REASON = PendingReason(
    "ADMISSION_PENDING", 20, "not admitted by Kueue: no quota reserved, or its queue is missing or inactive",
    "queue-owner", recommend, rules=(
        WaitRule("admission_pending.kueue", reasons=frozenset({"inadmissible"}),
                 message=r"\bcouldn't assign flavors\b|\b(?:LocalQueue|ClusterQueue) \S+ (?:doesn't exist|is "
                         r"inactive)\b|\bWorkload is inadmissible\b",
                 true=(
                     # kubernetes-sigs/kueue pkg/controller/core/workload_controller.go (reason Inadmissible)
                     ("Inadmissible", "LocalQueue team-a doesn't exist"),
                     ("Inadmissible", "ClusterQueue cluster-queue is inactive"),
                     # kubernetes-sigs/kueue#7350, the QuotaReserved=False message's first sentence
                     ("Pending", "couldn't assign flavors to pod set main: insufficient unused quota for memory in "
                                 "flavor default, 1953125Ki more needed")),
                 false=(
                     # kubernetes-sigs/kueue#7646: the message once quota IS reserved
                     ("QuotaReserved", "Quota reserved in ClusterQueue tas-main, wait time since queued was "
                                       "9223372037s"),
                     ("Admitted", "The workload is admitted"),
                     ("FailedScheduling", "0/4 nodes are available: 4 node(s) didn't match Pod's node "
                                          "affinity/selector."))),
    ))
