"""A Running (or Pending) workload whose own listed fields say a container keeps restarting: kubelet's
CrashLoopBackOff / "Back-off restarting failed container" (read by the crash-loop signal rule,
``agent/taxonomy/signals/crash_loop.py``). The failed-workload procedure (intent active) is run on it."""
from __future__ import annotations

from workload_diagnose.agent.model.signals import Kind
from workload_diagnose.agent.taxonomy.attention_record import AttentionRule, Sample

NOW = "2026-11-20T12:00:00Z"

RULE = AttentionRule(
    "CRASH_LOOPING", 20, "a container keeps restarting (CrashLoopBackOff)", "failing", "researcher",
    phases=frozenset({"running", "pending"}), kinds=frozenset({Kind.CRASH_LOOP}),
    answered_by="runai_failed", intent="active", diagnose=True,
    true=(Sample({"phase": "Running", "k8sPhase": "CrashLoopBackOff", "phaseUpdatedAt": "2026-11-20T11:00:00Z"},
                 NOW),
          # kubelet's back-off reason and message (kubernetes pkg/kubelet/kuberuntime: "Back-off restarting failed
          # container %s in pod %s"), as a workload condition
          Sample({"phase": "Running", "phaseUpdatedAt": "2026-11-20T11:00:00Z",
                  "conditions": [{"type": "Ready", "status": "False", "reason": "BackOff",
                                  "message": "Back-off restarting failed container trainer in pod "
                                             "train-0-0_runai-ml-team(8c1d)"}]}, NOW)),
    false=(Sample({"phase": "Running", "k8sPhase": "Running", "phaseUpdatedAt": "2026-11-20T11:00:00Z"}, NOW),
           Sample({"phase": "Failed", "k8sPhase": "CrashLoopBackOff", "phaseUpdatedAt": "2026-11-20T11:00:00Z"},
                  NOW),
           # a name full of the words is not the state
           Sample({"phase": "Running", "name": "crashloopbackoff-repro", "phaseUpdatedAt": "2026-11-20T11:00:00Z"},
                  NOW)),
)
