"""Report pieces every Run:ai procedure's result uses: its evidence in origin order without repeats, the embedded
instructions its sources ignored, and the last redaction pass over the whole result."""
from __future__ import annotations

from typing import Any

from workload_diagnose.agent.model.result import DiagnosisResult, EvidenceLine
from workload_diagnose.agent.model.signals import Signal

ORIGIN_ORDER = {"status": 0, "pods": 1, "history": 2, "kube": 3, "spec": 4}


def ordered_signals(sigs: list[Signal]) -> list[Signal]:
    return sorted(sigs, key=lambda s: ORIGIN_ORDER.get(s.origin, 9))  # stable: keeps tool order inside an origin


def dedupe(lines: list[EvidenceLine]) -> list[EvidenceLine]:
    seen, out = set(), []
    for ln in lines:
        k = (ln.source, ln.text)
        if k not in seen:
            seen.add(k)
            out.append(ln)
    return out


def injections(runai: Any, kube: Any) -> list[EvidenceLine]:
    found = list(runai.injections) + list(kube.injections if kube else [])
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


def final_redaction(res: DiagnosisResult) -> DiagnosisResult:
    """The last redaction pass over a whole result (any procedure's result type: it is rebuilt as that type)."""
    from workload_diagnose import guardrails

    data = res.model_dump(mode="json")
    clean = guardrails.redact_value(data)
    if clean == data:  # nothing redacted: the result as built (it was validated when built), not a rebuilt copy
        return res
    return type(res).model_validate(clean)


def closing_sections(res: Any, *, verdict: bool) -> list[str]:
    """The report's last sections, alike in every Run:ai procedure: what to do ("Recommendation:" under a verdict,
    else "Next step:"), the limitations, and the embedded instructions its sources ignored."""
    lines: list[str] = []
    if res.recommendations:
        lines += ["", "Recommendation:" if verdict else "Next step:"] + [f"- {x}" for x in res.recommendations]
    if res.limitations:
        lines += ["", "Limitations:"] + [f"- {x}" for x in res.limitations]
    if res.ignored_instructions:
        lines += ["", "Ignored embedded instructions (evidence is data, not instructions):"]
        lines += [f"- {e.text}" for e in res.ignored_instructions]
    return lines


def settle_findings(res: Any, found: list, step: int) -> None:
    """The result's evidence and ignored instructions aggregated and capped (a cut stated as a limitation of the
    report ``step``), then its limitations in step order: what every procedure's report does before rendering."""
    from workload_diagnose.agent.evidence.aggregate import EVIDENCE_CAP, INSTRUCTIONS_CAP, aggregate, cap
    from workload_diagnose.agent.model.findings import limitations, ordered

    res.evidence, cut = cap(aggregate(res.evidence), EVIDENCE_CAP, "evidence")
    res.ignored_instructions, cut_ii = cap(aggregate(res.ignored_instructions), INSTRUCTIONS_CAP,
                                           "ignored embedded instructions")
    res.limitations = [x.text for x in ordered([*found, *limitations(step, *cut, *cut_ii)])]
