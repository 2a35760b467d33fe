"""The report: the reason on line one, its owner, how long it has waited, every wait message and figure cited with
its read, what to do. Missing figures are stated as missing, never filled. The text and the JSON come from one
``PendingResult``; a final redaction pass runs over both (evidence was redacted when it was read)."""
from __future__ import annotations

from workload_diagnose.agent.model.findings import limitations, ordered
from workload_diagnose.agent.model.outcomes import Outcome
from workload_diagnose.agent.model.pending import PendingResult, PoolCapacity, PoolQuotaOut, QuotaOut, Requested
from workload_diagnose.agent.model.result import EvidenceLine, ToolCall, WorkloadRef
from workload_diagnose.agent.procedures.kit.context import Context
from workload_diagnose.agent.procedures.kit.render import settle_findings, closing_sections, dedupe, injections, ordered_signals
from workload_diagnose.agent.procedures.kit.routing import next_command
from workload_diagnose.agent.procedures.pending import constraints as cons
from workload_diagnose.agent.procedures.pending import evidence as pev
from workload_diagnose.agent.procedures.pending import figures as fig
from workload_diagnose.agent.procedures.pending.state import State, Step
from workload_diagnose.agent.taxonomy.pending_record import WaitContext
from workload_diagnose.agent.taxonomy.pending_registry import reason as reason_record
from workload_diagnose.agent.taxonomy.registry import DIRECT_FAILURE_KINDS
from workload_diagnose.agent.model.signals import Kind


def build_result(state: State, ctx: Context) -> PendingResult:
    req, w, stop = state.request, state.workload, state.stop
    ref = WorkloadRef(id=w.id if w else (req.workload_id or None), name=w.name if w else req.workload_name,
                      project=w.projectName if w else req.project, cluster_id=w.clusterId if w else req.cluster_id,
                      phase=w.phase if w else None)
    res = PendingResult(outcome=stop.outcome.value if stop else Outcome.DIAGNOSED.value, workload=ref,
                        route=stop.route.value if stop else None, question=stop.question if stop else None,
                        next=state.next)
    found = list(state.limitations)
    res.tool_calls = [ToolCall(tool=c.tool, request=c.request, status=c.status) for c in ordered(state.calls)]
    res.ignored_instructions = injections(ctx.runai, state.kube)
    waits = [EvidenceLine(source=x.source, text=x.text) for x in state.waits]
    if stop is not None:
        shown = [s for s in ordered_signals(state.signals) if s.kind in DIRECT_FAILURE_KINDS | {Kind.POD_SCHEDULED}]
        res.evidence = dedupe([EvidenceLine(source=s.source, text=s.text) for s in shown] + waits)
        res.recommendations = [stop.message] if stop.message else []
    else:
        found += _diagnosed(res, state, waits)
    settle_findings(res, found, Step.REPORT)
    res.report = render(res)
    return _redacted(res)


def _diagnosed(res: PendingResult, state: State, waits: list[EvidenceLine]) -> list:
    rec = reason_record(state.reason)
    res.reason, res.owner = rec.name, rec.owner
    st = state.status.data
    found = []
    requested = pev.requested(st)
    res.requested = requested
    res.waited, why = pev.waited(st, state.request.now)
    if why:
        found += limitations(Step.VERDICT, why)
    pools = state.pools
    project = fig.ok_data(state.project)
    node_pools = fig.ok_data(state.node_pools)
    capacity = [fig.ok_data(r) for r in state.capacity]
    nodes = {p: r.data for p, r in zip(pools, state.nodes) if r.ok}
    spec_c = cons.of_spec(fig.ok_data(state.spec)) if state.spec is not None else None
    mismatches = cons.mismatches(spec_c, node_pools, nodes, pools) if spec_c or state.nodes else []
    lines = [EvidenceLine(source=x.source, text=x.text) for x in state.waits if x.reason == rec.name] + waits
    lines.append(EvidenceLine(source="get_workload_status", text=_requested_text(requested)))
    lines += fig.quota_lines(project, pools)
    lines += fig.pool_lines(node_pools, [c for c in capacity if c is not None], pools)
    if spec_c is not None:
        lines += cons.spec_lines(spec_c)
    lines += fig.node_lines([n for ns in nodes.values() for n in ns])
    lines += [EvidenceLine(source="get_workload_spec" if spec_c else "list_nodes", text=f"Spec vs nodes: {m}")
              for m in mismatches]
    if state.kube is not None:
        lines += state.kube.lines
    res.evidence = dedupe(lines)
    if project is not None:
        shown = [p for p in project.pools if p.node_pool in pools] if pools else project.pools
        res.quota = QuotaOut(project=project.name, node_pools=[PoolQuotaOut(
            node_pool=p.node_pool, deserved_gpus=p.deserved.gpu, limit_gpus=p.limit.gpu,
            allocated_gpus=p.allocated.gpu if p.allocated else None,
            allocated_non_preemptible_gpus=p.allocated_non_preemptible.gpu if p.allocated_non_preemptible else None)
            for p in shown])
    res.capacity = _capacity(pools, node_pools, capacity)
    ctx = _context(state, requested, project, capacity, mismatches)
    res.recommendations = rec.recommend(ctx) + (state.kube.recommendations if state.kube else [])
    if state.preempted:
        cmd = next_command("preempted")
        res.recommendations.append("It was preempted before it waited again: "
                                   + (f"`{cmd}` explains the preemption." if cmd else
                                      "the preempted-workload diagnosis explains the preemption."))
    return found


