"""Step 5 — the report: category on line one, every evidence line quantified and cited, recurrence, next action.

Missing values are stated as missing, never filled. The rendered text and the JSON come from one
``DiagnosisResult``; a final redaction pass runs over both (defence in depth: evidence was redacted on entry).
"""
from __future__ import annotations

from workload_diagnose.agent.model.findings import Limitation, limitations, ordered
from workload_diagnose.agent.model.outcomes import Outcome
from workload_diagnose.agent.model.request import DiagnosisRequest
from workload_diagnose.agent.model.result import DiagnosisResult, EvidenceLine, RecurrenceOut, ToolCall, WorkloadRef
from workload_diagnose.agent.model.signals import Kind
from workload_diagnose.agent.model.time import iso
from workload_diagnose.agent.procedures.kit import evidence as ev
from workload_diagnose.agent.procedures.kit.context import Context
from workload_diagnose.agent.procedures.kit.peers import peer_evidence
from workload_diagnose.agent.procedures.kit.render import (settle_findings, closing_sections, dedupe, final_redaction, injections,
                                                          ordered_signals)
from workload_diagnose.agent.procedures.kit.routing import next_command
from workload_diagnose.agent.procedures.runai_failed.layers import report_lines as layer_lines
from workload_diagnose.agent.procedures.runai_failed.state import State, Step
from workload_diagnose.agent.taxonomy import RecoContext
from workload_diagnose.tools.base import ToolResult
from workload_diagnose.tools.quantity import fmt_bytes

def build_result(state: State, ctx: Context) -> DiagnosisResult:
    req = state.request
    w = state.workload
    ref = WorkloadRef(id=w.id if w else (req.workload_id or None), name=w.name if w else req.workload_name,
                      project=w.projectName if w else req.project, cluster_id=w.clusterId if w else req.cluster_id,
                      phase=w.phase if w else None)
    stop = state.stop
    diagnosed = stop is None and state.verdict is not None
    res = DiagnosisResult(outcome=Outcome.DIAGNOSED.value if diagnosed else stop.outcome.value,
                          route=None if diagnosed else stop.route.value, workload=ref,
                          question=None if diagnosed else stop.question,
                          next=None if diagnosed else next_command(stop.route.value))
    found = list(state.limitations)
    res.tool_calls = [ToolCall(tool=c.tool, request=c.request, status=c.status) for c in ordered(state.calls)]
    res.ignored_instructions = injections(ctx.runai, state.kube)
    if diagnosed:
        found += _diagnosed(res, state, req)
    else:
        res.category = None
        res.evidence = dedupe([EvidenceLine(source=s.source, text=s.text) for s in ordered_signals(state.signals)])
        if stop.message:
            res.recommendations = [stop.message]
        if res.next:
            res.recommendations.append(f"It is answered by: workload-diagnose {res.next} (the same cluster and "
                                       "workload).")
    settle_findings(res, found, Step.REPORT)
    res.lifecycle = state.kube.layers if state.kube else None
    res.report = render(res, outside_window=bool(diagnosed and state.recurrence
                                                  and not state.recurrence.current_in_window))
    return final_redaction(res)


# ------------------------------------------------------------------------------------------------ diagnosed
def _diagnosed(res: DiagnosisResult, state: State, req: DiagnosisRequest) -> list[Limitation]:
    """The category's evidence, corroborating facts and recommendation, as its taxonomy entry says."""
    v = state.verdict
    cat = v.entry
    res.category = cat.name
    all_sigs = list(state.signals) + (state.kube.signals if state.kube else [])
    lines: list[EvidenceLine] = [EvidenceLine(source=s.source, text=s.text) for s in ordered_signals(v.supporting)]
    lines += [EvidenceLine(source=s.source, text=s.text) for s in ordered_signals(all_sigs) if s not in v.supporting
              and s.kind not in (Kind.SCHEDULING_WAIT, Kind.POD_SCHEDULED)]
    spec = state.spec.data if state.spec and state.spec.ok else None
    pods = state.pods.data if state.pods and state.pods.ok else None
    limit, peak = None, None
    invalid: list[str] = []
    if v.needs_metrics:
        invalid = ev.invalid_memory_values(spec, state.status.data, pods)
        mem_lines, limit, peak = _memory_lines(state, req, spec, pods, bool(invalid))
        lines += mem_lines
    if cat.spec_lines:
        lines += [EvidenceLine(source=src, text=text) for src, text in ev.spec_context(spec)
                  if text.startswith(cat.spec_lines)]
    lines += [EvidenceLine(source=s, text=t) for s, t in peer_evidence(v.supporting, all_sigs, pods)]
    kube = state.kube
    if kube:
        lines += [EvidenceLine(source=s, text=t) for s, t in kube.lines]
    res.evidence = dedupe(lines)
    rec = state.recurrence
    if rec:
        res.recurrence = RecurrenceOut(count=rec.count, lookback=rec.lookback, recurring=rec.recurring)
    nodes = {p.nodeName for p in pods or [] if p.nodeName} | set(kube.nodes if kube else [])
    ctx = RecoContext(signals=all_sigs, memory_limit=limit, peak=peak, restart_policy=ev.spec_restart_policy(spec),
                      namespace=kube.namespace if kube else None, log_line=kube.log_line if kube else None,
                      log_source=kube.log_source if kube else None,
                      nodes=tuple(sorted(nodes)))
    recos = cat.recommend(ctx)
    if rec and rec.recurring:
        recos.append(f"Recurring: {rec.count} {cat.name} failures in the last {rec.lookback}. Apply a permanent fix "
                     "instead of an unchanged rerun.")
    res.recommendations = recos
    return limitations(Step.VERDICT, *invalid, *cat.limitations(v, ctx))


