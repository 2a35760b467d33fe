"""A workload that failed inside the lookback: the failed-workload procedure is run on it (bounded) and its
category is quoted; the snapshot never names a cause of its own.

A Stopped workload is left out: Run:ai writes Stopped for a workload a user (or a policy) stopped, which is not a
failure of the workload ("Stopped" in the phase enum, ``shared/reference/runai-api.md``); ``failed`` still
diagnoses one when asked. A failure that shows preemption is the preemption rule's."""
from __future__ import annotations

from workload_diagnose.agent.model import phases
from workload_diagnose.agent.model.signals import Kind
from workload_diagnose.agent.taxonomy.attention_record import AttentionRule, Sample

NOW = "2026-11-20T12:00:00Z"

RULE = AttentionRule(
    "FAILED_RECENTLY", 10, "failed inside the lookback", "failing", "researcher",
    phases=frozenset(phases.FAILED - {"stopped"}), unless_kinds=frozenset({Kind.PREEMPTED}), in_lookback=True,
    answered_by="runai_failed", intent="terminal", diagnose=True,
    true=(Sample({"phase": "Failed", "phaseUpdatedAt": "2026-11-20T09:14:00Z"}, NOW),
          Sample({"phase": "Failed", "phaseUpdatedAt": "2026-11-14T12:00:01Z"}, NOW),  # just inside 7 days
          Sample({"phase": "Crashed", "phaseUpdatedAt": "2026-11-20T11:00:00Z"}, NOW)),
    false=(Sample({"phase": "Failed", "phaseUpdatedAt": "2026-11-10T08:00:00Z"}, NOW),  # outside 7 days
           Sample({"phase": "Stopped", "phaseUpdatedAt": "2026-11-20T09:00:00Z"}, NOW),
           Sample({"phase": "Completed", "phaseUpdatedAt": "2026-11-20T09:00:00Z"}, NOW),
           Sample({"phase": "Failed", "phaseUpdatedAt": "2026-11-20T09:00:00Z",
                   "phaseMessage": "Workload was preempted by a higher-priority workload"}, NOW)),
)
