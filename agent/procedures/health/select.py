"""Which listed workloads the attention rules pick, in the order their diagnoses run."""
from __future__ import annotations

from datetime import datetime

from workload_diagnose.agent.evidence import attention as att
from workload_diagnose.agent.model.time import parse_time


def _newest(w) -> float:
    t = parse_time(w.phaseUpdatedAt)
    return -(t.timestamp() if t else 0.0)


def plan(listed: list, now: datetime, cutoff: datetime) -> list[tuple]:
    """(workload, its candidate rules) for every listed workload that has one, in the order diagnoses run: the
    first rule's precedence, then the newest phase update."""
    out = []
    for w in listed:
        rules = att.candidates(w, now, cutoff)
        if rules:
            out.append((w, rules))
    return sorted(out, key=lambda x: (x[1][0].precedence, _newest(x[0]), x[0].id))
