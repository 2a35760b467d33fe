"""A thread's identifiers: how one understood message updates them (a new value replaces the old one) and what is
still missing. Pure functions over plain dicts (the checkpointer stores them as they are)."""
from __future__ import annotations

from typing import Any

from workload_diagnose.agent.chat.parse import Parsed

IDENTIFYING = ("cluster_id", "cluster_name", "workload_id", "workload_name", "project")
MISSING_NAMES = ("cluster_id", "workload", "project")  # the only names ``missing`` may hold (the contract)


def merge(slots: dict[str, Any], p: Parsed, asked: list[str], last: dict | None) -> tuple[dict[str, Any], bool]:
    """(new slots, whether anything that selects the diagnosis changed). Bare values answer what was asked."""
    s = dict(slots)
    before = {k: s.get(k) for k in (*IDENTIFYING, "intent", "lookback")}
    cid, wid = p.cluster_id, p.workload_id
    name, project, cname = p.workload_name, p.project, p.cluster_name
    bare = list(p.bare_uuids)
    # a bare UUID is the cluster only when the cluster is the one thing asked for (never inferred otherwise)
    if bare and not cid and "cluster_id" in asked and ("workload" not in asked or wid or len(bare) > 1):
        cid = bare.pop(0)
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

    if cid:
        s["cluster_id"], s["cluster_name"] = cid, None
    elif cname:
        s["cluster_name"], s["cluster_id"] = cname, None
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
    after = {k: s.get(k) for k in before}
    if s["fallback"] and not p.bare_token:
        s["fallback"] = None
    return s, after != before


def missing(s: dict[str, Any]) -> list[str]:
    """What a diagnosis still needs, among ``cluster_id``, ``workload``, ``project`` (never a value given)."""
    out = []
    if not s.get("cluster_id"):
        out.append("cluster_id")
    if not s.get("workload_id"):
        if not s.get("workload_name"):
            out.append("workload")
        elif not s.get("project"):
            out.append("project")
    return out
