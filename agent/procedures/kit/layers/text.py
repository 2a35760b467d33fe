"""The lifecycle layers as report lines: one line per phase and the layer to act on (the lifecycle view and the
Run:ai report's pod walk print them alike)."""
from __future__ import annotations

from workload_diagnose.agent.model import lifecycle as lc
from workload_diagnose.agent.model.lifecycle import Layer, Phase, first_incomplete

MARKERS = {"done": "[x]", "active": "[>]", "warning": "[!]", "skipped": "[-]", "pending": "[ ]"}


def phase_lines(phases: list[Phase]) -> list[str]:
    """One line per phase (marker, name, status, detail) and its tip while it is not complete."""
    lines: list[str] = []
    width = max(len(p.name) for p in phases) if phases else 0
    for p in phases:
        extra = "" if p.name in lc.LISTED_PHASES else "  (extra phase: not counted)"
        lines.append(f"  {MARKERS[p.status]} {p.name:<{width}}  {p.status:<7}  {p.detail}{extra}")
        if p.hint and not p.complete:
            lines.append(f"      tip: {p.hint}")
    return lines


def layer_of(phases: list[Phase]) -> tuple[Phase | None, Layer | None]:
    """The first incomplete listed phase and the layer to act on (its owner and next action)."""
    first = first_incomplete(phases)
    return first, (Layer(name=first.name, owner=first.owner, next_action=first.next_action) if first else None)
