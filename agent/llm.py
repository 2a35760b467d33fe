"""Optional: an LLM writes a friendlier explanation of a finished diagnosis. It never decides anything.

* The category, evidence, recurrence and recommendations are already fixed by the deterministic path.
* The model gets no tools: it can only return text.
* Evidence reaches it redacted and spotlighted with a per-run marker the evidence cannot forge.
* The call is bounded (``agent.llm_bounds``): its own deadline and a reply cap; no usable answer (an error, no
  text, too long, too late) is the deterministic report with the reason recorded.
* Its text is validated (``guardrails.validate_llm_output``): it must name no other category, cite only numbers,
  ids, node names and quoted log lines that occur in the evidence, contain nothing secret-shaped, claim no
  action, show no image and link to no URL outside the evidence. Otherwise the deterministic report is used and
  the reason is recorded.
"""
from __future__ import annotations

from typing import Any

from workload_diagnose.agent.model.result import DiagnosisResult, Explanation
from workload_diagnose.agent.taxonomy import NAMES, UNKNOWN, names_pattern


def _evidence_texts(res: DiagnosisResult) -> list[str]:
    texts = [e.text for e in res.evidence] + list(res.recommendations) + list(res.limitations)
    w = res.workload
    if w:
        texts += [x for x in (w.id, w.name, w.project, w.cluster_id, w.phase) if x]
    if res.recurrence:
        texts.append(f"{res.recurrence.count} {res.recurrence.lookback}")
    texts.append(res.report)
    return texts


def build_messages(res: DiagnosisResult, marker: str) -> list[Any]:
    from workload_diagnose import guardrails
    from langchain_core.messages import HumanMessage, SystemMessage

    fixed = res.category if res.outcome == "diagnosed" else f"none ({res.outcome}: {res.route})"
    system = (
        "You explain a finished diagnosis of a failed GPU workload to its owner in plain words. "
        f"The category is fixed by a deterministic classifier and is {fixed}; do not name any other category. "
        "Use only facts present in the evidence; never invent numbers, ids, node names or log lines; quote log "
        "lines exactly. Never include credentials. You cannot run tools or change anything. "
        + guardrails.spotlight_instructions(marker))
    body = "\n".join(f"- ({e.source}) {e.text}" for e in res.evidence)
    human = (f"Category: {fixed}\nRecurrence: "
             f"{res.recurrence.model_dump() if res.recurrence else 'not computed'}\n"
             f"Evidence:\n{guardrails.spotlight(body, marker)}\n"
             f"Recommendations:\n" + "\n".join(f"- {r}" for r in res.recommendations)
             + "\nWrite 3-6 sentences.")
    return [SystemMessage(content=system), HumanMessage(content=human)]


def explain(res: DiagnosisResult, model: Any) -> Explanation:
    """Ask ``model`` (any langchain-core chat model) for an explanation; validate it or fall back."""
    from workload_diagnose import guardrails

    from workload_diagnose.agent.llm_bounds import Budget, ModelFailed, bounded, call

    marker = guardrails.new_marker()
    model = bounded(model)
    try:  # its own bounds (agent.llm_bounds): the diagnosis is finished, its deadline is not the model's
        _msg, text = call(model, build_messages(res, marker), Budget(model.bounds))
    except ModelFailed as e:  # a failing model is not a failed diagnosis
        return Explanation(text=res.report, source="deterministic", rejected_reasons=[str(e)])
    category = res.category if res.outcome == "diagnosed" and res.category else UNKNOWN.name
    reasons: list[str] = []
    if marker in text:
        reasons.append("echoes the spotlight marker")
    v = guardrails.validate_llm_output(text, category=category, evidence_texts=_evidence_texts(res),
                                      categories=NAMES)
    reasons += list(v.reasons)
    if res.outcome != "diagnosed":
        import re

        if re.search(names_pattern(failures_only=True), text):
            reasons.append("names a failure category for a workload that was not diagnosed")
    if reasons:
        return Explanation(text=res.report, source="deterministic", rejected_reasons=sorted(set(reasons)))
    return Explanation(text=guardrails.redact(text), source="llm")
