"""A Running workload whose allocated GPUs Run:ai reports idle: ``idleAllocatedGpus``, "sum of idle allocated gpus
in the workload" (Run:ai OpenAPI ``Workload``, ``shared/reference/runai-openapi-workloads.json``), computed by Run:ai
from its GPU metrics. A workload without the figure is not judged (the metrics are then stated as unavailable);
zero idle GPUs is not idle. No procedure answers it: the owner frees or uses the GPUs."""
from __future__ import annotations

from workload_diagnose.agent.taxonomy.attention_record import AttentionRule, Sample

NOW = "2026-11-20T12:00:00Z"

RULE = AttentionRule(
    "IDLE_GPUS", 50, "allocated GPUs idle (Run:ai's idle-GPU figure)", "attention", "researcher",
    phases=frozenset({"running"}), idle_above=0.0,
    action="Check that it still uses its GPUs (Run:ai reports them idle); stop it, or submit it again with fewer "
           "GPUs, so that other workloads of the project can use them.",
    true=(Sample({"phase": "Running", "idleAllocatedGpus": 2, "allocatedResources": {"gpu": 4}}, NOW),
          Sample({"phase": "Running", "idleAllocatedGpus": 0.5}, NOW)),
    false=(Sample({"phase": "Running", "idleAllocatedGpus": 0, "allocatedResources": {"gpu": 4}}, NOW),
           Sample({"phase": "Running", "idleAllocatedGpus": None, "allocatedResources": {"gpu": 4}}, NOW),
           Sample({"phase": "Pending", "idleAllocatedGpus": 2}, NOW)),
)
