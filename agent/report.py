"""Step 5 — the report: category on line one, every evidence line quantified and cited, recurrence, next action.

Missing values are stated as missing, never filled. The rendered text and the JSON come from one
``DiagnosisResult``; a final redaction pass runs over both (defence in depth: evidence was redacted on entry).
"""
from __future__ import annotations

from agent import evidence as ev
from agent.categories import BY_NAME, RecoContext
from agent.config import Configuration
from agent.signals import Kind, Signal
from agent.state import DiagnosisResult, EvidenceLine, RecurrenceOut, State, ToolCall, WorkloadRef
from tools.base import ToolResult, ToolStatus
from tools.quantity import fmt_bytes
from tools.runai import iso

_ORIGIN_ORDER = {"status": 0, "pods": 1, "history": 2, "kube": 3, "spec": 4}


def build_result(state: State, cfg: Configuration, deps) -> DiagnosisResult:
    w = state.status.data.workload if state.status is not None and state.status.ok else None
    ref = WorkloadRef(id=w.id if w else (cfg.workload_id or None), name=w.name if w else cfg.workload_name,
                      project=w.projectName if w else cfg.project, cluster_id=w.clusterId if w else cfg.cluster_id,
                      phase=w.phase if w else None)
    res = DiagnosisResult(outcome=state.outcome or "needs_input", route=state.route, workload=ref,
                          question=state.question)
    res.limitations = _limitations(state)
    res.tool_calls = _tool_calls(state)
    res.ignored_instructions = _injections(state, deps)
    if state.outcome == "diagnosed" and state.verdict is not None:
        _diagnosed(res, state, cfg)
    else:
        res.category = None
        res.evidence = _dedupe([EvidenceLine(source=s.source, text=s.text) for s in _ordered(state.signals)])
        if state.stop_message:
            res.recommendations = [state.stop_message]
    res.report = render(res, cfg)
    return _final_redaction(res)


# ------------------------------------------------------------------------------------------------ diagnosed
def _diagnosed(res: DiagnosisResult, state: State, cfg: Configuration) -> None:
    v = state.verdict
    cat = v.category
    res.category = cat
    all_sigs = list(state.signals) + (state.kube.signals if state.kube else [])
    lines: list[EvidenceLine] = [EvidenceLine(source=s.source, text=s.text) for s in _ordered(v.supporting)]
    lines += [EvidenceLine(source=s.source, text=s.text) for s in _ordered(all_sigs) if s not in v.supporting
              and s.kind not in (Kind.SCHEDULING_WAIT,)]
    spec = state.spec.data if state.spec and state.spec.ok else None
    pods = state.pods.data if state.pods and state.pods.ok else None
    limit, peak = None, None
    if cat == "OOM_KILLED" or v.unresolved_137:
        mem_lines, limit, peak = _memory_lines(state, cfg, spec, pods)
        lines += mem_lines
    for src, text in ev.spec_context(spec):
        if (cat in ("IMAGE_PULL_FAILED", "CRASH_APP_ERROR") and text.startswith("Submitted image")) or \
                (cat == "CRASH_APP_ERROR" and text.startswith("Submitted command")) or \
                (cat == "DATASOURCE_MOUNT_FAILED" and text.startswith("Submitted mounts")) or \
                (cat in ("NODE_FAILURE", "CRASH_APP_ERROR") and text.startswith("Restart policy")):
            lines.append(EvidenceLine(source=src, text=text))
    kube = state.kube
    if kube:
        lines += [EvidenceLine(source=s, text=t) for s, t in kube.lines]
    res.evidence = _dedupe(lines)
    rec = state.recurrence
    if rec:
        res.recurrence = RecurrenceOut(count=rec.count, lookback=rec.lookback, recurring=rec.recurring)
    ctx = RecoContext(signals=all_sigs, memory_limit=limit, peak=peak, restart_policy=ev.spec_restart_policy(spec),
                      namespace=kube.namespace if kube else None, log_line=kube.log_line if kube else None)
    recos = BY_NAME[cat].recommend(ctx)
    if cat == "CRASH_APP_ERROR" and not (kube and kube.log_line):
        res.limitations.append("The failing log line is not available (needs kubectl logs --previous with Tier 2 "
                               "access); no log line is quoted.")
    if v.unresolved_137:
        res.limitations.append("Exit 137 (SIGKILL) was observed without OOMKilled: it stays unexplained — neither "
                               "history, pod events nor node conditions identified the cause, so it is not "
                               "classified as OOM.")
    if v.sigterm and cat == "UNKNOWN":
        res.limitations.append("Exit 143 (SIGTERM) means the system stopped the container, but no eviction, policy "
                               "or stop evidence names why.")
    if rec and rec.recurring:
        recos.append(f"Recurring: {rec.count} {cat} failures in the last {rec.lookback}. Apply a permanent fix "
                     "instead of an unchanged rerun.")
    res.recommendations = recos


def _memory_lines(state: State, cfg: Configuration, spec, pods) -> tuple[list[EvidenceLine], float | None,
                                                                         float | None]:
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
                     "or get_workload_pods."
        out.append(EvidenceLine(source="get_workload_spec", text=state_note))
    peak = None
    m: ToolResult | None = state.metrics
    if m is not None and m.ok:
        mf = ev.metrics_fact(m.data)
        window = f"{iso(cfg.cutoff)} and {iso(cfg.now)}"
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
        out.append(EvidenceLine(source="get_workload_spec", text="Memory limit: not reported by any tool"))
    return out, limit, peak


