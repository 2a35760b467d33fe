"""The chat's conversation suite: whole conversations, turn by turn, against a scenario's world, through the real
chat graph (``agent.chat.api.chat``) over real HTTP to the simulator.

One conversation is one file ``evals/chat/conversations/<name>.json``::

    {"description": "...",
     "about": "why the answer follows from the procedures' rules",
     "scenario": "preempted/priority-preemption",   # the world served and its pinned "now" (case.json args)
     "turns": [{"say": "what killed workload {workload_id} on cluster {cluster_id}?",
                "expect": {"needs_input": false, "missing": [], "outcome": "diagnosed",
                           "category": null, "reason": "PRIORITY_PREEMPTION", "route": null,
                           "reply_contains": ["did not fail: it was preempted"],
                           "reply_excludes": ["skill", "Category: none"], "reads": 0}}]}

``say`` may name ``{workload_id}``, ``{cluster_id}``, ``{cluster_name}`` (the simulator's name for the cluster),
``{name}`` and ``{project}`` (the scenario's workload, as its world lists it), and so may the expected reply's
words. Every key of ``expect`` is optional:
``outcome`` / ``category`` / ``reason`` / ``route`` are the ``diagnosis`` object's (null: no diagnosis when
``outcome`` is null); ``reads`` the number of Run:ai reads the turn may make at most (``0``: answered from the
thread). The expected answers come from the procedures' rules on the world's evidence, never from the code.

``python -m workload_diagnose.evals.chat_conversations`` runs them all and prints one line per failing turn
(exit 1), or the count (exit 0); ``tests/chat/test_conversations.py`` runs each as a test.
"""
from __future__ import annotations

import copy
import json
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
CONVERSATIONS = ROOT / "chat" / "conversations"
SCENARIOS = ROOT / "scenarios"
_VERDICT = ("outcome", "category", "reason", "route")
PLAIN_WORDS = ("Option A", "Option B")  # never in a chat reply, whatever a turn expects


def names() -> list[str]:
    return sorted(p.stem for p in CONVERSATIONS.glob("*.json"))


def load(name: str) -> dict:
    return json.loads((CONVERSATIONS / f"{name}.json").read_text())


def _values(world: dict, args: dict) -> dict[str, str]:
    from workload_diagnose.evals.simulator import World

    wid = args.get("workload_id")
    w = next((x for x in world.get("workloads") or [] if x.get("id") == wid), None) or {}
    cid = args.get("cluster_id") or w.get("clusterId") or ""
    listed = {c["uuid"]: c["name"] for c in World.load(world).clusters()}
    return {"workload_id": wid or "", "cluster_id": cid, "cluster_name": listed.get(cid, ""),
            "name": w.get("name") or args.get("workload_name") or "", "project": w.get("projectName")
            or args.get("project") or ""}


def check(turn: int, expect: dict, r: Any, reads: int, values: dict[str, str] | None = None) -> list[str]:
    """What differs between one turn's ``ChatReply`` and its expectation (empty: the turn passes); the reply's
    expected words may name the same ``{...}`` values as ``say``."""
    bad: list[str] = []
    expect = {**expect, **{k: [x.format(**(values or {})) for x in expect.get(k) or []]
                           for k in ("reply_contains", "reply_excludes")}}
    d = r.diagnosis or {}
    if "needs_input" in expect and r.needs_input != expect["needs_input"]:
        bad.append(f"needs_input {r.needs_input}, expected {expect['needs_input']}")
    if "missing" in expect and list(r.missing) != expect["missing"]:
        bad.append(f"missing {r.missing}, expected {expect['missing']}")
    for k in _VERDICT:
        if k in expect and d.get(k) != expect[k]:
            bad.append(f"diagnosis {k} {d.get(k)!r}, expected {expect[k]!r}")
    for s in expect.get("reply_contains") or []:
        if s not in r.reply:
            bad.append(f"reply lacks {s!r}")
    for s in [*(expect.get("reply_excludes") or []), *PLAIN_WORDS]:
        if s.lower() in r.reply.lower():
            bad.append(f"reply has {s!r}")
    if "reads" in expect and reads > expect["reads"]:
        bad.append(f"{reads} Run:ai reads, expected at most {expect['reads']}")
    return [f"turn {turn}: {b}" for b in bad]


def run(name: str, checkpointer: Any = None) -> list[str]:
    """Play conversation ``name``; returns what failed (empty: it passed)."""
    from langgraph.checkpoint.memory import InMemorySaver

    from workload_diagnose.agent.chat.api import chat
    from workload_diagnose.evals.simulator import running_simulator

    conv = load(name)
    sc = SCENARIOS / conv["scenario"]
    args = json.loads((sc / "case.json").read_text())["args"]
    world = json.loads((sc / "world.json").read_text())
    values = _values(world, args)
    saver = checkpointer if checkpointer is not None else InMemorySaver()
    thread = str(uuid.uuid4())
    failures: list[str] = []
    with running_simulator(copy.deepcopy(world)) as sim:
        for i, turn in enumerate(conv["turns"], 1):
            before = len(sim.requests)
            r = chat(thread, turn["say"].format(**values), checkpointer=saver, now=args.get("now"),
                     runai_url=sim.url, client_id=sim.client_id, client_secret=sim.client_secret, use_kube=False,
                     retry_sleep=lambda s: None)
            reads = len([p for _, p in sim.requests[before:] if not p.startswith("/api/v1/token")])
            failures += check(i, turn.get("expect") or {}, r, reads, values)
    return [f"{name}: {f}" for f in failures]


def main() -> int:
    failures = [f for n in names() for f in run(n)]
    for f in failures:
        print(f)
    print(f"{len(names())} conversation(s), {len(failures)} failing turn(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
