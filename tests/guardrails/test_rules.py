"""Every rule of the table carries its own proof (the gitleaks style): its true-positive samples are
redacted over the whole secret span, its false-positive samples come out unchanged, and each true sample
is matched by the rule's own pattern (so the sample proves that rule, not a neighbour)."""

from __future__ import annotations

import re2
import pytest

from workload_diagnose.guardrails import redact, redact_value
from workload_diagnose.guardrails.redaction import ALL_RULES, FORMATS, KNOWN_FORMATS, Rule

_IDS = [r.id for r in ALL_RULES]


def _window_left(secret: str, out: str, k: int = 8) -> str | None:
    """An 8-character window of ``secret`` still present in ``out`` (full-span recall)."""
    if len(secret) < k:
        return secret if secret in out else None
    return next((secret[i:i + k] for i in range(len(secret) - k + 1) if secret[i:i + k] in out), None)


def test_rule_ids_are_unique_and_every_rule_has_samples():
    assert len(set(_IDS)) == len(_IDS)
    for r in ALL_RULES:
        assert r.tp and r.fp, f"{r.id}: a rule needs true and false samples"
        assert r.keywords, f"{r.id}: a rule needs keywords"


def test_known_formats_are_the_format_rules():
    assert [k for k, _p in KNOWN_FORMATS] == [r.kind for r in FORMATS]


@pytest.mark.parametrize("rule", ALL_RULES, ids=_IDS)
def test_true_samples_are_redacted_over_the_whole_span(rule: Rule):
    rx = re2.compile(rule.pattern)
    for text, secret in rule.true_samples():
        assert secret in text, f"{rule.id}: the secret must be in its sample"
        assert any(k.lower() in text.lower() for k in rule.keywords), f"{rule.id}: no keyword in {text!r}"
        assert rx.search(text) is not None, f"{rule.id}: its own pattern does not match {text!r}"
        out = redact(text)
        left = _window_left(secret, out)
        assert left is None, f"{rule.id}: {left!r} of the secret survived in {out!r}"
        assert "[REDACTED:" in out
        assert redact(out) == out  # idempotent
        # the same text as a JSON string value (structure-aware path) and after a JSON escape
        assert _window_left(secret, str(redact_value({"log": text}))) is None, rule.id


@pytest.mark.parametrize("rule", ALL_RULES, ids=_IDS)
def test_false_samples_are_unchanged(rule: Rule):
    for text in rule.fp:
        assert redact(text) == text, f"{rule.id}: {text!r} -> {redact(text)!r}"
        assert redact_value({"log": text}) == {"log": text}, rule.id
