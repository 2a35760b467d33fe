"""The triage result (the ``workload-diagnose triage --json`` contract) and its text rendering.

Each workload's verdict is taken from its own ``failed`` result, field for field: ``outcome``, ``category``,
``route``, ``recurrence``, and ``headline`` = the report's first line (the category), then its first cited
evidence line as the report prints it.
"""
from __future__ import annotations

import re
from collections import Counter
from difflib import SequenceMatcher

from pydantic import BaseModel, Field

from workload_diagnose.agent.model.lines import decisive
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


_HEADLINE_PREFIX = re.compile(r"^Category: [^—]*— ")
_SOURCE_SUFFIX = re.compile(r"(?: at \d{4}-\d\d-\d\dT[\d:.]+Z)? \(source: [^()]*\)$")
_REASON_MESSAGE = re.compile(r"\breason: (?P<reason>[^;]+); message: \"(?P<message>.*)\"$")
_PHASE_MESSAGE = re.compile(r"\bphaseMessage: \"(?P<message>.*)\"$")
REASON_SEP = " · "
HEADLINE_LIMIT = 110  # characters of a headline when the output is not a terminal (the evidence is in --json)
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
SHOWN_VARIANTS = 3  # the text report lists this many actions of a group (the HTML page lists them all)
SIMILAR = 0.8  # actions of one category whose texts (numbers aside) are this alike are one group


def verdict_text(v: WorkloadVerdict) -> str:
    """The CATEGORY column: the category, or what the procedure answered instead (a route)."""
    return v.category if v.outcome == "diagnosed" and v.category else f"{v.outcome}: {v.route}"


def evidence_words(headline_text: str) -> str:
    """The decisive words of a headline (``headline``): the cited evidence without the category (a column of its
    own), its source and time; an event's or phase's quoted message after its reason. '' when none was cited."""
    _, sep, rest = headline_text.partition(" — ")
    if not sep:
        return ""
    rest = _SOURCE_SUFFIX.sub("", rest)
    m = _REASON_MESSAGE.search(rest)
    if m:
        return f"{m.group('reason')}{REASON_SEP}{m.group('message')}"
    m = _PHASE_MESSAGE.search(rest)
    return m.group("message") if m else rest


def by_category(t: TriageResult) -> list[WorkloadVerdict]:
    """The workloads grouped by verdict: categories most frequent first (as counted), then the routes, then name."""
    order = {c: i for i, c in enumerate([*t.counts, *(f"{k}" for k in t.routed)])}
    return sorted(t.workloads, key=lambda v: (order.get(v.category if v.outcome == "diagnosed" else v.route or "",
                                                        len(order)), verdict_text(v), v.workload.name or "",
                                              v.workload.id or ""))


def group_actions(actions: list[dict]) -> list[dict]:
    """Near-identical actions (one category, texts alike but for their numbers or names) as one group:
    ``{action, fixes, category, workloads, variants}`` with ``variants`` the actions it groups, most fixes first."""
    groups: list[dict] = []
    for a in actions:
        key = _NUMBER.sub("#", a["action"])
        for g in groups:
            if g["category"] == a["category"] and SequenceMatcher(None, g["key"], key).ratio() >= SIMILAR:
                g["variants"].append(a)
                g["fixes"] += a["fixes"]
                g["workloads"] = sorted({*g["workloads"], *a.get("workloads", [])})
                break
        else:
            groups.append({"key": key, "action": a["action"], "fixes": a["fixes"], "category": a["category"],
                           "workloads": list(a.get("workloads", [])), "variants": [a]})
    out = [{k: v for k, v in g.items() if k != "key"} for g in groups]
    return sorted(out, key=lambda g: (-g["fixes"], g["category"], g["action"]))


def _table(rows: list[list[str]], columns: int | None) -> list[str]:
    """Rows as aligned columns; the last one cut (``lines.decisive``) to the terminal's width, else to
    ``HEADLINE_LIMIT``."""
    head = ["NAME", "PROJECT", "CATEGORY", "HEADLINE"]
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(3)]
    room = (columns - sum(widths) - 6) if columns else HEADLINE_LIMIT
    room = max(30, min(room, 400))
    out = []
    for r in [head, *rows]:
        cells = [r[i].ljust(widths[i]) for i in range(3)] + [r[3] if r is head else _cut(r[3], room)]
        out.append("  ".join(cells).rstrip())
    return out


def _cut(words: str, room: int) -> str:
    """A headline cut to ``room``: an event's reason stays whole, its message is cut (``lines.decisive``)."""
    reason, sep, message = words.partition(REASON_SEP)
    if sep and len(reason) + len(sep) + 20 <= room:
        return reason + sep + decisive(message, room - len(reason) - len(sep))
    return decisive(words, room)


def render(t: TriageResult, columns: int | None = None) -> str:
    """The text report: counts, patterns, grouped actions, then one table row per workload, by category.
    ``columns``: the terminal's width (long evidence is cut to fit; the full text is in ``--json``)."""
    w = t.window
    width = min(columns or HEADLINE_LIMIT + 40, 400)
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
            lines += [f"    {decisive(e['text'], width - 30)} (source: {e['source']})" for e in c["evidence"][1:]]
    if t.actions:
        lines += ["", "Top actions (by workloads fixed):"]
        for g in group_actions(t.actions)[:10]:
            lines.append(f"- [{g['fixes']}] {g['action']}")
            if len(g["variants"]) > 1:
                shown = g["variants"][:SHOWN_VARIANTS]
                lines += [f"    [{a['fixes']}] {decisive(a['action'], width - 12)}" for a in shown]
                if len(g["variants"]) > len(shown):
                    lines.append(f"    … and {len(g['variants']) - len(shown)} more like these")
    if t.workloads:
        rows = [[v.workload.name or v.workload.id or "?", v.workload.project or "-", verdict_text(v),
                 evidence_words(v.headline) or "-"] for v in by_category(t)]
        lines += ["", "Workloads:"] + _table(rows, columns)
        lines += ["", f"One workload in full: workload-diagnose failed --cluster-id {t.cluster_id} -p PROJECT "
                      "--workload-name NAME"]
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