def _memory_lines(state: State, req: DiagnosisRequest, spec, pods,
                  invalid: bool) -> tuple[list[EvidenceLine], float | None, float | None]:
    out: list[EvidenceLine] = []
    facts = [f for f in [ev.spec_memory(spec), ev.status_memory(state.status.data)] if f] + ev.pods_memory(pods)
    seen_pod_vals = set()
    for f in facts:
        if f.source == "get_workload_pods":
            key = (f.request, f.limit)
            if key in seen_pod_vals:
                continue
            seen_pod_vals.add(key)
        out.append(EvidenceLine(source=f.source, text=f"{f.where} CPU memory request/limit: {fmt_bytes(f.request)} / "
                                                        f"{fmt_bytes(f.limit)}"))
    limit = next((f.limit for f in facts if f.limit is not None), None)
    limit_src = next((f.source for f in facts if f.limit is not None), None)
    if not facts:
        state_note = "The CPU memory request and limit were not reported by get_workload_spec, get_workload_status " \
                     "or get_workload_pods." if not invalid else "No valid CPU memory request or limit was reported " \
                     "by get_workload_spec, get_workload_status or get_workload_pods."
        out.append(EvidenceLine(source="get_workload_spec", text=state_note))
    peak = None
    m: ToolResult | None = state.metrics
    if m is not None and m.ok:
        mf = ev.metrics_fact(m.data)
        window = f"{iso(req.cutoff)} and {iso(req.now)}"
        if mf and mf.peak_usage is not None:
            peak = mf.peak_usage
            when = mf.peak_at or "time not reported"
            txt = (f"Peak CPU memory usage: {fmt_bytes(peak)} ({int(peak)} bytes) at {when}, from "
                   f"{mf.usage_samples} samples between {window}")
            if limit:
                txt += f"; {peak / limit * 100:.0f}% of the {fmt_bytes(limit)} limit (limit from {limit_src})"
            out.append(EvidenceLine(source="get_workload_metrics", text=txt))
        else:
            out.append(EvidenceLine(source="get_workload_metrics",
                                    text=f"No CPU-memory usage samples were recorded between {window}: no peak "
                                         "observed"))
        if mf and mf.limit_max is not None and limit is None:
            limit = mf.limit_max
            out.append(EvidenceLine(source="get_workload_metrics",
                                    text=f"CPU memory limit metric: {fmt_bytes(mf.limit_max)}"))
    if limit is None:
        out.append(EvidenceLine(source="get_workload_spec", text="Memory limit: not reported by any tool"
                                if not invalid else "Memory limit: no valid value reported by any tool"))
    return out, limit, peak


# ------------------------------------------------------------------------------------------------ rendering
def render(res: DiagnosisResult, *, outside_window: bool = False) -> str:
    w = res.workload or WorkloadRef()
    lines = []
    if res.outcome == "diagnosed":
        lines.append(f"Category: {res.category}")
    else:
        lines.append(f"Category: none ({res.outcome}: {res.route})")
    lines.append(f"Workload: {w.name or 'not resolved'} | Phase: {w.phase or 'not reported'} | Project: "
                 f"{w.project or 'not given'} | Cluster: {w.cluster_id or 'not given'} | ID: {w.id or 'not resolved'}")
    if res.question:
        lines += ["", f"Question: {res.question}"]
    if res.evidence:
        lines += ["", "Evidence:"]
        lines += [f"- {e.text} (source: {e.source})" for e in res.evidence]
    elif res.outcome == "diagnosed":
        lines += ["", "Evidence:", "- No direct failure signal was found in the available evidence."]
    if res.recurrence:
        r = res.recurrence
        word = "failure" if r.count == 1 else "failures"
        tail = "recurring" if r.recurring else "one-off"
        if outside_window:
            tail = "the diagnosed failure itself is older than this window"
        lines += ["", f"History: {r.count} {res.category} {word} in the last {r.lookback} — {tail}."]
    lines += closing_sections(res, verdict=res.outcome == "diagnosed")
    return "\n".join(lines) + "\n"


def text_report(res: DiagnosisResult) -> str:
    """The report as the CLI prints it: ``res.report`` (the ``--json`` field, unchanged), then the pod's lifecycle
    layers when the result has them (``res.lifecycle``, also its own ``--json`` key)."""
    if res.lifecycle is None:
        return res.report
    return res.report + "\n" + "\n".join(layer_lines(res.lifecycle)) + "\n"
