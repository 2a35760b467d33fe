"""The triage result (the ``workload-diagnose triage --json`` contract) and its text rendering.

Each workload's verdict is taken from its own ``failed`` result, field for field: ``outcome``, ``category``,
``route``, ``recurrence``, and ``headline`` = the report's first line (the category), then its first cited
evidence line as the report prints it.
"""
from __future__ import annotations

from collections import Counter

from pydantic import BaseModel, Field

from workload_diagnose.agent.model.result import DiagnosisResult, RecurrenceOut, ToolCall, WorkloadRef


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


def assemble(req, listing, items: list, *, kube_unavailable: str | None) -> TriageResult:
    """The triage result from the listing and the diagnosed items (``run.Item``): the failing workloads newest
    first, their tallies, patterns and actions, what was left out or could not be read, and every request made."""
    from workload_diagnose.agent.model.time import lookback_words, parse_time
    from workload_diagnose.agent.triage.listing import window_of
    from workload_diagnose.agent.triage.patterns import patterns

    def newest_first(it) -> tuple:
        t = parse_time(it.workload.phaseUpdatedAt)
        return (-(t.timestamp() if t else 0.0), it.workload.id)

    kept = sorted((it for it in items if it.result is not None and (not it.active or it.result.outcome == "diagnosed")),
                  key=newest_first)
    verdicts = [verdict_of(it.result) for it in kept]
    counts, routed = tally(verdicts)
    clusters, actions = patterns(kept, lookback_words(req.since_text))
    limitations = list(listing.notes)
    healthy = [it for it in items if it.active and it.result is not None and it.result.outcome != "diagnosed"]
    if listing.active:
        limitations.append(f"{len(listing.active)} Running/Pending workload(s) were checked for an active failure "
                           f"(CrashLoopBackOff, image pull, mount); {len(healthy)} showed none and are not listed.")
    for it in items:
        if it.error is not None:
            limitations.append(f"Workload {it.workload.name} ({it.workload.id}) could not be diagnosed: {it.error}")
    if kube_unavailable:
        limitations.append(f"Tier 2 Kubernetes evidence was unavailable for every workload: {kube_unavailable}.")
    calls = [ToolCall(tool=c.tool, request=c.request, status=c.status) for c in listing.calls]
    seen: set[tuple[str, str]] = set()
    for it in items:
        for c in (it.result.tool_calls if it.result else []):
            key = (c.tool, c.request)
            if c.tool == "kubernetes" and key in seen:
                continue  # a shared Tier 2 read: made once, cited by every diagnosis that used it
            seen.add(key)
            calls.append(c)
    return TriageResult(cluster_id=req.cluster_id, window=window_of(req), counts=counts, routed=routed,
                        workloads=verdicts, clusters=clusters, actions=actions, limitations=limitations,
                        tool_calls=calls)
