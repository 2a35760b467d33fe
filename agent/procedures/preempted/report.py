"""Step 5 — the report: the reason on line one, its owner, every preemption cited, the quota per node pool and the
recommendations the reason's record gives. Missing figures are said to be missing, never filled; the text and the
JSON come from one ``PreemptionResult`` and a final redaction pass runs over both."""
from __future__ import annotations

from workload_diagnose.agent.model.findings import Limitation, limitations, ordered
from workload_diagnose.agent.model.outcomes import Outcome, Route
from workload_diagnose.agent.model.preemption import (PoolOut, PreemptionOut, PreemptionResult, QuotaOut,
                                                      SchedulingOut)
from workload_diagnose.agent.model.result import EvidenceLine, RecurrenceOut, ToolCall, WorkloadRef
from workload_diagnose.agent.model.time import iso, parse_time
from workload_diagnose.agent.procedures.kit.context import Context
from workload_diagnose.agent.procedures.kit.render import settle_findings, closing_sections, dedupe, final_redaction, injections
from workload_diagnose.agent.procedures.kit.routing import command_of
from workload_diagnose.agent.procedures.preempted import evidence as ev
from workload_diagnose.agent.procedures.preempted.state import State, Step
from workload_diagnose.agent.taxonomy.preemption import BY_NAME, FALLBACK, PreemptionContext, gpus

ANSWERS_NOT_PREEMPTED = "runai_failed"  # the registered procedure that answers a workload that was not preempted


def build_result(state: State, ctx: Context) -> PreemptionResult:
    req, w = state.request, state.workload
    ref = WorkloadRef(id=w.id if w else (req.workload_id or None), name=w.name if w else req.workload_name,
                      project=w.projectName if w else req.project, cluster_id=w.clusterId if w else req.cluster_id,
                      phase=w.phase if w else None)
    res = PreemptionResult(outcome=Outcome.DIAGNOSED.value, workload=ref)
    res.tool_calls = [ToolCall(tool=c.tool, request=c.request, status=c.status) for c in ordered(state.calls)]
    res.ignored_instructions = injections(ctx.runai, None)
    found = list(state.limitations)
    stop = state.stop
    if stop is not None:
        res.outcome, res.route, res.question = stop.outcome.value, stop.route.value, stop.question
        res.next = command_of(ANSWERS_NOT_PREEMPTED) if stop.route == Route.NOT_PREEMPTED else None
        res.recommendations = [stop.message] if stop.message else []
        if res.next:
            res.recommendations.append(f"It is answered by: workload-diagnose {res.next} (the same cluster and "
                                       "workload).")
    elif state.undetermined:
        found += _undetermined(res, state)
    else:
        found += _diagnosed(res, state)
    settle_findings(res, found, Step.REPORT)
    res.report = render(res)
    return final_redaction(res)


# ------------------------------------------------------------------------------------------------ undetermined
def _undetermined(res: PreemptionResult, state: State) -> list[Limitation]:
    """No preemption notice, but the events or the history could not be read: the reason is the fallback one
    (which reads failed is in the limitations), and what to do is to read them again, never "not preempted"."""
    res.reason, res.owner = FALLBACK.name, FALLBACK.owner
    res.recommendations = [
        "Whether the workload was preempted cannot be told: no preemption was found in what could be read, but a "
        "read that would show one failed (see the limitations). Run `workload-diagnose preempted` again once the "
        "Run:ai API answers it; with Tier 2 access, the scheduler's events say it directly (kubectl get events -n "
        "<namespace> --field-selector reason=Evict).",
        f"If it was not preempted, `workload-diagnose {command_of(ANSWERS_NOT_PREEMPTED)}` on the same cluster and "
        "workload answers why it stopped."]
    return limitations(Step.VERDICT, "No preemption notice was found, and the evidence that would show one was not "
                                     f"read in full: the reason is {FALLBACK.name}, not \"not preempted\".")


