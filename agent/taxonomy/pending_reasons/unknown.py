"""Pending with no message that names the reason: the fallback, never a guess."""
from __future__ import annotations

from workload_diagnose.agent.taxonomy.pending_record import CAPACITY, PROJECT, PendingReason, WaitContext


def recommend(c: WaitContext) -> list[str]:
    pod = f" {c.first_pod}" if c.first_pod else ""
    ns = f" -n {c.namespace}" if c.namespace else ""
    return ["No scheduler, Kueue or Run:ai message names why the workload waits. Read the scheduler's events with "
            f"read-only Kubernetes access (kubectl describe pod{pod}{ns}; kubectl get events{ns}) and rerun with "
            "--kubeconfig, or ask the platform admin to check the scheduler."]


# the fallback: no rules, last in precedence
REASON = PendingReason("UNKNOWN", 1000, "no message names the reason", "platform", recommend,
                       reads=frozenset({PROJECT, CAPACITY}))
