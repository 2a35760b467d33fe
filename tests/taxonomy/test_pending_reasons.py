"""The pending-reason records prove themselves: every rule's true samples give its reason through the interpreter
(``agent.evidence.waits``) and its false samples do not; the precedence decides between reasons shown together;
no product file outside ``agent/taxonomy/`` names a pending reason."""
from __future__ import annotations

import re

import pytest

from workload_diagnose.agent.evidence.waits import strongest, wait_reasons
from workload_diagnose.agent.taxonomy.pending_record import as_pair_sample
from workload_diagnose.agent.taxonomy.pending_registry import BY_NAME, NAMES, REASONS, UNKNOWN
from tests.taxonomy.test_names_in_one_place import literals, product_files

RULES = [(rec, rule) for rec in REASONS for rule in rec.rules]


@pytest.mark.parametrize("rec,rule", RULES, ids=[rule.name for _, rule in RULES])
def test_rule_samples(rec, rule):
    assert rule.true and rule.false, f"{rule.name} needs true and false samples"
    for s in rule.true:
        reason, message = as_pair_sample(s)
        got = [r.name for r, _ in wait_reasons(reason, message, names=[])]
        assert rec.name in got, f"{rule.name}: {s!r} should give {rec.name}, got {got}"
    for s in rule.false:
        reason, message = as_pair_sample(s)
        got = [r.name for r, _ in wait_reasons(reason, message, names=[])]
        assert rec.name not in got, f"{rule.name}: {s!r} should not give {rec.name}"


def test_the_fallback_is_last_and_has_no_rules():
    assert REASONS[-1] is UNKNOWN and not UNKNOWN.rules
    assert [r.precedence for r in REASONS] == sorted(r.precedence for r in REASONS)


@pytest.mark.parametrize("reason,message,want", [
    # Kueue's preemptor waits for its victims: the more specific reason wins over "not admitted"
    ("Pending", "couldn't assign flavors to pod set main: insufficient unused quota for memory in flavor default, "
                "1953125Ki more needed. Pending the preemption of 1 workload(s)", "WAITING_FOR_PREEMPTION"),
    # Run:ai's quota reason with its pool message: quota, not a full pool
    ("NonPreemptibleOverQuota", "Not enough resources in the requested nodepool", "QUOTA_EXHAUSTED"),
    # matching nodes lack GPUs: the pool is full, whatever else did not match
    ("FailedScheduling", "0/4 nodes are available: 1 node(s) didn't match pod affinity rules, 3 Insufficient "
                         "nvidia.com/gpu.", "NODE_POOL_FULL"),
])
def test_precedence_decides(reason, message, want):
    assert strongest(r for r, _ in wait_reasons(reason, message, names=[])).name == want


def test_names_and_planted_text_do_not_steer():
    # a workload named after a reason's words, and a message that is not a system component's, show nothing
    assert wait_reasons("Started", "Started container train-is-over-quota", names=["train-is-over-quota"]) == []
    assert wait_reasons("Unschedulable", "0/8 nodes are available: 8 Insufficient nvidia.com/gpu.", names=[],
                        emitter="my-sidecar") == []
    assert wait_reasons("Note", "\"Pod x was pipelined to node y\"", names=[]) == []


def test_no_pending_reason_name_outside_the_taxonomy():
    rx = re.compile(r"(?<![A-Za-z0-9_])(?:" + "|".join(n for n in NAMES if n != UNKNOWN.name) + r")(?![A-Za-z0-9_])")
    # (the injection corpus quotes verdict names as an attacker writes them: attack text, not a product list)
    files = [f for f in product_files() if "corpora" not in f.parts]
    hits = [f"{f}:{line}" for f in files for line, s in literals(f) if rx.search(s)]
    assert hits == []
    assert set(BY_NAME) == set(NAMES)
