"""The snapshot's result and report: the state on line one, then the five parts (counts by phase, the workloads
that need attention, recent failures by category, quota per node pool, the next action per item), every item
citing the read it comes from. A part whose read failed is omitted and a limitation says why. The text and the
JSON come from one ``HealthResult``; a final redaction pass runs over both (evidence was redacted when read)."""
from __future__ import annotations

from collections import Counter
from typing import Any

from workload_diagnose.agent.evidence import attention as att
from workload_diagnose.agent.evidence.common import quote
from workload_diagnose.agent.model import phases
from workload_diagnose.agent.model.findings import limitations, ordered
from workload_diagnose.agent.model.health import (AttentionItem, FailuresOut, HealthResult, PoolUse, ScopeOut,
                                                  ScopeQuota)
from workload_diagnose.agent.model.outcomes import Outcome
from workload_diagnose.agent.model.result import EvidenceLine, ToolCall
from workload_diagnose.agent.procedures.health.select import plan
from workload_diagnose.agent.procedures.health.state import State, Step
from workload_diagnose.agent.procedures.kit.context import Context
from workload_diagnose.agent.procedures.kit.render import settle_findings, closing_sections, dedupe, final_redaction, injections
from workload_diagnose.agent.procedures.kit.routing import command_of
from workload_diagnose.agent.taxonomy.health_states import BY_NAME as STATES
from workload_diagnose.agent.taxonomy.health_states import state_of
from workload_diagnose.tools.timeutil import iso

PROGRAM = "workload-diagnose"
S_LIST, S_PROJECT = "list_workloads", "find_project"


def report(state: State, runtime: Any) -> dict:
    """The graph's last node: the result from everything read."""
    runtime.context.step("report")
    return {"result": build_result(state, runtime.context)}


def build_result(state: State, ctx: Context) -> HealthResult:
    req, stop = state.request, state.stop
    res = HealthResult(outcome=stop.outcome.value if stop else Outcome.DIAGNOSED.value,
                       route=stop.route.value if stop else None, question=stop.question if stop else None,
                       scope=ScopeOut(cluster_id=req.cluster_id, project=req.project, department=req.department))
    found = list(state.limitations)
    res.tool_calls = [ToolCall(tool=c.tool, request=c.request, status=c.status) for c in ordered(state.calls)]
    res.ignored_instructions = injections(ctx.runai, None)
    if stop is not None:
        res.recommendations = [stop.message] if stop.message else []
    else:
        res.window = {"since": iso(req.cutoff), "until": iso(req.now), "lookback": req.lookback}
        found += _snapshot(res, state)
    settle_findings(res, found, Step.REPORT)
    res.report = render(res)
    return final_redaction(res)  # type: ignore[return-value]


def _snapshot(res: HealthResult, state: State) -> list:
    req = state.request
    found: list = []
    lines: list[EvidenceLine] = []
    listing = state.listing if state.listing is not None and state.listing.ok else None
    severities: list[str] = []
    if listing is not None:
        listed = listing.data or []
        res.listed = len(listed)
        res.counts = dict(sorted(Counter(w.phase or "not reported" for w in listed).items(),
                                 key=lambda x: (-x[1], x[0])))
        by_id = {d.workload_id: d for d in state.diagnosed}
        for w, rules in plan(listed, req.now, req.cutoff):
            item, notes = _item(w, rules, by_id.get(w.id), w.id in state.skipped, state)
            found += limitations(Step.ATTENTION, *notes)
            if item is None:
                continue
            res.attention.append(item)
            severities.append(item.severity)
            lines.append(EvidenceLine(source=S_LIST, text=_listed_line(w)))
            d = by_id.get(w.id)
            if d is not None and item.verdict is not None:
                lines += [e for e in d.evidence]
        res.failures = _failures(state)
        found += limitations(Step.ATTENTION, *_idle_unknown(listed), *_not_diagnosed(state))
    complete = listing is not None and not listing.notes
    res.state = state_of(severities, complete).name
    if state.quota is not None and state.quota.ok:
        res.quota, qlines = _quota(state.quota.data)
        lines += qlines
    res.evidence = dedupe(lines)
    res.recommendations = [_recommendation(i) for i in res.attention]
    return found


