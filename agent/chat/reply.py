"""The assistant's deterministic words: questions for what is missing, answers to follow-ups from the stored
result, the skill's routing text for out-of-scope questions and the read-only answer to a request to act.
Every value shown comes from the thread's own slots or from the stored diagnosis (never made up)."""
from __future__ import annotations

from typing import Any

# the skill's description of its own scope (shared/seeds/runai-diagnose-failed-workload.md)
SCOPE = ("I diagnose one Run:ai workload's failure (a terminal failure, an active CrashLoopBackOff or a confirmed "
         "pod-start failure). Use other skills for workload health summaries, cluster health, scheduling-only "
         "Pending, or inference latency without a confirmed failure.")
OUT_OF_SCOPE = {
    "cluster_health": "Cluster health is out of scope for this skill: use a cluster-health skill.",
    "summary": "A workload health summary is out of scope for this skill: use a workload-summary skill.",
    "latency": "Inference latency without a confirmed failure is out of scope for this skill.",
    "scheduling": ("A Pending workload with only scheduling or resource-wait evidence is out of scope for this "
                   "skill: use Pending-workload diagnosis. If it shows ImagePullBackOff, ErrImagePull, an init or "
                   "mount error, tell me and I will diagnose it."),
}
READ_ONLY = ("I am read-only: I never restart, resubmit, stop, patch, delete, scale or otherwise change a workload "
             "or cluster resource. I can only recommend what to do.")
INTRO = "Ask me why a Run:ai workload failed, e.g. \"why did train-42 in project ml-team fail on cluster <id>?\"."
INJECTION_NOTE = ("Your message contains text that reads like an instruction (e.g. from a pasted log); it was "
                  "treated as data and not followed.")

MORE = ("Anything else about it? I can show the evidence, say whether it is recurring, what to do next, or why it "
        "is not another category.")

_ASK = {
    "cluster_id": "the cluster (its cluster id, a UUID, or its exact name)",
    "workload": "the workload (its workload id, or its name and project)",
    "project": "the project of workload {name}",
}
_ASK_ONE = {
    "cluster_id": "Which cluster is it on? Give its cluster id (a UUID) or its exact name.",
    "workload": "Which workload? Give its workload id, or its name and project.",
    "project": "Which project is workload {name} in?",
}


def question(missing: list[str], slots: dict[str, Any]) -> str:
    """One question for exactly what is missing."""
    name = repr(slots.get("workload_name"))
    if len(missing) == 1:
        return _ASK_ONE[missing[0]].format(name=name)
    parts = [_ASK[m].format(name=name) for m in missing]
    return f"I need {', '.join(parts[:-1])} and {parts[-1]}. Which are they?"


def cluster_problem(slots: dict[str, Any], match: dict | None) -> str | None:
    """Why the thread still has no cluster id although the user described or named one."""
    if match:
        name = match.get("name")
        if match.get("error"):
            return f"I could not look up the cluster named {name!r} ({match['error']})."
        if len(match.get("matches") or []) > 1:
            ids = ", ".join(c["uuid"] for c in match["matches"])
            return f"Several clusters are named {name!r} ({ids}): which cluster id do you mean?"
        known = ", ".join(match.get("known") or []) or "none"
        return f"I found no cluster named exactly {name!r} (clusters I can see: {known})."
    if slots.get("vague_cluster"):
        return (f"I cannot tell which cluster {slots['vague_cluster']!r} is, and I do not guess one.")
    return None


_SLOT_WORDS = {"workload_id": "workload", "workload_name": "workload", "project": "project",
               "cluster_id": "cluster", "cluster_name": "cluster"}


def confirm(slots: dict[str, Any], pending: dict[str, str]) -> str:
    """The question before a value the user gave is replaced by another from the same conversation."""
    parts = []
    for key, new in pending.items():
        what = _SLOT_WORDS[key]
        if what == "workload":
            old = slots.get("workload_id") or slots.get("workload_name")
        elif what == "cluster":
            old = slots.get("cluster_given") or slots.get("cluster_name") or slots.get("cluster_id")
        else:
            old = slots.get(key)
        parts.append(f"{what} {new!r} instead of {old!r}")
    return (f"You told me a different one before: should I use {' and '.join(parts)}? Say yes, or no to keep what "
            "you gave first.")