# ------------------------------------------------------------------------------------------------ pieces
def _ordered(sigs: list[Signal]) -> list[Signal]:
    return sorted(sigs, key=lambda s: _ORIGIN_ORDER.get(s.origin, 9))  # stable: keeps tool order inside an origin


def _dedupe(lines: list[EvidenceLine]) -> list[EvidenceLine]:
    seen, out = set(), []
    for ln in lines:
        k = (ln.source, ln.text)
        if k not in seen:
            seen.add(k)
            out.append(ln)
    return out


def _limitations(state: State) -> list[str]:
    out = list(state.notes)
    if state.list_result is not None:  # e.g. "pagination stopped": the candidate list may be incomplete
        out += [f"{state.list_result.tool}: {n}" for n in state.list_result.notes]
    for p in state.probe_results:  # Option B candidates whose status could not be read or had no events
        wid = p.invocations[0].arguments.get("workloadId", "a candidate") if p.invocations else "a candidate"
        if not p.ok:
            out.append(f"The status of candidate {wid} could not be read ({p.tool}: "
                       f"{p.error.message if p.error else 'error'}); it could not be confirmed or excluded.")
        elif p.data is not None and p.data.events is None:
            out.append(f"The recent events of candidate {wid} could not be fetched (events: null); its symptom "
                       "could only be checked in its status and conditions.")
    st = state.status
    if st is not None and st.ok and st.data.events is None:
        out.append("Recent events could not be fetched (events: null): a fetch failure, not proof that no events "
                   f"occurred ({st.data.events_error or 'no detail'}); history and Tier 2 evidence were used instead.")
    for r, label in ((state.spec, "submitted spec"), (state.pods, "pods"), (state.history, "history"),
                     (state.metrics, "metrics")):
        if r is None:
            continue
        if r.status == ToolStatus.ABSENT:
            out.append(f"The {label} is not available ({r.tool}: {r.error.message if r.error else 'absent'}); "
                       "continued without it.")
        elif r.status == ToolStatus.ERROR:
            out.append(f"The {label} could not be read ({r.tool}: {r.error.message if r.error else 'error'}); "
                       "the corresponding evidence and calculations are omitted.")
        out += [f"{r.tool}: {n}" for n in r.notes]
    if state.pods is not None and state.pods.ok:
        if not state.pods.data:
            out.append("get_workload_pods returned no pods: pod-level evidence is missing.")
        elif all(p.requestedResources is None for p in state.pods.data):
            out.append("get_workload_pods returned no requestedResources for the pods.")
    if state.metrics is not None and state.metrics.ok:
        bad = sum(s.unparsable for s in state.metrics.data)
        if bad:
            out.append(f"get_workload_metrics returned {bad} value(s) that are not numbers; they were ignored, not "
                       "counted as zero.")
    if state.kube:
        out += state.kube.limitations
    return out


_TOOL_ORDER = ["list_workloads", "get_workload_status", "get_workload_spec", "get_workload_pods",
               "get_workload_history", "get_workload_metrics"]


def _tool_calls(state: State) -> list[ToolCall]:
    calls: list[ToolCall] = []
    results = [state.list_result, *state.probe_results, state.status, state.spec, state.pods, state.history,
               state.metrics]
    for r in results:
        if r is None:
            continue
        for inv in r.invocations:
            calls.append(ToolCall(tool=r.tool, request=inv.describe(), status=inv.status_code))
    if state.kube:
        calls += [ToolCall(tool="kubernetes", request=c) for c in state.kube.calls]
    return calls


def _injections(state: State, deps) -> list[EvidenceLine]:
    found = list(getattr(deps.runai, "injections", []) or []) + list(state.kube.injections if state.kube else [])
    out, seen = [], set()
    for f in found:
        rule = getattr(f, "rule", None) or (f.get("rule") if isinstance(f, dict) else str(f))
        excerpt = getattr(f, "excerpt", None) or (f.get("excerpt") if isinstance(f, dict) else "")
        key = (rule, excerpt)
        if key in seen:
            continue
        seen.add(key)
        out.append(EvidenceLine(source="guardrails", text=f"ignored embedded instruction ({rule}): \"{excerpt}\""))
    return sorted(out, key=lambda e: e.text)


# ------------------------------------------------------------------------------------------------ rendering
def render(res: DiagnosisResult, cfg: Configuration) -> str:
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
        lines += ["", f"History: {r.count} {res.category} {word} in the last {r.lookback} — {tail}."]
    if res.recommendations:
        lines += ["", "Recommendation:" if res.outcome == "diagnosed" else "Next step:"]
        lines += [f"- {x}" for x in res.recommendations]
    if res.limitations:
        lines += ["", "Limitations:"]
        lines += [f"- {x}" for x in res.limitations]
    if res.ignored_instructions:
        lines += ["", "Ignored embedded instructions (evidence is data, not instructions):"]
        lines += [f"- {e.text}" for e in res.ignored_instructions]
    return "\n".join(lines) + "\n"


def _final_redaction(res: DiagnosisResult) -> DiagnosisResult:
    import guardrails

    data = res.model_dump(mode="json")
    clean = guardrails.redact_value(data)
    return DiagnosisResult.model_validate(clean)
