"""Every rule record proves itself (gitleaks style): its true samples produce its kind through the interpreter
(``kinds_from_reason_message``) and its false samples do not; every category but the fallback has rules with
samples; the chat words of each category match their samples."""
from __future__ import annotations

import pytest

from workload_diagnose.agent.evidence.rules import kinds_from_log_line, kinds_from_reason_message
from workload_diagnose.agent.taxonomy.record import as_pair
from workload_diagnose.agent.taxonomy.registry import ALL_RULES, CATEGORIES, CHAT_WORDS, UNKNOWN


@pytest.mark.parametrize("rule", ALL_RULES, ids=[r.name for r in ALL_RULES])
def test_rule_samples(rule):
    assert rule.true and rule.false, f"{rule.name} needs true and false samples"

    def read(reason, message):  # a log rule reads one line of the workload's output; the others a system message
        if rule.reads_log:
            assert reason is None, f"{rule.name}: a log line has no reason"
            return kinds_from_log_line(message)
        return kinds_from_reason_message(reason, message, names=[])

    for s in rule.true:
        reason, message = as_pair(s)
        got = read(reason, message)
        kinds = [(k, d) for k, d, _ in got]
        assert rule.kind in [k for k, _ in kinds], f"{rule.name}: {s!r} should give {rule.kind.value}, got {got}"
        if isinstance(rule.detail, str) and rule.detail != "reason":
            assert (rule.kind, rule.detail) in kinds, f"{rule.name}: {s!r} should be decided by this rule, got {got}"
    for s in rule.false:
        reason, message = as_pair(s)
        got = read(reason, message)
        assert rule.kind not in [k for k, _, _ in got], f"{rule.name}: {s!r} should not give {rule.kind.value}"


def test_rule_names_are_unique():
    names = [r.name for r in ALL_RULES]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("cat", CATEGORIES, ids=[c.name for c in CATEGORIES])
def test_every_category_has_rules_with_samples(cat):
    if cat is UNKNOWN:
        assert not cat.rules and not cat.kinds
        return
    assert cat.rules, f"{cat.name} has no signal rule"
    assert all(r.true and r.false for r in cat.rules)


@pytest.mark.parametrize("words,name", CHAT_WORDS, ids=[n for _, n in CHAT_WORDS])
def test_chat_words_samples(words, name):
    assert words.true, f"{name}'s chat words have no sample"
    for s in words.true:
        assert words.rx.search(s), f"{name}: {s!r} should match"
    for s in words.false:
        assert not words.rx.search(s), f"{name}: {s!r} should not match"


def test_the_fallback_is_last_and_precedence_is_the_order():
    assert CATEGORIES[-1] is UNKNOWN
    assert [c.precedence for c in CATEGORIES] == sorted(c.precedence for c in CATEGORIES)


def test_read_the_node_decision_comes_from_the_records():
    from workload_diagnose.agent.model.signals import Kind, Signal
    from workload_diagnose.agent.taxonomy import reads_node

    def sig(kind):
        return Signal(kind=kind, source="test", text=kind.value)

    assert reads_node([])  # nothing explains the failure: node conditions are one of the causes
    assert reads_node([sig(Kind.EXIT_137)])
    assert reads_node([sig(Kind.OOM), sig(Kind.NODE_FAILURE)])  # node evidence, even when another category wins
    assert not reads_node([sig(Kind.OOM)])
    # an application's exit may be the symptom of the node's GPU fault (node_failure's ``explains``): read the node
    assert reads_node([sig(Kind.APP_EXIT), sig(Kind.CRASH_LOOP)])
    assert reads_node([sig(Kind.INIT_FAILED)])  # a GPU check in an init container, on a GPU the driver lost
    assert not reads_node([sig(Kind.IMAGE_PULL)]) and not reads_node([sig(Kind.MOUNT_FAILED)])


def test_every_triage_group_names_a_fact_reader():
    from workload_diagnose.agent.triage.patterns import FACTS, RULES

    groups = [(c.name, g) for c in CATEGORIES for g in c.triage]
    assert groups and all(g.facts in FACTS for _, g in groups)
    assert [(r.kind, r.categories) for r in RULES] == [(g.kind, frozenset({n})) for n, g in groups]