def _requested_text(r: Requested) -> str:
    parts = [f"{fig.fmt(r.gpus)} GPU(s) for the workload (workloadRequestedResources)" if r.gpus is not None else
             "GPUs for the workload not reported",
             f"{fig.fmt(r.gpus_per_pod)} GPU(s) per pod (podsRequestedResources)" if r.gpus_per_pod is not None else
             "GPUs per pod not reported",
             f"{r.pods} pod(s) (requestedPods)" if r.pods is not None else "pod count not reported"]
    pools = ", ".join(r.node_pools) or "not reported"
    pre = {True: "yes", False: "no", None: "not reported"}[r.preemptible]
    return f"Requested: {'; '.join(parts)}; node pools: {pools}; preemptible: {pre}"


def _capacity(pools: list[str], node_pools: list | None, capacity: list) -> list[PoolCapacity]:
    by_name = {p.name: p for p in node_pools or []}
    gpus = {c.node_pool: c for c in capacity if c is not None}
    out = []
    for name in pools:
        p, g = by_name.get(name), gpus.get(name)
        if p is None and g is None:
            continue
        out.append(PoolCapacity(node_pool=name, phase=p.phase if p else None, nodes=len(p.nodes) if p else None,
                                total_gpus=g.total if g else None, allocated_gpus=g.allocated if g else None,
                                free_gpus=g.free if g else None, at=g.at if g else None))
    return out


def _context(state: State, r: Requested, project, capacity: list, mismatches: list[str]) -> WaitContext:
    pool = state.pools[0] if state.pools else None
    pq = project.pool(pool) if project is not None and pool else None
    g = next((c for c in capacity if c is not None and c.node_pool == pool), None)
    others = tuple(f"{c.node_pool} ({fig.fmt(c.free)} free)" for c in capacity
                   if c is not None and c.node_pool != pool and c.free)
    if r.gpus is not None:
        asked = f"{fig.fmt(r.gpus)} GPU(s)"
    elif r.gpus_per_pod is not None:
        asked = f"{fig.fmt(r.gpus_per_pod)} GPU(s) per pod" + (f" for {r.pods} pod(s)" if r.pods is not None else "")
    else:
        asked = None
    listed = state.pods.data if state.pods is not None and state.pods.ok else None
    gang = (f"{r.pods if r.pods is not None else 'an unreported number of'} pod(s) requested, "
            f"{len(listed)} pod(s) listed") if listed is not None else None
    w = state.workload
    return WaitContext(
        project=project.name if project is not None else w.projectName, pool=pool, requested=asked,
        deserved=fig.fmt(pq.deserved.gpu) if pq else None,
        allocated=fig.fmt(pq.allocated.gpu) if pq and pq.allocated else None,
        limit=fig.fmt(pq.limit.gpu) if pq and not pq.unlimited else None, free=fig.fmt(g.free) if g else None,
        total=fig.fmt(g.total) if g else None, other_pools=others, preemptible=r.preemptible,
        mismatches=tuple(mismatches), gang=gang, namespace=w.namespace,
        first_pod=listed[0].name if listed else None)


# ------------------------------------------------------------------------------------------------ rendering
def render(res: PendingResult) -> str:
    w = res.workload or WorkloadRef()
    rec = reason_record(res.reason) if res.reason else None
    lines = [f"Reason: {res.reason} ({rec.summary})" if rec else f"Reason: none ({res.outcome}: {res.route})"]
    lines.append(f"Workload: {w.name or 'not resolved'} | Phase: {w.phase or 'not reported'} | Project: "
                 f"{w.project or 'not given'} | Cluster: {w.cluster_id or 'not given'} | ID: {w.id or 'not resolved'}")
    if res.owner:
        lines.append(f"Owner: {res.owner}")
    if res.waited:
        lines.append(f"Waiting: {res.waited.text} (Pending since {res.waited.since})")
    if res.question:
        lines += ["", f"Question: {res.question}"]
    if res.evidence:
        lines += ["", "Evidence:"] + [f"- {e.text} (source: {e.source})" for e in res.evidence]
    lines += closing_sections(res, verdict=bool(res.reason))
    return "\n".join(lines) + "\n"


def _redacted(res: PendingResult) -> PendingResult:
    from workload_diagnose import guardrails

    return PendingResult.model_validate(guardrails.redact_value(res.model_dump(mode="json")))