# ------------------------------------------------------------------------------------------------ diagnosed
def _diagnosed(res: PreemptionResult, state: State) -> list[Limitation]:
    req = state.request
    st = state.status.data
    spec = state.spec.data if state.spec is not None and state.spec.ok else None
    project = state.project.data if state.project is not None and state.project.ok else None
    sched = ev.scheduling(st, spec)
    pool = ev.workload_pool(project, sched)
    latest = state.preemptions[-1]
    record = BY_NAME[latest.reason]
    res.reason, res.owner = record.name, record.owner
    notes: list[str] = []

    res.preemptions = [_out(p, state) for p in state.preemptions]
    lines = [EvidenceLine(source=n.source, text=n.text) for n in latest.notices]
    for p in reversed(state.preemptions[:-1]):
        lines += [EvidenceLine(source=n.source, text=n.text) for n in p.notices]
    lines += _scheduling_lines(sched, st)
    lines += _preemptor_lines(state)
    res.evidence = dedupe(lines)
    res.scheduling = SchedulingOut(priority_class=sched.priority_class, priority=sched.priority,
                                   preemptible=sched.preemptible,
                                   terminate_after_preemption=sched.terminate_after_preemption,
                                   node_pools=sched.node_pools)
    if project is not None:
        res.quota = QuotaOut(project=project.name, read_at=iso(req.now), workload_pool=pool.node_pool if pool else None,
                             pools=[PoolOut(node_pool=p.node_pool, deserved_gpus=p.deserved.gpu, limit_gpus=p.limit.gpu,
                                            over_quota_weight=p.over_quota_weight,
                                            allocated_gpus=p.allocated.gpu if p.allocated else None,
                                            allocated_non_preemptible_gpus=(p.allocated_non_preemptible.gpu
                                                                            if p.allocated_non_preemptible else None),
                                            over_quota=ev.over_quota(p)) for p in project.pools])
        if pool is None:
            notes.append("The node pool the workload ran in is not reported (or is not one of the project's pools): "
                         "its quota figures could not be matched to it.")
        elif not latest.figures_from_notice and record.rests_on_quota:
            notes.append(f"The project's quota figures are its state when read ({iso(req.now)}), not a record of the "
                         "moment of the preemption: the reason rests on them because the scheduler's notice did not "
                         "state the queues' figures.")
    inside = [p for p in state.preemptions if (t := parse_time(p.at)) is None or t >= req.cutoff]
    res.recurrence = RecurrenceOut(count=len(inside), lookback=req.lookback_text, recurring=len(inside) >= 2)
    if (t := parse_time(latest.at)) is not None and t < req.cutoff:
        notes.append(f"The latest preemption found ({latest.at}) is older than the {req.lookback_text} lookback "
                     f"window (from {iso(req.cutoff)}): it is not counted in the window.")
    if sched.preemptible is False:
        notes.append(f"The workload is reported non-preemptible ({sched.preemptible_from}), which the scheduler does "
                     "not preempt within the project's deserved quota: the preemption notice and that setting "
                     "disagree (a preemptibility changed after submission, or a minimum guaranteed runtime that "
                     "ended, would explain it).")
    if record is FALLBACK:
        notes.append("The preemption notice(s) do not say which mechanism preempted the workload (priority, reclaim, "
                     f"consolidation or Kueue), and no quota figure decides it: the reason is {record.name}, not a "
                     "guess.")
    c = PreemptionContext(project=project.name if project else w_project(state), requested_gpus=sched.requested_gpus,
                          preemptible=sched.preemptible, priority_class=sched.priority_class,
                          terminate_after_preemption=sched.terminate_after_preemption,
                          pool=ev.as_pool(pool) if pool is not None else None,
                          other_pools=ev.other_pools(project, pool),
                          preemptors=tuple(f"{a}/{b}" for a, b in _distinct_preemptors(state.preemptions)[-3:]),
                          detail=latest.detail, count=len(inside), lookback=req.lookback_text)
    recos = record.recommend(c)
    if res.recurrence.recurring:
        by = _by_whom(res.preemptions)
        recos.append(f"Recurring: {len(inside)} preemptions in the last {req.lookback_text}{by}. An unchanged rerun "
                     "will be preempted again: apply one of the changes above.")
    res.recommendations = recos
    return limitations(Step.VERDICT, *notes)


def w_project(state: State) -> str | None:
    return state.workload.projectName if state.workload is not None else None


