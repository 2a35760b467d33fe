"""The triage result (the ``workload-diagnose triage --json`` contract) and its text rendering.

Each workload's verdict is taken from its own ``failed`` result, field for field: ``outcome``, ``category``,
``route``, ``recurrence``, and ``headline`` = the report's first line (the category), then its first cited
evidence line as the report prints it.
"""
from __future__ import annotations

from collections import Counter

from pydantic import BaseModel, Field

from agent.model.result import DiagnosisResult, RecurrenceOut, ToolCall, WorkloadRef


class WorkloadVerdict(BaseModel):
    workload: WorkloadRef
    outcome: str
    category: str | None = None
    route: str | None = None
    headline: str
    recurrence: RecurrenceOut | None = None


class TriageResult(BaseModel):
    cluster_id: str
    window: dict
    counts: dict[str, int] = Field(default_factory=dict)
    routed: dict[str, int] = Field(default_factory=dict)
    workloads: list[WorkloadVerdict] = Field(default_factory=list)
    clusters: list[dict] = Field(default_factory=list)
    actions: list[dict] = Field(default_factory=list)
    limitations: list[str] = Field(default_factory=list)
    tool_calls: list[ToolCall] = Field(default_factory=list)


def headline(res: DiagnosisResult) -> str:
    first = (res.report.splitlines() or [""])[0]
    if res.evidence:
        e = res.evidence[0]
        return f"{first} — {e.text} (source: {e.source})"
    return first


def verdict_of(res: DiagnosisResult) -> WorkloadVerdict:
    return WorkloadVerdict(workload=res.workload or WorkloadRef(), outcome=res.outcome, category=res.category,
                           route=res.route, headline=headline(res), recurrence=res.recurrence)


def tally(verdicts: list[WorkloadVerdict]) -> tuple[dict[str, int], dict[str, int]]:
    cats = Counter(v.category for v in verdicts if v.outcome == "diagnosed" and v.category)
    routes = Counter(v.route for v in verdicts if v.outcome != "diagnosed" and v.route)
    order = lambda c: sorted(c.items(), key=lambda x: (-x[1], x[0]))  # noqa: E731
    return dict(order(cats)), dict(order(routes))


def render(t: TriageResult) -> str:
    w = t.window
    lines = [f"Triage of cluster {t.cluster_id}: {len(t.workloads)} failed workload(s) from {w['since']} to "
             f"{w['until']} ({w['duration']})"]
    if t.counts:
        lines += ["", "Categories:"] + [f"- {c}: {n}" for c, n in t.counts.items()]
    if t.routed:
        lines += ["", "Routed / stopped (not diagnosed):"] + [f"- {r}: {n}" for r, n in t.routed.items()]
    if t.clusters:
        lines += ["", "Patterns:"]
        for c in t.clusters:
            lines.append(f"- {c['evidence'][0]['text']}")
            lines += [f"    {e['text']} (source: {e['source']})" for e in c["evidence"][1:]]
    if t.actions:
        lines += ["", "Top actions (by workloads fixed):"]
        lines += [f"- [{a['fixes']}] {a['action']}" for a in t.actions[:10]]
    if t.workloads:
        lines += ["", "Workloads:"]
        for v in t.workloads:
            verdict = v.category if v.outcome == "diagnosed" else f"{v.outcome}: {v.route}"
            lines.append(f"- {v.workload.name} ({v.workload.project}, {v.workload.id}): {verdict}")
    if t.limitations:
        lines += ["", "Limitations:"] + [f"- {x}" for x in t.limitations]
    return "\n".join(lines) + "\n"
