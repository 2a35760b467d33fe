"""A failed pod (k8sPhase Error / a failed pod) without a cause: a direct failed-pod signal that no message rule
produces; the procedures' evidence reads emit it from the pod's phase (``agent.procedures.kit.evidence``)."""
from workload_diagnose.agent.model.signals import Kind
from workload_diagnose.agent.taxonomy.record import SignalSet

SIGNAL = SignalSet(Kind.POD_ERROR, rules=(), pod_failure=True, unexplained=True)
