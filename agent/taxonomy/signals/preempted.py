"""Preemption: routed out of the failed-workload procedure before classification. A preemption notice is about
preemption only, whatever else it mentions.

Only THIS workload being preempted counts. Schedulers also write "preempt…" about OTHER workloads: Kueue tells the
preemptor "Pending the preemption of N workload(s)" and records "Preempted workload <other> …" on it, kube-scheduler
says "preemption: 0/12 nodes are available: No preemption victims found", and a message may list preemption as one
possible cause ("This can happen if the node was preempted, had a hardware failure, …"). None of these is this
workload being preempted.
"""
from workload_diagnose.agent.model.signals import Kind
from workload_diagnose.agent.taxonomy.record import SignalRule, SignalSet

# "preempted" that is not this workload being preempted: a possibility (may / can / could / will … be preempted;
# "if … preempted"), or the active voice about others ("Preempted workload x", "preempted 2 pods")
_NOT_THIS = (r"\b(?:may|might|can|could|will|would|should|must|to)\s+(?:not\s+|also\s+|still\s+)?be\s+preempted\b|"
             r"\bif\b[^.;]{0,80}\bpreempted\b|"
             r"\bpreempted\s+(?:\d+\s+)?(?:other\s+)?(?:lower[- ]priority\s+)?(?:workloads?|pods?|jobs?|tasks?)\b")

SIGNAL = SignalSet(Kind.PREEMPTED, exclusive=True, order=1, rules=(
    # "Preempted" / "preempted by" (the skill's words). The bare noun "preemption" is NOT a preemption:
    # kube-scheduler's FailedScheduling message says "preemption: 0/12 nodes are available: No preemption victims
    # found ...", and never a word inside a name ("spot-preempted-pool-7").
    SignalRule("preempted.reason_or_message", Kind.PREEMPTED,
               reasons=frozenset({"preempted", "preempting", "preemptionbyscheduler", "preemptionbykubescheduler",
                                  "preemptedbyscheduler", "inclusterqueue", "incohortreclamation",
                                  "incohortfairsharing", "incohortreclaimwhileborrowing"}),
               message=r"\bpreempted by\b|\bwas preempted\b|\bpreempted to\b|(?<![-./\w])preempted(?![-./\w])",
               unless=_NOT_THIS,
               true=(("Preempted", "Pod was preempted by workload x"), ("Preempted", ""),
                     "Workload was preempted by a higher-priority workload",
                     ("Evicted", "Pod was preempted by workload x; the node is not ready"),
                     ("InClusterQueue", "Preempted to accommodate a workload"),
                     # Kueue's eviction of THIS workload (kubernetes-sigs/kueue#7350)
                     ("Evicted", "Preempted to accommodate a workload (UID: 9f542104-a9e2-4344-ad2e-9c136204da18, "
                                 "JobUID: a20d0a6a-64a3-46ce-9b95-8cfb3bf6e675) due to prioritization in the "
                                 "ClusterQueue"),
                     # KAI scheduler's eviction message on the preempted pod group
                     # (kai-scheduler/KAI-Scheduler pkg/scheduler/api/unschedule_info.go GetPreemptMessage)
                     ("Evict", "Pod runai-a/train-0 was preempted by higher priority workload runai-a/serve-1")),
               false=(("FailedScheduling", "0/3 nodes available; node pool spot-preempted-pool"),
                      ("FailedScheduling", "preemption: 0/12 nodes are available: No preemption victims found"),
                      ("Scheduled", "Successfully assigned ns/p to spot-preempted-pool-7"),
                      # the PREEMPTOR's Kueue condition while its victims terminate (kubernetes-sigs/kueue#7350)
                      ("Pending", "couldn't assign flavors to pod set main: insufficient unused quota for memory in "
                                  "flavor default, 1953125Ki more needed. Pending the preemption of 1 workload(s)"),
                      ("WaitingForPreemptedWorkloads", "couldn't assign flavors to pod set one: insufficient unused "
                                                       "quota for cpu in flavor default, 1 more needed. Pending the "
                                                       "preemption of 1 workload(s)"),
                      # Kueue's event on the PREEMPTOR naming its victim (kubernetes-sigs/kueue
                      # pkg/scheduler/preemption/preemption.go, reason PreemptedWorkload; text from its scheduler test)
                      ("PreemptedWorkload", "Preempted workload default/low-priority-admitted (UID: "
                                            "low-priority-admitted-uid) in ClusterQueue tas-main; preemptor "
                                            "effective priority: 3 (base: 3, boost: 0); preemptee effective "
                                            "priority: 1 (base: 1, boost: 0)"),
                      # kube-scheduler / HAMi explaining its search (Project-HAMi/HAMi#1527)
                      ("FailedScheduling", "0/4 nodes are available: 1 NodeUnfitPod, 1 node(s) had untolerated taint "
                                           "{node.kubernetes.io/unreachable: }, 2 node unregistered. preemption: 0/4 "
                                           "nodes are available: 1 Preemption is not helpful for scheduling, 3 No "
                                           "preemption victims found for incoming pod.."),
                      # Ray's NODE_DIED text lists preemption as a possibility only (ray-project/ray#58638)
                      "Task failed because the node it was running on is dead or unavailable. Node IP: 127.0.0.1, "
                      "node ID: e55b8ca03ebf3f7418f51533d8d55abeaab75fa9b29e2e6282b47646. This can happen if the "
                      "node was preempted, had a hardware failure, or its raylet crashed unexpectedly.")),
))
