"""Every understanding rule of the chat matches its own true samples and none of its false ones."""
import pytest

from workload_diagnose.agent.chat.rules import all_rules

RULES = all_rules()


@pytest.mark.parametrize("rule", RULES, ids=[r.name for r in RULES])
def test_rule_samples(rule):
    assert rule.true, f"{rule.name} has no true sample"
    for s in rule.true:
        assert rule.find(s), f"{rule.name} should match {s!r}"
    for s in rule.false:
        assert not rule.find(s), f"{rule.name} should not match {s!r}"


def test_rule_names_are_unique():
    names = [r.name for r in RULES]
    assert len(names) == len(set(names))
