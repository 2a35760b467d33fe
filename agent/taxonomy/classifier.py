"""The deterministic classifier: evidence signals → one category. It has the final say; no LLM can change it.

Rules (the skill's Step 4/5), read from the registry (``agent.taxonomy.registry``):
* the strongest direct signal wins, in the categories' precedence;
* a phase name alone, or the submitted spec alone, never produces a signal, so never a category;
* exit 137 without OOMKilled stays unresolved (the fallback category) unless node or policy evidence explains it;
* a signal that comes at or after a signal its rule yields to (``SignalRule.yields_to_earlier``: an application's
  exit after a node failure of the workload, a healthy rank failing once a peer's node is lost), within the rule's
  window of it (``yields_within``: a collective's timeout), is that one's symptom: it is set aside before the
  strongest direct signal is chosen (it stays in the report's evidence);
* a signal a record says another explains (``SignalRule.explains``: a GPU fault explains the application's exit)
  is that one's symptom, and a reading a record overrides on the same line (``overrides_on_line``) is a misreading:
  both are set aside before the strongest direct signal is chosen (they stay in the report's evidence);
* a category ``excluded_by_preemption`` only without a preemption signal (preemption is routed out before
  classification).
"""
from __future__ import annotations

from pydantic import BaseModel

from workload_diagnose.agent.model.signals import Kind, Signal
from workload_diagnose.agent.model.time import parse_time
from workload_diagnose.agent.taxonomy.record import Category
from workload_diagnose.agent.taxonomy.registry import (BY_NAME, CATEGORIES, EXPLAINS, NODE_EXPLAINABLE_KINDS,
                                                       OVERRIDES_ON_LINE, UNEXPLAINED_KINDS, UNKNOWN, YIELD_WINDOW,
                                                       YIELDS_TO_EARLIER)


class Verdict(BaseModel):
    category: str
    supporting: list[Signal]
    unresolved_137: bool = False
    sigterm: bool = False

    @property
    def entry(self) -> Category:
        return BY_NAME[self.category]

    @property
    def needs_metrics(self) -> bool:
        """Step 4: OOMKilled or an *unexplained* exit 137 → get_workload_metrics."""
        return self.entry.needs_metrics or self.unresolved_137

    @property
    def tier2_reason(self) -> str | None:
        return self.entry.tier2_reason(self)


def yielded(signals: list[Signal]) -> list[Signal]:
    """The signals that are the symptom of an earlier one (``SignalRule.yields_to_earlier``): dated at or after a
    dated signal of a kind their rule yields to, and within the rule's window of it (``yields_within``, from the
    evidence). A signal without a usable time is never set aside."""
    times: dict[Kind, list] = {}
    for s in signals:
        t = parse_time(s.at)
        if t is not None:
            times.setdefault(s.kind, []).append(t)
    windows = {k: w(signals) for k, w in YIELD_WINDOW.items() if k in times}
    out = []
    for s in signals:
        t = parse_time(s.at) if s.kind in YIELDS_TO_EARLIER else None
        win = windows.get(s.kind)
        if t is not None and any(u <= t and (win is None or t - u <= win)
                                 for k in YIELDS_TO_EARLIER[s.kind] for u in times.get(k, ())):
            out.append(s)
    return out


def causes(signals: list[Signal]) -> list[Signal]:
    """The signals that may decide: without the symptoms another signal explains and the misreadings of a line
    another reading overrides (the records' ``explains`` / ``overrides_on_line``)."""
    kinds = {s.kind for s in signals}
    explained = frozenset(k for e in kinds for k in EXPLAINS.get(e, ()))
    lines = {(s.source, s.text, k) for s in signals for k in OVERRIDES_ON_LINE.get(s.kind, ())}
    return [s for s in signals if s.kind not in explained and (s.source, s.text, s.kind) not in lines]


def classify(signals: list[Signal]) -> Verdict:
    kinds = {s.kind for s in signals}
    preempted = Kind.PREEMPTED in kinds
    aside = yielded(signals)
    deciding = [s for s in causes(signals) if s not in aside] if aside else causes(signals)
    for cat in CATEGORIES:
        if not cat.kinds or (cat.excluded_by_preemption and preempted):
            continue
        hits = [s for s in deciding if s.kind in cat.kinds]
        if hits:
            return Verdict(category=cat.name, supporting=hits)
    return Verdict(category=UNKNOWN.name, supporting=[s for s in signals if s.kind in UNEXPLAINED_KINDS],
                   unresolved_137=Kind.EXIT_137 in kinds, sigterm=Kind.SIGTERM in kinds)


def reads_node(signals: list[Signal]) -> bool:
    """Tier 2: read the node when evidence of a category that reads it is present (even if another category wins),
    when the verdict's category reads it (the fallback: node conditions are one of the causes the skill names), or
    when the verdict rests on a kind a node-read category's signal would explain (an application's exit may be the
    symptom of the node's GPU fault: only the node can say)."""
    kinds = {s.kind for s in signals}
    if any(c.reads_node and c.kinds & kinds for c in CATEGORIES):
        return True
    v = classify(signals)
    return v.entry.reads_node or any(s.kind in NODE_EXPLAINABLE_KINDS for s in v.supporting)
