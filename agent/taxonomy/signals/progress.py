"""Progress: bound to a node, image pulled, container started. These reasons never carry a failure, whatever
their message says ("Successfully assigned ns/pod to spot-preempted-pool-7"); they show the pod is past
scheduling."""
from workload_diagnose.agent.model.signals import Kind
from workload_diagnose.agent.taxonomy.record import SignalRule, SignalSet

SIGNAL = SignalSet(Kind.POD_SCHEDULED, exclusive=True, order=0, objects=frozenset({"Node"}), rules=(
    SignalRule("progress.reason", Kind.POD_SCHEDULED, detail="reason",
               reasons=frozenset({"scheduled", "pulling", "pulled", "created", "started", "successfulcreate",
                                  "successfulattachvolume", "containersnotready"}),
               true=(("Scheduled", "Successfully assigned ns/p to spot-preempted-pool-7"),
                     ("Started", "Started container in pod oomkilled-preempted-by-idle-policy-notready-0-0"),
                     ("Pulling", 'Pulling image "r.io/oomkilled:toomanyrequests-evicted"'), ("Created", "")),
               false=(("FailedScheduling", "0/3 nodes are available"), "Successfully assigned ns/p to node-1",
                      ("BackOff", "Back-off restarting failed container"))),
))