def _item(w, rules: list, d, skipped: bool, state: State) -> tuple[AttentionItem | None, list[str]]:
    """The one attention item of a listed workload: its first rule that holds (a rule whose count a verdict must
    confirm holds only when it does), or None."""
    notes: list[str] = []
    for rule in rules:
        verdict = d.verdict if d is not None and d.rule == rule.name else None
        if rule.min_count is not None:
            if verdict is None:
                why = "the diagnosis limit was reached" if skipped else \
                    (d.error if d is not None and d.rule == rule.name and d.error else "it was not diagnosed")
                notes.append(f"Workload {w.name or w.id} ({w.id}) shows preemption, but how many times it was "
                             f"preempted is not known ({why}): it is not counted as {rule.name}.")
                continue
            if not att.confirmed(rule, verdict.preemptions):
                continue
        return AttentionItem(
            rule=rule.name, severity=rule.severity, owner=rule.owner, workload_id=w.id, workload_name=w.name,
            project=w.projectName, phase=w.phase, since=w.phaseUpdatedAt, figures=_figures(w, rule, verdict),
            source=S_LIST, verdict=verdict,
            not_diagnosed=_why_not(rule, d, skipped) if rule.diagnose and verdict is None else None,
            next=_next(rule, w, state)), notes
    return None, notes


def _why_not(rule, d, skipped: bool) -> str:
    if d is not None and d.rule == rule.name and d.error:
        return f"the diagnosis could not finish: {d.error}"
    return "not diagnosed: the diagnosis limit was reached" if skipped else "not diagnosed"


def _figures(w, rule, verdict) -> list[str]:
    out = [f"phase {w.phase or 'not reported'} since {w.phaseUpdatedAt or 'not reported'}"]
    if rule.idle_above is not None:
        alloc = (w.allocatedResources or {}).get("gpu") if isinstance(w.allocatedResources, dict) else None
        out.append(f"idleAllocatedGpus {_fmt(att.idle_gpus(w))}"
                   + (f" of allocated gpu {_fmt(alloc)}" if isinstance(alloc, (int, float)) else ""))
    if verdict is not None and verdict.preemptions is not None:
        out.append(f"preempted {verdict.preemptions} time(s) in the lookback (the preempted diagnosis)")
    return out


def _fmt(v) -> str:
    if v is None:
        return "not reported"
    return str(int(v)) if float(v).is_integer() else f"{v:g}"


def _next(rule, w, state: State) -> str:
    if rule.answered_by is None:
        return rule.action
    cmd = command_of(rule.answered_by)
    req = state.request
    line = f"{PROGRAM} {cmd} --cluster-id {req.cluster_id} --workload-id {w.id}"
    if rule.intent != "terminal":
        line += f" --intent {rule.intent}"
    if req.lookback != "7d":
        line += f" --lookback {req.lookback}"
    return line


def _listed_line(w) -> str:
    parts = [f"Listed workload {w.name or w.id}: Phase: {w.phase or 'not reported'}"
             + (f" since {w.phaseUpdatedAt}" if w.phaseUpdatedAt else "")]
    if w.k8sPhase:
        parts.append(f"k8sPhase: {w.k8sPhase}")
    if w.phaseMessage:
        parts.append(f"phaseMessage: \"{quote(w.phaseMessage)}\"")
    for c in w.conditions:
        if c.reason or c.message:
            parts.append(f"condition {c.type}={c.status}; reason: {c.reason or 'none'}; message: "
                         f"\"{quote(c.message)}\"")
    idle = att.idle_gpus(w)
    if idle is not None and phases.norm(w.phase) == "running":
        parts.append(f"idleAllocatedGpus {_fmt(idle)}")
    return "; ".join(parts)


def _failures(state: State) -> FailuresOut | None:
    ran = [d.verdict for d in state.diagnosed if d.verdict is not None and d.verdict.procedure == "runai_failed"]
    if not ran:
        return None
    cats = Counter(v.category for v in ran if v.outcome == "diagnosed" and v.category)
    routes = Counter(v.route for v in ran if v.outcome != "diagnosed" and v.route)
    order = lambda c: dict(sorted(c.items(), key=lambda x: (-x[1], x[0])))  # noqa: E731
    return FailuresOut(diagnosed=len(ran), by_category=order(cats), routed=order(routes))


def _idle_unknown(listed: list) -> list[str]:
    running = [w for w in listed if phases.norm(w.phase) == "running" and att.idle_gpus(w) is None]
    if not running:
        return []
    names = ", ".join(w.name or w.id for w in running[:5]) + (f" and {len(running) - 5} more" if len(running) > 5
                                                               else "")
    return [f"Run:ai reported no idle-GPU figure (idleAllocatedGpus, from its GPU metrics) for {len(running)} "
            f"Running workload(s) ({names}): whether their GPUs are idle was not assessed."]


