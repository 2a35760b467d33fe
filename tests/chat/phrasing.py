"""The phrasings data file (evals/chat/phrasings.json) and how a question is phrased from a scenario's world."""
from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PHRASINGS = json.loads((ROOT / "evals" / "chat" / "phrasings.json").read_text())["phrasings"]
_SLOT = re.compile(r"\{(\w+)\}")
_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def slots_of(text: str) -> set[str]:
    """What a template states: cluster, workload_id, name, project, lookback."""
    out = set()
    for s in _SLOT.findall(text):
        out.add({"cluster_id": "cluster", "cluster_name": "cluster", "lookback_words": "lookback"}.get(s, s))
    return out


def args_slots(args: dict) -> set[str]:
    m = {"cluster_id": "cluster", "workload_id": "workload_id", "workload_name": "name", "project": "project",
         "lookback": "lookback"}
    return {m[k] for k in args if k in m}


def fill(text: str, values: dict) -> str:
    lb = values.get("lookback") or "7d"
    vals = {**values, "lookback_words": f"{int(lb[:-1])} {_UNITS[lb[-1]]}"}
    return _SLOT.sub(lambda m: str(vals[m.group(1)]), text)


def phrase_for(args: dict, cluster_names: dict[str, str], counter: dict,
               procedure: str | None = None) -> tuple[str, dict]:
    """A question from the phrasings of ``procedure`` (None: the failed-workload diagnosis's) whose slots are exactly
    the scenario's arguments (and, for the failed diagnosis, whose intent words agree with an Option B intent),
    rotating through them; a cluster is named only when the API lists it."""
    want = args_slots(args)
    intent = args.get("intent", "terminal")
    name_ok = args.get("cluster_id") in cluster_names
    cands = [p for p in PHRASINGS if slots_of(p["text"]) == want and p.get("procedure") == procedure
             and ("{cluster_name}" not in p["text"] or name_ok)
             and ("name" not in want or procedure is not None or p["intent"] == intent)]
    assert cands, f"no phrasing fits {sorted(want)} / {intent} / {procedure}"
    key = (tuple(sorted(want)), intent, name_ok, procedure)
    i = counter.get(key, 0)
    counter[key] = i + 1
    p = cands[i % len(cands)]
    values = {"workload_id": args.get("workload_id"), "name": args.get("workload_name"),
              "project": args.get("project"), "cluster_id": args.get("cluster_id"),
              "cluster_name": cluster_names.get(args.get("cluster_id") or ""), "lookback": args.get("lookback")}
    return fill(p["text"], values), p
