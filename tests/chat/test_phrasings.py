"""At least 60 phrasings (evals/chat/phrasings.json) are understood, and for EVERY bundled Tier-1 scenario a
question phrased from its world gives through the chat the answer its command gives: ``failed --json`` for the
failed-workload scenarios, the sibling's ``--json`` (``preempted``, ``pending``) for theirs, asked with that
procedure's own phrasings; a result whose route another procedure answers (its ``next``) is that procedure's
answer on the same workload, exactly what its command prints for it. The real graphs over real HTTP against the
simulator, in-process through agent.chat.api.chat."""
from __future__ import annotations

import copy
import json
import uuid
from pathlib import Path

import pytest

from workload_diagnose.agent.chat.parse import understand
from workload_diagnose.agent.chat.slots import merge
from tests.chat.phrasing import PHRASINGS, ROOT, fill, phrase_for, slots_of

VALUES = {"workload_id": "0b4e7c2a-1f3d-4e5a-8b6c-9d0e1f2a3b4c", "name": "train-42", "project": "ml-team",
          "cluster_id": "3f2c7a1e-8d4b-4c1e-9a57-2b6e0d9c4f11", "cluster_name": "gpu-a100-east", "lookback": "24h"}
# the Tier-1 scenarios of each procedure the chat answers with: the failed-workload one, and each that declares
# chat intents (asked with its own phrasings)
def _tier1(procedure: str) -> list[Path]:
    return sorted(p.parent for p in (ROOT / "evals" / "scenarios").glob("*/*/case.json")
                  if not json.loads(p.read_text()).get("tier2")
                  and json.loads(p.read_text()).get("procedure", "runai_failed") == procedure)


TIER1 = _tier1("runai_failed")
SIBLINGS = ("preempted", "pending", "health")
CHAT_ARGS = {"cluster_id", "workload_id", "workload_name", "project", "lookback", "intent", "now"}


def test_enough_phrasings_across_intents_with_and_without_ids():
    assert len(PHRASINGS) >= 60
    intents = {p["intent"] for p in PHRASINGS}
    assert {"terminal", "active"} <= intents
    assert any("{workload_id}" in p["text"] for p in PHRASINGS)
    assert any("{workload_id}" not in p["text"] and "{cluster_id}" not in p["text"] for p in PHRASINGS)


@pytest.mark.parametrize("p", PHRASINGS, ids=[str(i) for i in range(len(PHRASINGS))])
def test_every_phrasing_is_understood(p):
    text = fill(p["text"], VALUES)
    parsed = understand(text)
    slots, _ = merge({}, parsed, [], None)
    want = slots_of(p["text"])
    expect = {
        "cluster_id": VALUES["cluster_id"] if "{cluster_id}" in p["text"] else None,
        "cluster_name": VALUES["cluster_name"] if "{cluster_name}" in p["text"] else None,
        "workload_id": VALUES["workload_id"] if "workload_id" in want else None,
        "workload_name": VALUES["name"] if "name" in want else None,
        "project": VALUES["project"] if "project" in want else None,
        "lookback": VALUES["lookback"] if "lookback" in want else None,
    }
    got = {k: slots.get(k) for k in expect}
    assert got == expect, text
    assert parsed.intent == p["intent"], text
    assert (parsed.procedure or "runai_failed") == p.get("procedure", "runai_failed"), text
    assert not parsed.out_of_scope and not parsed.action, text


def test_the_siblings_phrasings_are_their_specs_intents():
    from workload_diagnose.agent.chat.handoff import chat_specs

    assert {s.name for s in chat_specs() if s.chat.intents} == set(SIBLINGS)
    for name in SIBLINGS:
        assert len([p for p in PHRASINGS if p.get("procedure") == name]) >= 6, name


@pytest.fixture(scope="module")
def saver(tmp_path_factory):
    from workload_diagnose.agent.chat.store import open_checkpointer

    with open_checkpointer(str(tmp_path_factory.mktemp("chat") / "chat.sqlite")) as cp:
        yield cp


def _answered(procedure: str, args: dict, conn: dict) -> dict:
    """What the commands print for the scenario: ``procedure``'s --json object, or, when its ``next`` names another
    registered procedure's command (a route that one answers), that procedure's on the same workload (the chain
    a person would follow at the command line; each procedure once)."""
    from workload_diagnose.agent.api import run_procedure
    from workload_diagnose.agent.procedures import specs

    d = run_procedure(procedure, **conn, **args).model_dump(mode="json")
    ran = [procedure]
    while d.get("next"):
        nxt = next((s for s in specs().values() if s.command and s.command.name == d["next"]), None)
        w = d.get("workload") or {}
        if nxt is None or nxt.name in ran or not w.get("id"):
            break
        ran.append(nxt.name)
        more = {k: args[k] for k in ("now", "lookback", "intent") if k in args}
        d = run_procedure(nxt.name, **conn, cluster_id=w["cluster_id"], workload_id=w["id"], **more
                          ).model_dump(mode="json")
    return d


