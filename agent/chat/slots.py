"""A thread's identifiers: how one understood message updates them (a new value replaces the old one) and what is
still missing. Pure functions over plain dicts (the checkpointer stores them as they are)."""
from __future__ import annotations

from typing import Any

from workload_diagnose.agent.chat.parse import Parsed

IDENTIFYING = ("cluster_id", "cluster_name", "workload_id", "workload_name", "project")
MISSING_NAMES = ("cluster_id", "workload", "project")  # the only names ``missing`` may hold (the contract)


def _held(s: dict[str, Any], cid: str | None, wid: str | None, name: str | None, project: str | None,
          cname: str | None) -> dict[str, str]:
    """The values of a message that would replace an identifier the user gave before: held for a confirmation."""
    held: dict[str, str] = {}
    had_workload = s.get("workload_id") or s.get("workload_name")
    if (wid or name) and had_workload and (wid or name) != had_workload:
        held.update({"workload_id": wid} if wid else {"workload_name": name})
    if project and s.get("project") and project != s["project"]:
        held["project"] = project
    had_cluster = {v for v in (s.get("cluster_id"), s.get("cluster_name"), s.get("cluster_given")) if v}
    if (cid or cname) and had_cluster and (cid or cname) not in had_cluster:
        held.update({"cluster_id": cid} if cid else {"cluster_name": cname})
    return held


def confirmed(s: dict[str, Any], pending: dict[str, str]) -> None:
    """Apply values the user confirmed (a workload id, a workload name, a project, a cluster id or name)."""
    if pending.get("workload_id"):
        s.update(workload_id=pending["workload_id"], workload_name=None, project=None)
    elif pending.get("workload_name"):
        s.update(workload_id=None, workload_name=pending["workload_name"])
    if pending.get("project"):
        s["project"] = pending["project"]
        if s.get("workload_id") and not pending.get("workload_id"):
            s["workload_id"] = None
    if pending.get("cluster_id") or pending.get("cluster_name"):
        s.update(cluster_id=pending.get("cluster_id"), cluster_name=pending.get("cluster_name"), cluster_given=None)


def merge(slots: dict[str, Any], p: Parsed, asked: list[str], last: dict | None,
          answered: list[str] | None = None) -> tuple[dict[str, Any], bool]:
    """(new slots, whether anything that selects the diagnosis changed). Bare values answer what was asked.

    An identifier the user gave is never silently replaced: a different one in an answer to a question (without
    "no", "actually", "I meant" ...) is held in ``pending`` and confirmed first; a yes applies it, anything else
    drops it. A new question (nothing was asked, or it names its workload and cluster itself) or an explicit
    correction replaces values at once.

    ``procedure`` is the one the words ask for (``Parsed.procedure``); asking the same workload what a procedure
    already answered in the last turn (``answered``: the procedures that gave it) changes nothing."""
    s = dict(slots)
    before = {k: s.get(k) for k in (*IDENTIFYING, "intent", "lookback", "procedure")}
    pending = s.pop("pending", None)
    if pending and p.yes:
        confirmed(s, pending)
    cid, wid = p.cluster_id, p.workload_id
    name, project, cname = p.workload_name, p.project, p.cluster_name
    bare = list(p.bare_uuids)
    # a bare UUID is the cluster only when the cluster is the one thing asked for (never inferred otherwise)
    if bare and not cid and "cluster_id" in asked and ("workload" not in asked or wid or len(bare) > 1):
        cid = bare.pop(0)
    if bare and not cid and _about_project(p.procedure or s.get("procedure")):
        cid = bare.pop(0)  # a question about a project names no workload: its one UUID is the cluster
    if bare and not wid:
        wid = bare.pop(0)
    s["fallback"] = None
    if p.bare_token and not asked and p.correction and last:
        name = p.bare_token  # "no, I meant train-43": the workload, in the same project and cluster
    if p.bare_token and asked:
        slot = asked[0]
        if slot == "project":
            project = p.bare_token
        elif slot == "workload":
            name = p.bare_token
        elif slot == "cluster_id":
            cname = p.bare_token
            # one word while several things were asked: the cluster if one has exactly that name, else this
            s["fallback"] = next((a for a in asked[1:] if a in ("project", "workload")), None)

    whole = bool((wid or (name and project)) and (cid or cname))  # a question of its own, not an answer
    held = _held(s, cid, wid, name, project, cname) if asked and not p.correction and not whole else {}
    if held:
        s["pending"] = held
        cid = None if "cluster_id" in held else cid
        cname = None if "cluster_name" in held else cname
        wid = None if "workload_id" in held else wid
        name = None if "workload_name" in held else name
        project = None if "project" in held else project
        if s.get("fallback") and not (cname or s.get("cluster_name")):
            s["fallback"] = None
    if cid and cid != s.get("cluster_id"):
        s["cluster_id"], s["cluster_name"], s["cluster_given"] = cid, None, None
    elif cname and cname not in (s.get("cluster_name"), s.get("cluster_given")):
        s["cluster_name"], s["cluster_id"], s["cluster_given"] = cname, None, None
    if p.vague_cluster and not s.get("cluster_id") and not cname:
        s["vague_cluster"] = p.vague_cluster
    elif s.get("cluster_id") or s.get("cluster_name"):
        s["vague_cluster"] = None

    if wid:  # Option A wins: a name or project in the same message does not select anything
        s.update(workload_id=wid, workload_name=None, project=None)
    elif name or project:
        lw = (last or {}).get("workload") or {}
        new_name = name or s.get("workload_name") or (lw.get("name") if s.get("workload_id") else None)
        if name or new_name or not s.get("workload_id"):
            s.update(workload_id=None, workload_name=new_name,
                     project=project or s.get("project") or (lw.get("project") if s.get("workload_id") else None))
    if p.lookback:
        s["lookback"] = p.lookback
    pure_followup = bool(set(p.followups) - {"report"}) and not (cid or wid or name or project or cname)
    if p.intent and not pure_followup:
        s["intent"] = p.intent
    if p.procedure:
        s["procedure"] = p.procedure
    after = {k: s.get(k) for k in before}
    if {k for k in before if before[k] != after[k]} == {"procedure"} and after["procedure"] in (answered or []):
        before["procedure"] = after["procedure"]  # already answered for this workload: a follow-up
    if s["fallback"] and not p.bare_token:
        s["fallback"] = None
    # the turn after a confirmation question reads again what it held back (a "no" keeps what was there)
    return s, after != before or bool(pending)


def missing(s: dict[str, Any]) -> list[str]:
    """What a diagnosis still needs, among ``cluster_id``, ``workload``, ``project`` (never a value given): a
    workload (its id, or its name and project), or for a procedure about a project (``Chat.subject``) the project."""
    from workload_diagnose.agent.chat.handoff import subject

    out = []
    if not s.get("cluster_id"):
        out.append("cluster_id")
    if subject(s.get("procedure")) == "project":
        return out + ([] if s.get("project") else ["project"])
    if not s.get("workload_id"):
        if not s.get("workload_name"):
            out.append("workload")
        elif not s.get("project"):
            out.append("project")
    return out


def _about_project(procedure: str | None) -> bool:
    from workload_diagnose.agent.chat.handoff import subject

    return bool(procedure) and subject(procedure) == "project"
