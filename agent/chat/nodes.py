"""One function per step of a chat turn (``graph.py`` wires them): understand → resolve the cluster → ask for
what is missing | diagnose | answer a follow-up from the stored result | route out of scope | answer a request
to act read-only → reply."""
from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from workload_diagnose.agent.chat import handoff, reply as say
from workload_diagnose.agent.chat.handoff import DEFAULT
from workload_diagnose.agent.chat.parse import Parsed, understand as parse
from workload_diagnose.agent.chat.slots import merge, missing
from workload_diagnose.agent.chat.state import MAX_TRANSCRIPT, ChatContext, ChatState
from workload_diagnose.tools.runai import InvalidInput

TURN_RESET = {"reply": "", "needs_input": False, "missing": [], "diagnosis": None, "notes": [], "cluster_match": None}


def understand(state: ChatState, runtime: Runtime[ChatContext]) -> dict:
    ctx = runtime.context
    msg = state.get("message") or ""
    p = parse(msg)
    notes = [say.INJECTION_NOTE] if state.get("flagged") else []
    if ctx.llm is not None and msg.strip():
        from workload_diagnose.agent.chat import llm

        with ctx.model_time():
            kept, _dropped = llm.extract(ctx.llm, msg, ctx.budget, ctx.usage)
        p = llm.fill(p, kept, lambda cid: _cluster_listed(ctx, cid))
    slots, changed = merge(state.get("slots") or {}, p, state.get("asked") or [], state.get("last"),
                           state.get("answered") or [])
    return {**TURN_RESET, "parsed": p.model_dump(), "slots": slots, "changed": changed, "notes": notes,
            "transcript": _bounded(state, "user", msg)}


def resolve_cluster(state: ChatState, runtime: Runtime[ChatContext]) -> dict:
    """A cluster NAME becomes its id through the Run:ai API (exact name only); none or several → ask."""
    s = dict(state.get("slots") or {})
    name = s.get("cluster_name")
    if not name or s.get("cluster_id"):
        return {}
    ctx = runtime.context
    _need_url(ctx)
    from workload_diagnose.tools.runai.clusters import resolve_cluster_name

    ctx.step("list_clusters")
    match = resolve_cluster_name(ctx.runai, name)
    if match.cluster_id:
        s.update(cluster_id=match.cluster_id, cluster_name=None, cluster_given=name)
        return {"slots": s, "notes": [*state.get("notes", []), f"Cluster {name!r} is {match.cluster_id}."]}
    s["cluster_name"] = None
    fallback = s.pop("fallback", None)
    if fallback and not match.error:  # the one-word answer was not a cluster name: it answers the next question
        s["project" if fallback == "project" else "workload_name"] = name
        return {"slots": s}
    return {"slots": s, "cluster_match": match.model_dump()}


def decide(state: ChatState) -> str:
    p = Parsed.model_validate(state.get("parsed") or {})
    s, last, changed = state.get("slots") or {}, state.get("last"), state.get("changed")
    need = missing(s)
    if s.get("pending"):
        return "ask"  # a value that would replace one the user gave: confirmed first
    if last and last.get("outcome") == "needs_input" and not changed and p.followups and not p.fleet:
        return "answer"  # no run was diagnosed: the procedure's open question is asked again
    if p.action and not (changed and not need):
        return "act"
    if p.fleet:
        return "fleet"
    if p.out_of_scope and not p.identifies:
        return "route_out"
    if changed and not need:
        return "diagnose"
    if last and not changed and "previous" in p.followups:
        return "previous"
    if last and not changed and not need:
        return "answer"
    if need:
        return "ask"
    return "diagnose"


def ask(state: ChatState, runtime: Runtime[ChatContext]) -> dict:
    s = state.get("slots") or {}
    need = missing(s)
    if s.get("pending"):  # what was asked stays asked: the confirmation comes first
        return {"reply": say.confirm(s, s["pending"]), "needs_input": True, "missing": need,
                "asked": state.get("asked") or need, "route": "ask"}
    p = Parsed.model_validate(state.get("parsed") or {})
    lead = []
    if p.greeting and not p.identifies:
        lead.append(say.INTRO)
    problem = say.cluster_problem(s, state.get("cluster_match")) if "cluster_id" in need else None
    if problem:
        lead.append(problem)
    return {"reply": "\n".join([*lead, say.question(need, s)]), "needs_input": True, "missing": need,
            "asked": need, "route": "ask"}