def _one(sc: Path, text: str, saver, procedure: str = "runai_failed") -> str | None:
    """None when the chat's answer is the one the commands give on the same world, else what differed."""
    from workload_diagnose.agent.chat.api import chat
    from workload_diagnose.evals.simulator import running_simulator

    args = json.loads((sc / "case.json").read_text())["args"]
    world = json.loads((sc / "world.json").read_text())
    with running_simulator(copy.deepcopy(world)) as sim:
        conn = dict(runai_url=sim.url, client_id=sim.client_id, client_secret=sim.client_secret,
                    retry_sleep=lambda s: None, use_kube=False)
        want = _answered(procedure, args, conn)
        before = len(sim.requests)
        r = chat(str(uuid.uuid4()), text, checkpointer=saver, now=args.get("now"), **conn)
        chat_requests = sim.requests[before:]
    if want["outcome"] == "needs_input":
        ok = r.needs_input and r.diagnosis is None
        if want["route"] == "missing_parameters":
            named = {"cluster_id": "cluster_id", "workload": "workload_id", "project": "project"}
            ok = ok and not [w for w in r.missing if named[w] in args]  # never asks for what was given
            ok = ok and not [q for q in chat_requests if "/workloads" in q[1]]  # no workload read without all ids
        else:
            ok = ok and want["question"] in r.reply
    else:
        ok = not r.needs_input and r.diagnosis == want  # byte for byte the command's --json object
        if "reason" in want:  # a sibling's answer reads as a chat answer, not its report's header lines
            ok = ok and not any(line.startswith(("Reason:", "Workload:", "Owner:")) for line in r.reply.splitlines())
    ok = ok and "Option A" not in r.reply and "Option B" not in r.reply  # plain words in the chat (issue 24)
    if ok:
        return None
    d = r.diagnosis or {}
    return (f"{sc.relative_to(ROOT)}: {text!r}: want={want['outcome']}/{want.get('category') or want.get('reason')}/"
            f"{want['route']} chat=needs_input {r.needs_input} {r.missing} {d.get('outcome')}/"
            f"{d.get('category') or d.get('reason')}/{d.get('route')}")


def test_every_tier1_scenario_same_verdict_as_failed(saver):
    """A route the failed diagnosis hands on (preempted, pending_scheduling) ends in that sibling's answer."""
    from concurrent.futures import ThreadPoolExecutor

    from workload_diagnose.evals.simulator import World

    assert len(TIER1) >= 100
    counter: dict = {}
    jobs = []
    for sc in TIER1:
        args = json.loads((sc / "case.json").read_text())["args"]
        names = {c["uuid"]: c["name"] for c in World.load(sc).clusters()}
        jobs.append((sc, *phrase_for(args, names, counter)))
    with ThreadPoolExecutor(max_workers=4) as pool:
        mismatches = [m for m in pool.map(lambda j: _one(j[0], j[1], saver), jobs) if m]
    assert not mismatches, "\n".join(mismatches)
    assert len({p["text"] for _, _, p in jobs}) >= 40  # the sweep rotates through the phrasings


@pytest.mark.parametrize("procedure", SIBLINGS)
def test_every_tier1_scenario_of_a_sibling_same_answer_as_its_command(saver, procedure):
    from concurrent.futures import ThreadPoolExecutor

    from workload_diagnose.evals.simulator import World

    # a scenario whose arguments a chat message cannot carry (a department scope, a diagnosis limit) is the command's
    scenarios = [sc for sc in _tier1(procedure)
                 if not set(json.loads((sc / "case.json").read_text())["args"]) - CHAT_ARGS]
    assert len(scenarios) >= 25
    counter: dict = {}
    jobs = []
    for sc in scenarios:
        args = json.loads((sc / "case.json").read_text())["args"]
        names = {c["uuid"]: c["name"] for c in World.load(sc).clusters()}
        jobs.append((sc, *phrase_for(args, names, counter, procedure)))
    with ThreadPoolExecutor(max_workers=4) as pool:
        mismatches = [m for m in pool.map(lambda j: _one(j[0], j[1], saver, procedure), jobs) if m]
    assert not mismatches, "\n".join(mismatches)
    assert len({p["text"] for _, _, p in jobs}) >= 5
