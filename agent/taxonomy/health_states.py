"""The overall state of a health snapshot: a small fixed set, decided from the evidence alone, the first state (in
precedence order) whose condition holds.

* ``DEGRADED``: at least one workload of the scope fails now or failed inside the lookback (an attention item of
  severity ``failing``: FAILED_RECENTLY, CRASH_LOOPING).
* ``NEEDS_ATTENTION``: no failing item, at least one other attention item (preempted repeatedly, pending long,
  idle GPUs).
* ``UNDETERMINED``: no attention item, and the listing could not be read, or was not read in full: nothing supports
  "healthy".
* ``HEALTHY``: the listing was read in full and no workload matches an attention rule.

A part that could not be read (quota, a workload's diagnosis, idle-GPU figures) is a stated limitation; it never
changes the state by itself, since the state is about the listed workloads.
"""
from __future__ import annotations

from workload_diagnose.agent.taxonomy.attention_record import HealthState

__all__ = ["STATES", "NAMES", "BY_NAME", "state_of"]

DEGRADED = HealthState("DEGRADED", 10, "a workload fails now or failed inside the lookback")
NEEDS_ATTENTION = HealthState("NEEDS_ATTENTION", 20, "no failure; a workload is preempted repeatedly, pending long, "
                                                     "or holds idle GPUs")
UNDETERMINED = HealthState("UNDETERMINED", 30, "no attention item, but the listing was not read, or not in full")
HEALTHY = HealthState("HEALTHY", 40, "the listing was read in full and no workload needs attention")

STATES: tuple[HealthState, ...] = (DEGRADED, NEEDS_ATTENTION, UNDETERMINED, HEALTHY)
NAMES: list[str] = [s.name for s in STATES]
BY_NAME: dict[str, HealthState] = {s.name: s for s in STATES}


def state_of(severities: list[str], listing_complete: bool) -> HealthState:
    """The state from the attention items' severities and whether the listing was read in full."""
    if "failing" in severities:
        return DEGRADED
    if severities:
        return NEEDS_ATTENTION
    return HEALTHY if listing_complete else UNDETERMINED
