"""Preemption: routed out of the failed-workload procedure before classification. A preemption notice is about
preemption only, whatever else it mentions."""
from workload_diagnose.agent.model.signals import Kind
from workload_diagnose.agent.taxonomy.record import SignalRule, SignalSet

SIGNAL = SignalSet(Kind.PREEMPTED, exclusive=True, order=1, rules=(
    # "Preempted" / "preempted by" (the skill's words). The bare noun "preemption" is NOT a preemption:
    # kube-scheduler's FailedScheduling message says "preemption: 0/12 nodes are available: No preemption victims
    # found ...", and never a word inside a name ("spot-preempted-pool-7").
    SignalRule("preempted.reason_or_message", Kind.PREEMPTED,
               reasons=frozenset({"preempted", "preempting", "preemptionbyscheduler", "preemptionbykubescheduler",
                                  "preemptedbyscheduler", "inclusterqueue", "incohortreclamation",
                                  "incohortfairsharing", "incohortreclaimwhileborrowing"}),
               message=r"\bpreempted by\b|\bwas preempted\b|\bpreempted to\b|(?<![-./\w])preempted(?![-./\w])",
               true=(("Preempted", "Pod was preempted by workload x"), ("Preempted", ""),
                     "Workload was preempted by a higher-priority workload",
                     ("Evicted", "Pod was preempted by workload x; the node is not ready"),
                     ("InClusterQueue", "Preempted to accommodate a workload")),
               false=(("FailedScheduling", "0/3 nodes available; node pool spot-preempted-pool"),
                      ("FailedScheduling", "preemption: 0/12 nodes are available: No preemption victims found"),
                      ("Scheduled", "Successfully assigned ns/p to spot-preempted-pool-7"))),
))