def diagnose(state: ChatState, runtime: Runtime[ChatContext]) -> dict:
    s = state.get("slots") or {}
    out = _run(state, runtime, workload_id=s.get("workload_id"), workload_name=s.get("workload_name"),
               project=s.get("project"))
    if Parsed.model_validate(state.get("parsed") or {}).action:  # "why did X fail? ... restart it": diagnosed,
        out["notes"] = [*state.get("notes", []), say.READ_ONLY]  # and nothing is changed
    return out


def previous(state: ChatState, runtime: Runtime[ChatContext]) -> dict:
    """"and the run before that?": the previous terminal match of the same name and project on the cluster."""
    from workload_diagnose.agent.model import phases
    from workload_diagnose.tools.runai import parse_time

    ctx, last = runtime.context, state.get("last") or {}
    w = last.get("workload") or {}
    cluster = (state.get("slots") or {}).get("cluster_id")
    if not (w.get("name") and w.get("project") and cluster and w.get("id")):
        return _answered("I do not know the name and project of the last workload, so I cannot find the run "
                         "before it: give its workload id.", needs_input=True, missing=["workload"])
    _need_url(ctx)
    ctx.step("list_workloads")
    lr = ctx.runai.list_workloads(name=w["name"], cluster_id=cluster, project=w["project"])
    if not lr.ok:
        return _answered(f"I could not list the runs of {w['name']!r} ({lr.error.message if lr.error else 'error'}):"
                         " which workload id do you mean?", needs_input=True, missing=["workload"])

    def newest_first(c):
        t = parse_time(c.phaseUpdatedAt)
        return (t is None, -(t.timestamp() if t else 0.0))

    cands = sorted(lr.data or [], key=newest_first)
    ids = [c.id for c in cands]
    seen = set(state.get("diagnosed") or [])
    pool = cands[ids.index(w["id"]) + 1:] if w["id"] in ids else [c for c in cands if c.id not in seen]
    prior = next((c for c in pool if phases.norm(c.phase) in phases.ENDED), None)
    if prior is None:
        return _answered(f"There is no earlier terminal run of {w['name']!r} in project {w['project']!r} on this "
                         "cluster.")
    out = _run(state, runtime, workload_id=prior.id)
    out["slots"] = {**(state.get("slots") or {}), "workload_id": prior.id, "workload_name": None, "project": None}
    return out


def answer(state: ChatState, runtime: Runtime[ChatContext]) -> dict:
    """A follow-up, answered from the stored result: no API call."""
    last = state.get("last") or {}
    p = Parsed.model_validate(state.get("parsed") or {})
    if last.get("outcome") == "needs_input":  # the procedure's question is still open: ask it again
        return _answered(say.asked_back(last), needs_input=True)
    parts = []
    proc = state.get("procedure") or DEFAULT
    for f in p.followups:
        if f == "evidence":
            parts.append(say.evidence(last))
        elif f == "recurrence":
            parts.append(say.recurrence(last))
        elif f == "recommend":
            parts.append(say.recommend(last))
        elif f == "why_not" and p.why_not:
            parts.append(say.why_not(last, p.why_not))
    if not parts:
        parts.append("\n".join([*(state.get("leads") or []), say.answer(last, proc, _subject(state))])
                     if p.followups or p.failure_words or p.procedure else say.MORE)
    return _answered("\n\n".join(parts), diagnosis=last)


def fleet(state: ChatState, runtime: Runtime[ChatContext]) -> dict:
    """A question about many workloads ("why are my jobs on cluster X failing today?"): the triage command that
    answers it, with what the thread knows (no API call beyond the cluster name's lookup)."""
    s = state.get("slots") or {}
    p = Parsed.model_validate(state.get("parsed") or {})
    problem = say.cluster_problem(s, state.get("cluster_match")) if not s.get("cluster_id") else None
    text = say.triage_pointer(s.get("cluster_given") or s.get("cluster_id"), p.project or s.get("project"),
                              p.lookback)
    return _answered("\n".join(x for x in (problem, text) if x))


def route_out(state: ChatState, runtime: Runtime[ChatContext]) -> dict:
    p = Parsed.model_validate(state.get("parsed") or {})
    return _answered(f"{say.OUT_OF_SCOPE.get(p.out_of_scope or '', '')} {say.SCOPE}".strip())


def act(state: ChatState, runtime: Runtime[ChatContext]) -> dict:
    last = state.get("last")
    if last and last.get("outcome") == "needs_input":
        last = None  # nothing was diagnosed: no recommendation to repeat
    text = say.READ_ONLY
    if last:
        text += "\n\n" + say.recommend(last)
    elif missing(state.get("slots") or {}):
        text += " Tell me which workload failed and I will diagnose it."
    return _answered(text, diagnosis=last)