def triage_pointer(cluster: str | None, project: str | None, lookback: str | None) -> str:
    """A question about many workloads: the command that diagnoses them all at once, with what is known."""
    cmd = (f"workload-diagnose triage --cluster-id {cluster or '<cluster id or name>'}"
           f"{f' -p {project}' if project else ''} --since {lookback or '24h'}")
    return ("That is a question about many workloads; I diagnose one at a time. This command diagnoses every failed "
            f"workload of the cluster at once (categories, shared causes, top actions):\n  {cmd}\n"
            "Then ask me about any one of them by its name and project, or its workload id.")


def asked_back(d: dict) -> str:
    """What the procedure asks back (no terminal match, a healthy Running workload), as a question: the question
    first, then what was read (never the report's "Category: none (needs_input: ...)" header)."""
    lines = [d.get("question") or "Which workload do you mean? Give its workload id, or its name and project."]
    ev = d.get("evidence") or []
    if ev:
        lines += ["", "What I read:"] + [f"- {e['text']} (source: {e['source']})" for e in ev[:5]]
    return "\n".join(lines)


def diagnosed(d: dict) -> str:
    """The report of a diagnosis; a workload that belongs to another cluster also says how to correct it."""
    text = d.get("report") or _verdict(d)
    if d.get("route") == "cluster_mismatch":
        text = (text.rstrip("\n") + "\n\nIf it runs on another cluster, tell me which (e.g. \"wrong cluster: it's "
                "<name>\"): I will diagnose the same workload there.\n")
    return text


def evidence(d: dict) -> str:
    lines = [f"- {e['text']} (source: {e['source']})" for e in d.get("evidence") or []]
    head = f"Evidence for {_subject(d)}:"
    return "\n".join([head, *lines]) if lines else f"{head}\n- no evidence lines were recorded."


def recurrence(d: dict) -> str:
    r = d.get("recurrence")
    if not r:
        return f"Recurrence was not computed for {_subject(d)} ({_verdict(d)})."
    kind = "recurring" if r["recurring"] else "a one-off"
    return f"{r['count']} failure(s) of {d.get('category')} within the lookback ({r['lookback']}): {kind}."


def recommend(d: dict) -> str:
    recs = [f"- {x}" for x in d.get("recommendations") or []]
    body = "\n".join(recs) if recs else "- no recommendation was produced for this outcome."
    return f"Recommended next steps for {_subject(d)}:\n{body}\n({READ_ONLY.split(': ')[0]}: nothing was changed.)"


def why_not(d: dict, category: str) -> str:
    from workload_diagnose.agent.taxonomy import BY_NAME

    got = d.get("category")
    if d.get("outcome") != "diagnosed":
        return f"No failure category was assigned to {_subject(d)} ({_verdict(d)}), so it is not {category} either."
    if got == category:
        return f"It is {category}: {BY_NAME[category].summary}. Ask for the evidence to see each signal."
    cites = [f"- {e['text']} (source: {e['source']})" for e in (d.get("evidence") or [])[:3]]
    summary = BY_NAME[category].summary if category in BY_NAME else category
    return "\n".join([f"The verdict is {got}, not {category}: no direct signal that {summary} was found in the "
                      f"evidence, and the classifier only follows direct signals.", *cites])


def report(d: dict) -> str:
    return d.get("report") or _verdict(d)


def _subject(d: dict) -> str:
    w = d.get("workload") or {}
    return repr(w.get("name") or w.get("id") or "the workload")


def _verdict(d: dict) -> str:
    return d.get("category") if d.get("outcome") == "diagnosed" else f"{d.get('outcome')}: {d.get('route')}"
