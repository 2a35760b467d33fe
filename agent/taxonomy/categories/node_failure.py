"""The node failed or evicted the pod (NotReady, lost, shut down, pressure eviction)."""
from __future__ import annotations

from workload_diagnose.agent.model.signals import Kind
from workload_diagnose.agent.taxonomy.record import Category, ChatWords, RecoContext, SignalRule, TriageGroup

RULES = (
    SignalRule("node.reason_or_message", Kind.NODE_FAILURE, on_reason_too=True, detail="reason",
               reasons=frozenset({"evicted", "taintmanagereviction", "nodenotready", "nodelost", "nodeshutdown",
                                  "nodenotschedulable", "nodeunreachable", "deletingnode", "removingnode",
                                  "terminatedbynodeshutdown"}),
               message=r"\bnode\b.{0,80}\b(?:not ?ready|notready|unreachable|lost|shut ?down|was terminated)\b|"
                       r"\bNodeNotReady\b|\bTaintManagerEviction\b|\bevict(?:ed|ing)\b.{0,60}\bnode\b|"
                       r"\bnode\b.{0,60}\bevict|\bwas low on resource\b",
               true=(("NodeNotReady", "Node gpu-1 status is now: NodeNotReady"),
                     ("Evicted", "The node was low on resource: memory."), ("TaintManagerEviction", ""),
                     "Pod was evicted because the node gpu-3 is unreachable", "node gpu-1 was shut down"),
               false=(("Scheduled", "Successfully assigned ns/p to node-notready-pool-1"),
                      "the trainer evaluated 3 checkpoints", ("Killing", "Stopping container trainer"))),
)


def recommend(c: RecoContext) -> list[str]:
    nodes = sorted({s.obj for s in c.signals if s.kind == Kind.NODE_FAILURE and s.obj
                    and s.source.startswith("kubectl describe node")})
    out = []
    if (c.restart_policy or "").lower() == "onfailure":
        out.append("Restart policy is OnFailure: retry on a healthy node.")
    else:
        out.append("Resubmit the workload so it is placed on a healthy node.")
    out.append("Report the node failure" + (f" on {', '.join(nodes)}" if nodes else "")
               + " to the cluster administrator.")
    return out


CATEGORY = Category(
    "NODE_FAILURE", 60, "the node failed or evicted the pod", recommend, rules=RULES, objects=frozenset({"Node"}),
    tier2_reason=lambda v: "kubectl describe node for the NODE_FAILURE evidence", reads_node=True,
    spec_lines=("Restart policy",), excluded_by_preemption=True,
    words=ChatWords(r"node|evict|hardware", ("why not the node", "was it evicted", "a hardware fault?"),
                    ("why not oom",)),
    triage=(TriageGroup("node", "node",
                        lambda k, n: f"Inspect node {k} (kubectl describe node {k}) and have the administrator repair "
                                     f"or drain it; then resubmit the {n} workloads that failed on it."),))
