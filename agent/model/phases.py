"""Run:ai workload phases, one table: which phases are failures, which finished well, which are still active.

Every reader of a phase (the procedures' phase rules, Option B's "terminal" intent, recurrence, the chat's "the run
before that?", triage's server-side listing) takes its set from here, by the name that says what it means.
"""
from __future__ import annotations

FAILED = frozenset({"failed", "crashed", "stopped", "error"})  # ended without succeeding: a failure to diagnose
SUCCEEDED = frozenset({"completed", "succeeded"})  # ended well: nothing to diagnose
ENDED = FAILED | SUCCEEDED  # a run that is over, well or not (Option B with intent "terminal")
ACTIVE = frozenset({"pending", "running"})  # not over: diagnosed only with a confirmed failure symptom
SUSPENDED = frozenset({"suspended"})  # paused by a user: out of scope
DIAGNOSABLE = FAILED | ACTIVE  # every other phase is "not terminal": no category is assigned

# how the list API spells the phases triage asks for with a server-side filter (it lists failures in its window
# and the active runs now; the API's other failed spellings are not phases it filters on)
LISTED_FAILED: tuple[str, ...] = ("Failed", "Stopped")
LISTED_ACTIVE: tuple[str, ...] = ("Running", "Pending")


def norm(phase: str | None) -> str:
    """The phase as the table spells it (Run:ai reports e.g. "Failed"; a missing phase is "")."""
    return (phase or "").lower()
