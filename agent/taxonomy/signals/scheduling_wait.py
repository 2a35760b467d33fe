"""Waiting to be scheduled (Unschedulable, insufficient resources, quota): a wait, never a failure category."""
from workload_diagnose.agent.model.signals import Kind
from workload_diagnose.agent.taxonomy.record import SignalRule, SignalSet

SIGNAL = SignalSet(Kind.SCHEDULING_WAIT, order=65, objects=frozenset({"PersistentVolumeClaim", "PersistentVolume"}),
                   rules=(
    SignalRule("scheduling_wait.reason_or_message", Kind.SCHEDULING_WAIT, on_reason_too=True,
               reasons=frozenset({"failedscheduling", "unschedulable", "nottriggerscaleup", "nonpreemptibleoverquota",
                                  "overlimit", "insufficientresources", "notenoughresources", "pending"}),
               message=r"\bUnschedulable\b|\bFailedScheduling\b|\bInsufficient \S+|\bnot enough\b|\bquota\b|"
                       r"\bno nodes? (?:are )?available\b|\bnodes are available\b|\bwaiting for resources\b",
               true=(("FailedScheduling", "0/3 nodes are available: 3 Insufficient nvidia.com/gpu."),
                     ("Pending", ""), "Workload is waiting for resources", "exceeds the project's quota"),
               false=(("Scheduled", "Successfully assigned ns/p to node-1"), "the trainer loaded 8 shards",
                      ("Started", "Started container quota-checker"))),
))