def _not_diagnosed(state: State) -> list[str]:
    out = [f"Workload {d.workload_id} could not be diagnosed: {d.error}" for d in state.diagnosed if d.error]
    if state.skipped:
        out.append(f"Per-workload diagnoses are limited to {state.request.max_diagnoses}: {len(state.skipped)} more "
                   "workload(s) were not diagnosed (their next action names the command that answers them).")
    return out


def _quota(project) -> tuple[ScopeQuota, list[EvidenceLine]]:
    pools, lines = [], []
    for p in project.pools:
        alloc = p.allocated.gpu if p.allocated else None
        nonp = p.allocated_non_preemptible.gpu if p.allocated_non_preemptible else None
        over = None if alloc is None or p.deserved.gpu is None else alloc > p.deserved.gpu
        pools.append(PoolUse(node_pool=p.node_pool, deserved_gpus=p.deserved.gpu, limit_gpus=p.limit.gpu,
                             allocated_gpus=alloc, allocated_non_preemptible_gpus=nonp, over_quota=over))
        lim = "no GPU limit" if p.unlimited else f"limit {_fmt(p.limit.gpu)} GPUs"
        lines.append(EvidenceLine(source=S_PROJECT, text=(
            f"Project {project.name} in node pool {p.node_pool}: deserved {_fmt(p.deserved.gpu)} GPUs, {lim}, "
            f"allocated {_fmt(alloc)} GPUs (non-preemptible {_fmt(nonp)})")))
    return ScopeQuota(project=project.name, node_pools=pools), lines


def _recommendation(i: AttentionItem) -> str:
    who = f"{i.workload_name or i.workload_id} ({i.rule}, owner {i.owner})"
    if i.verdict is not None:
        return f"{who}: {i.verdict.headline} per the {i.verdict.procedure} diagnosis; full answer: `{i.next}`"
    if i.next.startswith(PROGRAM):
        return f"{who}: `{i.next}` answers why."
    return f"{who}: {i.next}"


# ------------------------------------------------------------------------------------------------ rendering
def render(res: HealthResult) -> str:
    s = res.scope or ScopeOut()
    rec = STATES.get(res.state or "")
    lines = [f"State: {res.state} ({rec.definition})" if rec else f"State: none ({res.outcome}: {res.route})"]
    what = f"project {s.project}" if s.project else (f"department {s.department}" if s.department else "not given")
    lines.append(f"Scope: {what} | Cluster: {s.cluster_id or 'not given'}"
                 + (f" | Window: {res.window['since']} to {res.window['until']}" if res.window else ""))
    if res.question:
        lines += ["", f"Question: {res.question}"]
    if res.counts is not None:
        shown = ", ".join(f"{k} {v}" for k, v in res.counts.items()) or "none"
        lines += ["", f"Workloads by phase ({res.listed} listed): {shown} (source: {S_LIST})"]
    if res.counts is not None:
        lines += ["", "Needs attention:" if res.attention else "Needs attention: none"]
        for i in res.attention:
            lines.append(f"- {i.workload_name or i.workload_id} [{i.rule}] owner {i.owner}: {'; '.join(i.figures)} "
                         f"(source: {i.source})")
            if i.verdict is not None:
                lines.append(f"    {i.verdict.procedure}: {i.verdict.headline}")
            elif i.not_diagnosed:
                lines.append(f"    {i.not_diagnosed}")
            lines.append(f"    next: {i.next}")
    if res.failures is not None:
        f = res.failures
        lines += ["", "Recent failures by category (the failed-workload diagnosis):"]
        lines += [f"- {c}: {n}" for c, n in f.by_category.items()]
        lines += [f"- not a category ({r}): {n}" for r, n in f.routed.items()]
    if res.quota is not None:
        lines += ["", f"Quota per node pool (source: {S_PROJECT}):"]
        for p in res.quota.node_pools:
            over = {True: " (over quota)", False: "", None: ""}[p.over_quota]
            lines.append(f"- {p.node_pool}: deserved {_fmt(p.deserved_gpus)} GPUs, allocated "
                         f"{_fmt(p.allocated_gpus)} GPUs{over}")
    if res.evidence:
        lines += ["", "Evidence:"] + [f"- {e.text} (source: {e.source})" for e in res.evidence]
    lines += closing_sections(res, verdict=res.state is not None)
    return "\n".join(lines) + "\n"
