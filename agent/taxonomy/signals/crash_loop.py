"""CrashLoopBackOff / repeated restarts: a symptom, not a cause (an init container's becomes INIT_FAILED in
``agent.evidence.kube``)."""
from workload_diagnose.agent.model.signals import Kind
from workload_diagnose.agent.taxonomy.record import SignalRule, SignalSet

SIGNAL = SignalSet(Kind.CRASH_LOOP, order=55, pod_failure=True, confirms_crash=True, unexplained=True, rules=(
    SignalRule("crash_loop.reason_or_message", Kind.CRASH_LOOP, on_reason_too=True,
               reasons=frozenset({"crashloopbackoff"}),
               message=r"\bCrashLoopBackOff\b|\bback-off restarting failed container\b|"
                       r"\brestarting failed container\b",
               true=(("BackOff", "Back-off restarting failed container trainer"), ("CrashLoopBackOff", ""),
                     "restarting failed container trainer in pod p"),
               false=(("Started", "Started container trainer"), "container trainer restarted after a checkpoint",
                      ("Pulling", 'Pulling image "r.io/crashloopbackoff:1"'))),
))
