"""A workload Pending for 30 minutes or more (since its phase last changed, as listed). The snapshot does not say
why: the pending procedure answers that, and its command is the next action. A workload pending for two minutes
is only being scheduled. The 30 minutes are this project's threshold, not a Run:ai figure."""
from __future__ import annotations

from datetime import timedelta

from workload_diagnose.agent.taxonomy.attention_record import AttentionRule, Sample

NOW = "2026-11-20T12:00:00Z"

RULE = AttentionRule(
    "PENDING_LONG", 40, "Pending for 30 minutes or more", "attention", "researcher",
    phases=frozenset({"pending"}), min_age=timedelta(minutes=30), answered_by="pending",
    true=(Sample({"phase": "Pending", "phaseUpdatedAt": "2026-11-20T11:30:00Z"}, NOW),
          Sample({"phase": "Pending", "phaseUpdatedAt": "2026-11-18T08:00:00Z",
                  "phaseMessage": "Not enough resources in the requested nodepool"}, NOW)),
    false=(Sample({"phase": "Pending", "phaseUpdatedAt": "2026-11-20T11:58:00Z"}, NOW),  # two minutes
           Sample({"phase": "Pending", "phaseUpdatedAt": "2026-11-20T11:30:01Z"}, NOW),
           Sample({"phase": "Running", "phaseUpdatedAt": "2026-11-18T08:00:00Z"}, NOW),
           Sample({"phase": "Pending"}, NOW)),  # no time: how long is not known, never assumed
)