def finish(state: ChatState, runtime: Runtime[ChatContext]) -> dict:
    """The reply: notes first; an optional model rewords it (validated, else the deterministic text)."""
    ctx = runtime.context
    text = "\n".join([*state.get("notes", []), state.get("reply") or ""]).strip()
    if ctx.llm is not None and text:
        from workload_diagnose.agent.chat import llm

        with ctx.model_time():
            text, _rejected = llm.phrase(ctx.llm, text, state.get("diagnosis") or state.get("last"), ctx.budget,
                                         ctx.usage)
    out: dict[str, Any] = {"reply": text, "transcript": _bounded(state, "assistant", text)}
    if not state.get("needs_input"):
        out["asked"] = []
    return out


# ------------------------------------------------------------------------------------------------ helpers
def _run(state: ChatState, runtime: Runtime[ChatContext], **which: Any) -> dict:
    """The thread's procedure (the failed-workload one unless the words asked another) on the thread's identifiers;
    a result whose route another registered procedure answers (its ``next``) is handed on to it, on the same
    workload, and that procedure's answer is the reply (``agent.chat.handoff``)."""
    from workload_diagnose.agent.api import run_graph
    from workload_diagnose.agent.model.request import build_request

    ctx, s = runtime.context, state.get("slots") or {}
    name = s.get("procedure") or DEFAULT
    if handoff.subject(name) == "project":
        which = {"project": s.get("project")}
    common = dict(intent=s.get("intent") or "terminal", lookback=s.get("lookback") or "7d", now=ctx.now)
    try:
        req = handoff.build(name, build_request(cluster_id=s.get("cluster_id"), **common, **which))
    except InvalidInput as e:
        return {"reply": f"I cannot use that: {e}.", "needs_input": True, "missing": [], "asked": [],
                "route": "ask"}
    _need_url(ctx)
    ran: list[str] = []
    leads: list[str] = []
    while True:
        result = run_graph(req, ctx.runai, ctx.kube, ctx.kube_unavailable, ctx.progress, ctx.limits,
                           deadline=ctx.deadline)
        d = result.model_dump(mode="json")
        ran.append(name)
        nxt = handoff.follow(d, ran)
        if nxt is None:
            break
        w = d["workload"]
        try:
            req = nxt.as_input(build_request(cluster_id=w["cluster_id"], workload_id=w["id"], **common))
        except InvalidInput:
            break
        leads.append(handoff.lead(nxt, d))
        name = nxt.name
    diagnosed = [*(state.get("diagnosed") or []), *([d["workload"]["id"]] if (d.get("workload") or {}).get("id")
                                                     else [])]
    base = {"last": d, "procedure": name, "answered": ran, "leads": leads, "diagnosed": diagnosed[-50:],
            "route": "diagnose"}
    if d["outcome"] == "needs_input":  # the procedure asks (no terminal match, running without a failure)
        return {**base, "reply": "\n".join([*leads, say.asked_back(d)]), "needs_input": True, "missing": [],
                "asked": [], "diagnosis": None}
    return {**base, "reply": "\n".join([*leads, say.answer(d, name, _subject(state))]), "needs_input": False,
            "missing": [], "asked": [], "diagnosis": d}


def _subject(state: ChatState) -> str | None:
    """The project the thread names (what a procedure about a project answers for)."""
    return (state.get("slots") or {}).get("project")


def _answered(text: str, *, diagnosis: dict | None = None, needs_input: bool = False,
              missing: list[str] | None = None) -> dict:
    return {"reply": text, "needs_input": needs_input, "missing": missing or [], "asked": missing or [],
            "diagnosis": None if needs_input else diagnosis}


def _cluster_listed(ctx: ChatContext, cluster_id: str) -> bool:
    """A cluster id only the model labelled is used only when the Run:ai API lists it (its role, verified)."""
    if not ctx.runai_ready:
        return False
    from workload_diagnose.agent.chat.llm import cluster_listed

    ctx.step("list_clusters")
    return cluster_listed(ctx.runai, cluster_id)


def _need_url(ctx: ChatContext) -> None:
    """A read needs the source's settings: what is missing is one line (the URL, the credentials)."""
    if not ctx.runai_ready:
        raise InvalidInput(ctx.runai_missing or "no Run:ai URL: pass --runai-url or set RUNAI_BASE_URL")


def _bounded(state: ChatState, role: str, text: str) -> list[dict]:
    return [*(state.get("transcript") or []), {"role": role, "text": text}][-MAX_TRANSCRIPT:]
