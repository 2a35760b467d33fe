"""The assistant's deterministic words: questions for what is missing, the answer of the procedure that answered
(``answer``), answers to follow-ups from the stored result, what is out of scope (with a concrete next step) and the
read-only answer to a request to act.
Every value shown comes from the thread's own slots or from the stored diagnosis (never made up)."""
from __future__ import annotations

from typing import Any

from workload_diagnose.agent.chat import handoff


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


# what the chat answers: the failed-workload skill's scope (shared/seeds/runai-diagnose-failed-workload.md), then
# what each registered procedure the chat offers answers (``ProcedureSpec.chat.topic``)
_TOPICS = handoff.topics()
SCOPE = ("I diagnose one Run:ai workload's failure (a terminal failure, an active CrashLoopBackOff or a confirmed "
         "pod-start failure)" + (f", and explain {_and(_TOPICS)}" if _TOPICS else "") + ". I do not summarise "
         "cluster health or inference latency without a confirmed failure.")
_TRIAGE = "workload-diagnose triage --cluster-id <cluster id or name> --since 24h"
OUT_OF_SCOPE = {
    "cluster_health": ("Cluster health is out of scope: I read one workload's evidence, not the cluster's. To see every "
                       f"failed workload of a cluster at once: {_TRIAGE}."),
    "latency": "Inference latency without a confirmed failure is out of scope: I read failures, not latency figures.",
}
READ_ONLY = ("I am read-only: I never restart, resubmit, stop, patch, delete, scale or otherwise change a workload "
             "or cluster resource. I can only recommend what to do.")
INTRO = ("Ask me why a Run:ai workload failed, e.g. \"why did train-42 in project ml-team fail on cluster <id>?\""
         + (f"; I also explain {_and(_TOPICS)}." if _TOPICS else "."))
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
    """One question for exactly what is missing (the project alone when the question is about a project)."""
    name = repr(slots.get("workload_name"))
    ask, ask_one = dict(_ASK), dict(_ASK_ONE)
    if not slots.get("workload_name"):
        ask["project"], ask_one["project"] = "the project", "Which project? Give its exact name."
    if len(missing) == 1:
        return ask_one[missing[0]].format(name=name)
    parts = [ask[m].format(name=name) for m in missing]
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


def answer(d: dict, procedure: str, subject: str | None = None) -> str:
    """The answer to a question, from the result ``d`` of the registered procedure ``procedure``: the failed-workload
    diagnosis's report as it is; another procedure's as a chat answer (its reason in words, who acts on it, then its
    cited sections: evidence, figures, what to do, limitations), never its report's header lines. A workload that
    belongs to another cluster also says how to correct it. ``subject``: the thread's name for a project the result
    does not name."""
    text = (d.get("report") or _verdict(d)) if procedure == handoff.DEFAULT else _sibling(d, procedure, subject)
    if d.get("route") == "cluster_mismatch":
        text = (text.rstrip("\n") + "\n\nIf it runs on another cluster, tell me which (e.g. \"wrong cluster: it's "
                "<name>\"): I will diagnose the same workload there.\n")
    return text


