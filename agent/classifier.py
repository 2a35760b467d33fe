"""The deterministic classifier: evidence signals → one category. It has the final say; no LLM can change it.

Rules (the skill's Step 4/5):
* the strongest direct signal wins, in the precedence of ``agent.categories.CATEGORIES``;
* a phase name alone, or the submitted spec alone, never produces a signal, so never a category;
* exit 137 without OOMKilled stays unresolved (UNKNOWN) unless node or policy evidence explains it;
* NODE_FAILURE only without a preemption signal (preemption is routed out before classification).
"""
from __future__ import annotations

from pydantic import BaseModel

from agent.categories import CATEGORIES
from agent.signals import Kind, Signal


class Verdict(BaseModel):
    category: str
    supporting: list[Signal]
    unresolved_137: bool = False
    sigterm: bool = False


def classify(signals: list[Signal]) -> Verdict:
    kinds = {s.kind for s in signals}
    preempted = Kind.PREEMPTED in kinds
    for cat in CATEGORIES:
        if not cat.kinds:
            continue
        if cat.name == "NODE_FAILURE" and preempted:
            continue
        hits = [s for s in signals if s.kind in cat.kinds]
        if hits:
            return Verdict(category=cat.name, supporting=hits)
    return Verdict(category="UNKNOWN", supporting=[s for s in signals if s.kind in (Kind.EXIT_137, Kind.SIGTERM,
                                                                                       Kind.POD_ERROR,
                                                                                       Kind.CRASH_LOOP)],
                   unresolved_137=Kind.EXIT_137 in kinds, sigterm=Kind.SIGTERM in kinds)


def needs_metrics(signals: list[Signal]) -> bool:
    """Step 4: OOMKilled or *unexplained* exit 137 → get_workload_metrics (an eviction or policy explains it)."""
    return any(s.kind == Kind.OOM for s in signals) or classify(signals).unresolved_137
