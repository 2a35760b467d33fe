"""The chat's conversation suite (evals/chat/conversations/, run by evals/chat_conversations.py): each conversation
played turn by turn through the real chat graph against its scenario's world on the simulator. A conversation that
the failed diagnosis used to end with a route ("preempted", "pending_scheduling") ends in the sibling procedure's
answer; a question about a preemption or a Pending wait goes straight to that procedure; a sibling that cannot decide
says so."""
from __future__ import annotations

import json

import pytest

from workload_diagnose.evals import chat_conversations as cc

NAMES = cc.names()


def test_the_suite_covers_every_hand_off():
    convs = {n: cc.load(n) for n in NAMES}
    reasons = {t["expect"].get("reason") for c in convs.values() for t in c["turns"]}
    assert {"PRIORITY_PREEMPTION", "FAIR_SHARE_RECLAIM", "QUOTA_EXHAUSTED", "NO_MATCHING_NODE", "UNKNOWN"} <= reasons
    firsts = [c["turns"][0]["say"].lower() for c in convs.values()]
    assert any("pending" in f for f in firsts) and any("preempted" in f for f in firsts)  # asked directly
    assert sum(1 for f in firsts if "fail" in f or "killed" in f or "happened" in f) >= 4  # routed from failed
    for n, c in convs.items():
        assert c["description"] and c["about"] and c["turns"], n
        assert (cc.SCENARIOS / c["scenario"] / "world.json").exists(), n


@pytest.mark.parametrize("name", NAMES)
def test_conversation(name, saver):
    assert cc.run(name, saver) == []


def test_a_wrong_expectation_fails(saver, tmp_path, monkeypatch):
    # not vacuous: the same conversation with another reason expected is reported, turn by turn
    conv = cc.load("preempted-by-priority")
    conv["turns"][0]["expect"]["reason"] = "FAIR_SHARE_RECLAIM"
    conv["turns"][1]["expect"]["reads"] = -1
    (tmp_path / "probe.json").write_text(json.dumps(conv))
    monkeypatch.setattr(cc, "CONVERSATIONS", tmp_path)
    got = cc.run("probe", saver)
    assert any("turn 1: diagnosis reason 'PRIORITY_PREEMPTION'" in g for g in got)
    assert any("turn 2:" in g and "Run:ai reads" in g for g in got)
