"""The phase rules: one small pure function per lifecycle phase, over a :class:`Snapshot` of what was read.

Each rule decides its phase from structured fields (conditions, container states, allocation) and cites them;
free text (messages) is only quoted, already redacted. Rules never look at a name to decide anything.

``common`` holds the snapshot and the shared helpers; ``kueue`` Submitted and Kueue admission; ``pods`` the pod-level
rules (scheduling, image pull, init, container start, ready); ``dra`` DRA allocation; ``ray`` the RayCluster, RayJob
status and compute-release rules. :func:`walk` puts them in order.
"""
from __future__ import annotations

from workload_diagnose.agent.model.lifecycle import Phase
from workload_diagnose.agent.procedures.kit.layers.common import (MAX_DETAIL, Snapshot, rayjob_failed, rayjob_succeeded,
                                                      run_ended, run_succeeded)
from workload_diagnose.agent.procedures.kit.layers.dra import DRA_STUCK_AFTER, claim_refs, dra_allocation
from workload_diagnose.agent.procedures.kit.layers.kueue import KUEUE_EVICTION_CONDITIONS, kueue_admission, submitted
from workload_diagnose.agent.procedures.kit.layers.pods import (CONTAINER_FAILURES, IMAGE_PULL_FAILURES, NOT_STARTED,
                                                    container_start, image_pull, init_containers, pod_scheduling,
                                                    ready)
from workload_diagnose.agent.procedures.kit.layers.ray import compute_release, raycluster, rayjob_status

__all__ = ["CONTAINER_FAILURES", "DRA_STUCK_AFTER", "IMAGE_PULL_FAILURES", "KUEUE_EVICTION_CONDITIONS", "MAX_DETAIL",
           "NOT_STARTED", "Snapshot", "claim_refs", "compute_release", "container_start", "dra_allocation",
           "image_pull", "init_containers", "kueue_admission", "pod_scheduling", "raycluster", "rayjob_failed",
           "rayjob_status", "rayjob_succeeded", "ready", "run_ended", "run_succeeded", "submitted", "walk"]


def walk(s: Snapshot) -> list[Phase]:
    """The ordered phases of one snapshot (RayJob-only phases only for a RayJob)."""
    phases = [submitted(s), kueue_admission(s)]
    if s.kind == "RayJob":
        phases.append(raycluster(s))
    phases += [pod_scheduling(s), dra_allocation(s), image_pull(s), init_containers(s), container_start(s), ready(s)]
    if s.kind == "RayJob":
        phases += [rayjob_status(s), compute_release(s)]
    return phases
