"""A workload preempted more than once inside the lookback. The listing shows only that it was preempted (its
own fields, read by the preemption signal rule, ``agent/taxonomy/signals/preempted.py``); how many times is the
preempted procedure's count (its ``preemptions``), so that procedure is run on it. Once is not repeatedly: such a
workload is checked by the next rules (it may still be pending long)."""
from __future__ import annotations

from workload_diagnose.agent.model import phases
from workload_diagnose.agent.model.signals import Kind
from workload_diagnose.agent.taxonomy.attention_record import AttentionRule, Sample

NOW = "2026-11-20T12:00:00Z"
_LISTED = {"phase": "Pending", "phaseUpdatedAt": "2026-11-20T10:00:00Z",
           # KAI-Scheduler's eviction message (pkg/scheduler/api/unschedule_info.go GetPreemptMessage)
           "phaseMessage": "Pod runai-ml-team/train-0-0 was preempted by higher priority workload "
                           "runai-ml-team/serve-1"}

RULE = AttentionRule(
    "PREEMPTED_REPEATEDLY", 30, "preempted more than once in the lookback", "attention", "researcher",
    phases=phases.ACTIVE | phases.FAILED | {"degraded"},
    kinds=frozenset({Kind.PREEMPTED}), in_lookback=True, answered_by="preempted", diagnose=True, min_count=2,
    true=(Sample(_LISTED, NOW, count=2), Sample(_LISTED, NOW, count=4),
          Sample({"phase": "Running", "phaseUpdatedAt": "2026-11-19T10:00:00Z",
                  "conditions": [{"type": "Evicted", "status": "True", "reason": "Preempted",
                                  "message": "Workload was preempted by a higher-priority workload"}]}, NOW, count=3)),
    false=(Sample(_LISTED, NOW, count=1),  # once is not repeatedly
           Sample(_LISTED, NOW, count=0),
           Sample({**_LISTED, "phaseUpdatedAt": "2026-11-01T10:00:00Z"}, NOW, count=3),  # before the lookback
           # kube-scheduler's "no victims" wording is not this workload being preempted
           Sample({"phase": "Pending", "phaseUpdatedAt": "2026-11-20T10:00:00Z",
                   "phaseMessage": "preemption: 0/12 nodes are available: No preemption victims found for incoming "
                                   "pod"}, NOW, count=2)),
)