def _distinct_preemptors(preemptions: list[ev.Preemption]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for p in preemptions:
        if p.preemptor is not None and p.preemptor not in out:
            out.append(p.preemptor)
    return out


def _out(p: ev.Preemption, state: State) -> PreemptionOut:
    o = PreemptionOut(at=p.at, reason=p.reason, source=p.notices[0].source)
    if p.preemptor is not None:
        ns, name = p.preemptor
        o.preemptor = f"{ns}/{name}"
        o.preemptor_project = ev.preemptor_project(ns)
        r = state.preemptors.get(o.preemptor)
        if r is not None and r.ok and r.data:
            top = r.data[0]
            o.preemptor_type = top.type
            pc, prio = ev.extra(top, "priorityClassName"), ev.extra(top, "priority")
            if isinstance(pc, str) or isinstance(prio, int):
                o.preemptor_priority = f"{pc or 'class not reported'}" + (f" ({prio})" if isinstance(prio, int)
                                                                          and not isinstance(prio, bool) else "")
    return o


def _by_whom(outs: list[PreemptionOut]) -> str:
    """", always by Inference workloads of project X" when every preemption names the same project (and type);
    ", by a Training workload of project X" for a single one."""
    projects = {o.preemptor_project for o in outs}
    if not outs or None in projects or len(projects) != 1:
        return ""
    types = {o.preemptor_type for o in outs}
    kind = types.pop() if len(types) == 1 and None not in types else None
    if len(outs) == 1:
        return f", by {'a ' + kind if kind else 'a'} workload of project {projects.pop()}"
    return f", always by {kind + ' ' if kind else ''}workloads of project {projects.pop()}"


def _scheduling_lines(sched: ev.Scheduling, st) -> list[EvidenceLine]:
    out = []
    if sched.priority_class is not None or sched.priority is not None:
        prio = f" (priority {sched.priority})" if sched.priority is not None else ""
        out.append(EvidenceLine(source=sched.priority_class_from or ev.S_STATUS,
                                text=f"Priority class: {sched.priority_class or 'not reported'}{prio}"))
    if sched.preemptible is not None:
        out.append(EvidenceLine(source=sched.preemptible_from or ev.S_STATUS,
                                text="Preemptibility: " + ("preemptible (may use over-quota GPUs and be interrupted)"
                                                           if sched.preemptible else
                                                           "non-preemptible (runs only within deserved quota)")))
    else:
        out.append(EvidenceLine(source=ev.S_STATUS, text="Preemptibility: not reported by get_workload_status or "
                                                         "get_workload_spec"))
    if sched.terminate_after_preemption is not None:
        out.append(EvidenceLine(source=ev.S_SPEC, text=f"terminateAfterPreemption: "
                                                       f"{str(sched.terminate_after_preemption).lower()}"))
    if sched.node_pools:
        out.append(EvidenceLine(source=(sched.node_pools_from or ev.S_STATUS).split(" ")[0],
                                text=f"Node pools ({sched.node_pools_from.split(' ')[-1]}): "
                                     f"{', '.join(sched.node_pools)}"))
    return out


def _preemptor_lines(state: State) -> list[EvidenceLine]:
    out = []
    for key, r in state.preemptors.items():
        if r.ok and r.data:
            top = r.data[0]
            pc, prio = ev.extra(top, "priorityClassName"), ev.extra(top, "priority")
            out.append(EvidenceLine(source=ev.S_LIST, text=f"Preemptor {key}: type {top.type or 'not reported'}; "
                                                           f"priority class {pc or 'not reported'}"
                                                           + (f" (priority {prio})" if isinstance(prio, int) else "")
                                                           + f"; phase {top.phase or 'not reported'}"))
    return out


# ------------------------------------------------------------------------------------------------ rendering
def _pool_line(p: PoolOut) -> str:
    limit = "no limit" if p.limit_gpus is not None and p.limit_gpus < 0 else f"limit {gpus(p.limit_gpus)}"
    weight = f", over-quota weight {gpus(p.over_quota_weight)}" if p.over_quota_weight is not None else ""
    nonp = (f" ({gpus(p.allocated_non_preemptible_gpus)} non-preemptible)"
            if p.allocated_non_preemptible_gpus is not None else "")
    state = {True: " — above its deserved quota", False: " — within its deserved quota", None: ""}[p.over_quota]
    return (f"node pool {p.node_pool or 'not named'}: deserved {gpus(p.deserved_gpus)} GPUs ({limit}{weight}); "
            f"allocated {gpus(p.allocated_gpus)}{nonp}{state}")


def render(res: PreemptionResult) -> str:
    w = res.workload or WorkloadRef()
    if res.outcome == Outcome.DIAGNOSED.value:
        lines = [f"Reason: {res.reason} — {BY_NAME[res.reason].summary}", f"Owner: {res.owner}"]
    else:
        lines = [f"Reason: none ({res.outcome}: {res.route})"]
    lines.append(f"Workload: {w.name or 'not resolved'} | Phase: {w.phase or 'not reported'} | Project: "
                 f"{w.project or 'not given'} | Cluster: {w.cluster_id or 'not given'} | ID: {w.id or 'not resolved'}")
    if res.question:
        lines += ["", f"Question: {res.question}"]
    if res.evidence:
        lines += ["", "Evidence:"] + [f"- {e.text} (source: {e.source})" for e in res.evidence]
    if res.recurrence:
        r = res.recurrence
        by = _by_whom(res.preemptions)
        lines += ["", f"History: {r.count} preemption{'' if r.count == 1 else 's'} in the last {r.lookback} — "
                      f"{'recurring' if r.recurring else 'one-off'}{by}."]
    if res.quota is not None:
        q = res.quota
        lines += ["", f"Quota of project {q.project} (source: find_project, read at {q.read_at}; its state then, not "
                      "at the preemption):"] + [f"- {_pool_line(p)}" for p in q.pools]
        if not q.pools:
            lines.append("- no node pool quota was reported")
    elif res.outcome == Outcome.DIAGNOSED.value:
        lines += ["", "Quota: not read (see the limitations): deserved and allocated GPUs are missing."]
    lines += closing_sections(res, verdict=res.outcome == Outcome.DIAGNOSED.value)
    return "\n".join(lines) + "\n"


def text_report(res: PreemptionResult) -> str:
    return res.report
