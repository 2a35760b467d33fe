"""No node the workload may use fits its constraints: node selector or affinity (node pool, node type, GPU type),
or taints it does not tolerate. Capacity is not the question: no node matches."""
from __future__ import annotations

from workload_diagnose.agent.taxonomy.pending_record import NODE_POOLS, NODES, SPEC, PendingReason, WaitContext, \
    WaitRule


def recommend(c: WaitContext) -> list[str]:
    out = ["No node the workload may use matches its constraints (the scheduler's message above)."]
    out += [f"Spec vs nodes: {m}" for m in c.mismatches]
    out.append("Fix the node pool, node type, affinity or tolerations in the submitted spec to match the pool's "
               "nodes, or ask the platform admin to label or untaint nodes for it.")
    return out


REASON = PendingReason(
    "NO_MATCHING_NODE", 50, "no node matches the workload's node selector, affinity, GPU type or tolerations",
    "researcher", recommend, reads=frozenset({SPEC, NODE_POOLS, NODES}), rules=(
        WaitRule("no_matching_node.filters",
                 # (a message is scrubbed of quoted segments first: "didn't … Pod's" loses what stands between its
                 # two apostrophes, so the patterns are the words that survive it)
                 message=r"\bnode affinity\b|\bnode selector\b|\baffinity/selector\b|\buntolerated taint\b|\btaints? "
                         r"that the pod\b|\bpod (?:anti-)?affinity\b",
                 # a node excluded for capacity alone means matching nodes exist: the pool is full, not unmatched
                 unless=r"\bInsufficient (?!unused)|\bhave enough resources?\b",
                 true=(
                     # kyma-project/test-infra#8582
                     ("FailedScheduling", "0/4 nodes are available: 4 node(s) didn't match Pod's node "
                                          "affinity/selector. preemption: 0/4 nodes are available: 4 Preemption is "
                                          "not helpful for scheduling.."),
                     # kubernetes/kubernetes#100400
                     ("FailedScheduling", "0/20 nodes are available: 1 node(s) didn't match pod affinity/anti-"
                                          "affinity, 19 node(s) didn't match node selector."),
                     # Project-HAMi/HAMi#1527
                     ("FailedScheduling", "0/4 nodes are available: 1 NodeUnfitPod, 1 node(s) had untolerated taint "
                                          "{node.kubernetes.io/unreachable: }, 2 node unregistered. preemption: 0/4 "
                                          "nodes are available: 1 Preemption is not helpful for scheduling, 3 No "
                                          "preemption victims found for incoming pod..")),
                 false=(
                     # loft-sh/devpod-provider-kubernetes#63: matching nodes exist but lack GPUs
                     ("FailedScheduling", "0/4 nodes are available: 1 node(s) didn't match pod affinity rules, 3 "
                                          "Insufficient nvidia.com/gpu. preemption: 0/4 nodes are available: 1 "
                                          "Preemption is not helpful for scheduling, 3 No preemption victims found "
                                          "for incoming pod."),
                     ("Scheduled", "Successfully assigned runai-ml-team/train-0-0 to gpu-node-1"))),
    ))