def _sibling(d: dict, procedure: str, subject: str | None) -> str:
    chat = handoff.chat_of(procedure)
    about = chat.subject if chat is not None else "workload"
    w = d.get("workload") or {"project": d.get("project"), "cluster_id": d.get("cluster_id")}
    if about == "project":  # a project on a cluster: the project is the subject, no workload is named
        name = w.get("project") or subject or "the project"
        w = {"cluster_id": w.get("cluster_id")}
    else:
        name = w.get("name") or w.get("id") or "the workload"
    topic = (chat.topic if chat is not None else "about {name}").format(name=name)
    head = topic[:1].upper() + topic[1:]
    reason = handoff.verdict_of(procedure, d)
    if reason:
        summary = handoff.reason_summary(procedure, reason)
        head += f": {summary} ({reason})." if summary else f": {reason}."
    elif d.get("outcome") == "diagnosed":
        head += ":"
    else:  # it ended early: what it says instead of an answer (its next steps are this line, not a section)
        said = handoff.stop_words(d) or f"{d.get('outcome')}: {d.get('route')}."
        head = f"{name}: {said}"
    if d.get("owner"):
        head += f" Who acts on it: the {d['owner']}."
    waited = d.get("waited") or {}
    if waited.get("text"):
        head += f" It has waited {waited['text']}" + (f" (Pending since {waited['since']})." if waited.get("since")
                                                      else ".")
    where = [f"in project {w['project']}" if w.get("project") else "",
             f"on cluster {w['cluster_id']}" if w.get("cluster_id") else ""]
    more = "; ".join(x for x in (f"phase {w['phase']}" if w.get("phase") else "",
                                 f"workload id {w['id']}" if w.get("id") and w["id"] != name else "") if x)
    lines = [head]
    if any(where) or more:
        lines.append(" ".join([name, "is", *(x for x in where if x)]) + (f" ({more})." if more else ".")
                     if any(where) else f"{name}: {more}.")
    body = _body(d.get("report") or "", drop=() if d.get("outcome") == "diagnosed" else ("Next step:",))
    return "\n".join(lines) + ("\n\n" + body if body else "\n")


def _body(report: str, drop: tuple[str, ...] = ()) -> str:
    """A report's cited sections: everything after its header lines (the first blank line), less the sections
    headed by ``drop``."""
    _, sep, rest = report.partition("\n\n")
    kept = [x for x in rest.split("\n\n") if x.strip() and not x.startswith(drop)] if sep else []
    return "\n\n".join(kept).rstrip("\n") + "\n" if kept else ""


def evidence(d: dict) -> str:
    lines = [f"- {e['text']} (source: {e['source']})" for e in d.get("evidence") or []]
    head = f"Evidence for {_subject(d)}:"
    return "\n".join([head, *lines]) if lines else f"{head}\n- no evidence lines were recorded."


def recurrence(d: dict) -> str:
    r = d.get("recurrence")
    if not r:
        return f"Recurrence was not computed for {_subject(d)} ({_verdict(d)})."
    kind = "recurring" if r["recurring"] else "a one-off"
    if d.get("reason") and not d.get("category"):  # another procedure's count (e.g. the preemptions it found)
        return f"{r['count']} time(s) within the lookback ({r['lookback']}), latest reason {d['reason']}: {kind}."
    return f"{r['count']} failure(s) of {d.get('category')} within the lookback ({r['lookback']}): {kind}."


def recommend(d: dict) -> str:
    recs = [f"- {x}" for x in d.get("recommendations") or []]
    body = "\n".join(recs) if recs else "- no recommendation was produced for this outcome."
    return f"Recommended next steps for {_subject(d)}:\n{body}\n({READ_ONLY.split(': ')[0]}: nothing was changed.)"


def why_not(d: dict, category: str) -> str:
    from workload_diagnose.agent.taxonomy import BY_NAME

    got = d.get("category")
    if d.get("outcome") != "diagnosed" or not got:
        return f"No failure category was assigned to {_subject(d)} ({_verdict(d)}), so it is not {category} either."
    if got == category:
        return f"It is {category}: {BY_NAME[category].summary}. Ask for the evidence to see each signal."
    cites = [f"- {e['text']} (source: {e['source']})" for e in (d.get("evidence") or [])[:3]]
    summary = BY_NAME[category].summary if category in BY_NAME else category
    return "\n".join([f"The verdict is {got}, not {category}: no direct signal that {summary} was found in the "
                      f"evidence, and the classifier only follows direct signals.", *cites])


def _subject(d: dict) -> str:
    w = d.get("workload") or {}
    return repr(w.get("name") or w.get("id") or "the workload")


def _verdict(d: dict) -> str:
    if d.get("outcome") == "diagnosed":
        return d.get("category") or d.get("reason") or "diagnosed"
    return f"{d.get('outcome')}: {d.get('route')}"
