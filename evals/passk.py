"""Pass^k of the chat's LLM path: with a model in the loop, is the answer the same every time, and the same as
without one?

Every phrasing of ``evals/chat/phrasings.json`` is asked (one turn, a fresh thread) of one simulator world
(``core/oom-metrics``, whose one workload each phrasing names by id, or by name and project; its cluster by id,
or by name): once without a model (the reference), then ``k`` times with each model of
``evals.llm_standin.PERSONAS`` (an honest one and each adversarial one, in-process fakes). A phrasing passes for
a model when all ``k`` runs give the reference's verdict (outcome, category, route, needs_input, missing), ids
(workload, cluster) and tool calls (the Run:ai paths read, each as many times). The reply's wording may differ: it is
validated elsewhere; a model's answer must never change what was read or concluded.

``workload-diagnose eval`` reports it as the "LLM Pass^k" row and ``llm_passk`` in scoreboard.json (``--passk K``;
the default K is :data:`DEFAULT_K`, a smaller k than the 5 the figure is defined with so that CI stays fast:
``--passk 5`` gives the full figure).
"""
from __future__ import annotations

import json
import re
import uuid
from pathlib import Path
from typing import Any

DEFAULT_K = 2
SCENARIO = "core/oom-metrics"
PHRASINGS = Path(__file__).resolve().parent / "chat" / "phrasings.json"
_SLOT = re.compile(r"\{(\w+)\}")
_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def _values(world: dict, args: dict) -> dict[str, str]:
    w = next(x for x in world["workloads"] if x["id"] == args["workload_id"])
    return {"workload_id": w["id"], "name": w["name"], "project": w["projectName"], "cluster_id": w["clusterId"],
            "cluster_name": f"gpu-{w['clusterId'][:8]}", "lookback": "7d", "lookback_words": "7 days"}


def questions(world: dict, args: dict) -> list[str]:
    vals = _values(world, args)
    texts = [p["text"] for p in json.loads(PHRASINGS.read_text())["phrasings"]]
    return [_SLOT.sub(lambda m: vals[m.group(1)], t) for t in texts]


def _outcome(r: Any, requests: list[str]) -> dict:
    d = r.diagnosis or {}
    return {"needs_input": r.needs_input, "missing": list(r.missing),
            "verdict": [d.get("outcome"), d.get("category"), d.get("route")],
            "ids": [(d.get("workload") or {}).get("id"), (d.get("workload") or {}).get("cluster_id")],
            "tool_calls": sorted(requests)}  # independent reads run concurrently: the multiset, not the order


def run(k: int = DEFAULT_K, personas: list[str] | None = None, only: list[int] | None = None) -> dict:
    """The Pass^k record (deterministic: no timings); ``personas`` / ``only`` (phrasing indexes) narrow it."""
    from langgraph.checkpoint.memory import InMemorySaver

    from workload_diagnose.agent.chat.api import chat
    from workload_diagnose.evals.llm_standin import PERSONAS, fake_model
    from workload_diagnose.evals.scenarios import load_scenario
    from workload_diagnose.evals.simulator import running_simulator

    sc = load_scenario(SCENARIO)
    world = json.loads(sc.world.read_text())
    args = sc.args.model_dump()
    names = personas or list(PERSONAS)
    out: dict[str, Any] = {"k": k, "scenario": SCENARIO, "phrasings": 0,
                           "models": {n: {"passed": 0, "total": 0} for n in names}, "failures": []}
    with running_simulator(world) as sim:
        saver = InMemorySaver()

        def turn(text: str, llm: Any) -> dict:
            before = len(sim.requests)
            r = chat(str(uuid.uuid4()), text, checkpointer=saver, now=args.get("now"), runai_url=sim.url,
                     client_id=sim.client_id, client_secret=sim.client_secret, use_kube=False, llm=llm,
                     retry_sleep=lambda s: None)
            return _outcome(r, [p for _, p in sim.requests[before:] if not p.startswith("/api/v1/token")])

        for i, text in enumerate(questions(world, args)):
            if only is not None and i not in only:
                continue
            out["phrasings"] += 1
            ref = turn(text, None)
            for name in names:
                runs = [turn(text, fake_model(name)) for _ in range(k)]
                ok = all(x == ref for x in runs)
                out["models"][name]["total"] += 1
                out["models"][name]["passed"] += ok
                if not ok:
                    bad = next(x for x in runs if x != ref)
                    out["failures"].append({"phrasing": i, "model": name,
                                            "differs": sorted(f for f in ref if ref[f] != bad[f])})
    total = sum(m["total"] for m in out["models"].values())
    out["passed"] = sum(m["passed"] for m in out["models"].values())
    out["total"] = total
    out["ok"] = out["passed"] == total
    return out


def text(p: dict) -> str:
    per = " · ".join(f"{n} {m['passed']}/{m['total']}" for n, m in p["models"].items())
    return (f"  LLM Pass^k (k={p['k']})  {p['passed']}/{p['total']} phrasing×model pairs identical to the no-LLM "
            f"run in every run ({per})")
