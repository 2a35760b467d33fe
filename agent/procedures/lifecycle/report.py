"""The result and its text report: the first incomplete layer on line one, then the walk, notes and limitations."""
from __future__ import annotations

from workload_diagnose.agent.model import lifecycle as lc
from workload_diagnose.agent.model.findings import ordered
from workload_diagnose.agent.model.lines import decisive
from workload_diagnose.agent.model.lifecycle import LifecycleResult, Phase, RunRef
from workload_diagnose.agent.model.result import EvidenceLine, ToolCall
from workload_diagnose.agent.procedures.kit.layers.text import layer_of, phase_lines
from workload_diagnose.agent.procedures.lifecycle.state import State

EVIDENCE_CHARS = 240  # a longer evidence line keeps its decisive words (the whole text is in --json's phases)
NOTE_ADMISSION = ("Kueue admission means quota was reserved, not that pods are running: the phases after it say "
                  "whether they are.")
NOTE_RUNNING = ("A Running pod means its containers started, not that training is making progress: read the logs "
                "({logs}) and the run's durable evidence.")
NOTE_NO_RETRY = ("Do not retry or resubmit before the first incomplete layer ({layer}) is resolved: a retry past it "
                 "reproduces the same failure.")


def notes(state: State, phases: list[Phase], first: Phase | None) -> list[str]:
    out: list[str] = []
    by = {p.name: p for p in phases}
    if by.get(lc.KUEUE) is not None and by[lc.KUEUE].status == "done" and (state.workloads or []):
        out.append(NOTE_ADMISSION)
    running = [p for p in state.pods or [] if (p.get("status") or {}).get("phase") == "Running"]
    if running:
        ns = state.request.namespace
        pod = (running[0].get("metadata") or {}).get("name")
        logs = f"kubectl logs {pod} -n {ns}"
        if state.kind == "RayJob":
            logs += f"; the Ray driver log: kubectl logs -n {ns} -l job-name={state.request.name}"
        out.append(NOTE_RUNNING.format(logs=logs))
    if first is not None and first.status == "warning":
        out.append(NOTE_NO_RETRY.format(layer=first.name))
    return out


def render(result: LifecycleResult) -> str:
    run = result.run
    what = f"{run.kind or 'run'} {run.namespace}/{run.name}"
    lines: list[str] = []
    by = {p.name: p for p in result.phases}
    if result.first_incomplete:
        p = by[result.first_incomplete]
        lines.append(f"First incomplete layer: {p.name} ({p.status}) — owner {p.owner} — {what}")
    elif run.kind is None:
        lines.append(f"No Job or RayJob {run.namespace}/{run.name}")
    else:
        lines.append(f"All lifecycle phases done — {what}")
    lines.append("")
    lines.append("Phases:")
    lines += phase_lines(result.phases)
    if result.layer is not None:
        p = by[result.layer.name]
        lines += ["", f"Next action ({result.layer.owner}): {result.layer.next_action or 'none stated'}"]
        if p.evidence:
            lines.append("Evidence:")
            lines += [f"  - {decisive(e.text, EVIDENCE_CHARS)}  [{e.source}]" for e in p.evidence[:6]]
    if result.notes:
        lines += ["", "Notes:"] + [f"  - {n}" for n in result.notes]
    if result.run_profile is not None:
        lines += ["", "Run profile:"]
        for k, v in result.run_profile.items():
            if k != "requests":
                lines.append(f"  {k}: {_profile_text(v)}")
    if result.limitations:
        lines += ["", "Limitations:"] + [f"  - {t}" for t in result.limitations]
    if result.ignored_instructions:
        lines += ["", "Ignored instructions found in cluster data (treated as data, not followed):"]
        lines += [f"  - {e.source}: {e.text}" for e in result.ignored_instructions[:5]]
    return "\n".join(lines) + "\n"


def _profile_text(v) -> str:
    if isinstance(v, dict):
        if v.get("status") == "unavailable":
            return f"unavailable ({v.get('reason')})"
        return ", ".join(f"{k}={x}" for k, x in v.items() if k != "status")
    if isinstance(v, list):
        return "; ".join(_profile_text(x) for x in v) or "none"
    return str(v)


def build_result(state: State) -> LifecycleResult:
    phases = state.phases
    first, layer = layer_of(phases)
    result = LifecycleResult(
        run=RunRef(name=state.request.name, namespace=state.request.namespace, kind=state.kind),
        phases=phases,
        first_incomplete=first.name if first else None,
        layer=layer,
        notes=notes(state, phases, first),
        run_profile=state.run_profile,
        limitations=[lim.text for lim in ordered(state.limitations)],
        tool_calls=[ToolCall(tool=c.tool, request=c.request, status=c.status) for c in ordered(state.calls)],
        ignored_instructions=[EvidenceLine(source=str(getattr(f, "location", "") or "cluster data"),
                                           text=str(getattr(f, "excerpt", "") or getattr(f, "rule", "")))
                              for f in state.injections],
    )
    result.report = render(result)
    return result
