"""The preemption reasons are defined once and prove themselves: every rule's true samples decide its reason through
the interpreter (``agent.evidence.preemption``) and its false samples do not fire it; the fallback has no rule; no
product file outside the taxonomy names a reason; the scheduler's own messages (NVIDIA/KAI-Scheduler, Kueue) give
the reason the procedure documents."""
from __future__ import annotations

import re

import pytest

from tests.taxonomy.test_names_in_one_place import literals, product_files
from workload_diagnose.agent.evidence.preemption import (classify_notice, facts_from_figures, neutral,
                                                         preemptor_of, queue_figures, rule_fires)
from workload_diagnose.agent.taxonomy.preemption import BY_NAME, FALLBACK, NAMES, REASONS, as_sample
from workload_diagnose.agent.taxonomy.preemption_record import (OWNERS, PROJECT_OVER_QUOTA, RECLAIMER_AT_OR_OVER_QUOTA,
                                                                RECLAIMER_BELOW_QUOTA, Pool, PreemptionContext)

RULES = [(r, rule) for r in REASONS for rule in r.rules]


@pytest.mark.parametrize("reason,rule", RULES, ids=[rule.name for _, rule in RULES])
def test_rule_samples(reason, rule):
    assert rule.true and rule.false, f"{rule.name} needs true and false samples"
    for s in rule.true:
        why, msg, facts = as_sample(s)
        assert rule_fires(rule, why, msg, facts), f"{rule.name}: {s!r} should fire"
        assert classify_notice(why, msg, facts).reason is reason, f"{rule.name}: {s!r} should give {reason.name}"
    for s in rule.false:
        why, msg, facts = as_sample(s)
        assert not rule_fires(rule, why, msg, facts), f"{rule.name}: {s!r} should not fire"


def test_the_set_is_fixed_and_the_fallback_is_last():
    assert set(NAMES) == {"PRIORITY_PREEMPTION", "FAIR_SHARE_RECLAIM", "OVER_QUOTA_RECLAIM", "CONSOLIDATION",
                          "KUEUE_PREEMPTION", "UNKNOWN"}
    assert REASONS[-1] is FALLBACK and not FALLBACK.rules and all(r.rules for r in REASONS[:-1])
    assert all(r.owner in OWNERS for r in REASONS) and len({rule.name for _, rule in RULES}) == len(RULES)


def test_no_product_file_outside_the_taxonomy_names_a_reason():
    rx = re.compile(r"(?<![A-Za-z0-9])(?:" + "|".join(n for n in NAMES if n != FALLBACK.name) + r")(?![A-Za-z0-9])")
    hits = [f"{f}:{line}: {m.group(0)}" for f in product_files() for line, s in literals(f) for m in rx.finditer(s)]
    assert hits == []


# The messages as the schedulers write them (docs/reference/runai-projects-nodepools.md cites each source)
KAI_PREEMPT = "Pod runai-a/train-0 was preempted by higher priority workload runai-a/urgent"
KAI_RECLAIM = ("Pod runai-a/train-0 was preempted by workload runai-b/serve.\n"
               "a uses <GPU: 12, CPU: 4 (cores), memory: 64 (GB)> with a quota of <GPU: 8, CPU: 0 (cores), memory: 0 "
               "(GB)>, fair-share of <GPU: 9.5, CPU: 0 (cores), memory: 0 (GB)> and queue priority of <100>.\n"
               "b uses <GPU: {used}, CPU: 0 (cores), memory: 0 (GB)> with a quota of <GPU: 6, CPU: 0 (cores), "
               "memory: 0 "
               "(GB)>, fair-share of <GPU: 10, CPU: 0 (cores), memory: 0 (GB)> and queue priority of <100>.")
KAI_CONSOLIDATE = ("Pod runai-a/train-0 was preempted and rescheduled due to bin packing (resource consolidation) "
                   "procedure")


def _reason(reason, message, facts=None, names=()):
    msg = message
    return classify_notice(reason, msg, facts if facts is not None else facts_from_figures(queue_figures(msg)),
                           names).reason.name


def test_the_schedulers_messages_give_their_reasons():
    assert _reason("Evict", KAI_PREEMPT) == BY_NAME["PRIORITY_PREEMPTION"].name
    assert _reason("Evict", KAI_CONSOLIDATE) == BY_NAME["CONSOLIDATION"].name
    assert _reason("Evict", KAI_RECLAIM.format(used=2)) == BY_NAME["OVER_QUOTA_RECLAIM"].name  # b below its quota
    assert _reason("Evict", KAI_RECLAIM.format(used=7)) == BY_NAME["FAIR_SHARE_RECLAIM"].name  # b above its quota
    assert _reason("Evict", KAI_RECLAIM.format(used=2).split("\n")[0]) == FALLBACK.name  # no figures, no fact
    assert _reason("Evict", KAI_RECLAIM.format(used=2).split("\n")[0], {PROJECT_OVER_QUOTA: True}) == \
        BY_NAME["OVER_QUOTA_RECLAIM"].name
    got = classify_notice("Preempted", "Preempted to accommodate a workload (UID: x, JobUID: UNKNOWN) due to "
                                       "reclamation within the cohort while borrowing", {})
    assert (got.reason.name, got.detail) == (BY_NAME["KUEUE_PREEMPTION"].name, "InCohortReclaimWhileBorrowing")


def test_figures_and_preemptor_are_read_from_the_message_and_names_cannot_steer():
    figs = queue_figures(KAI_RECLAIM.format(used=7))
    assert [(f.queue, f.used, f.quota, f.fair_share, f.priority) for f in figs] == [("a", 12, 8, 9.5, 100),
                                                                                     ("b", 7, 6, 10, 100)]
    assert facts_from_figures(figs) == {PROJECT_OVER_QUOTA: True, RECLAIMER_BELOW_QUOTA: False,
                                        RECLAIMER_AT_OR_OVER_QUOTA: True}
    assert facts_from_figures(figs[:1]) == {}  # one queue's figures establish nothing
    assert preemptor_of(KAI_PREEMPT) == ("runai-a", "urgent")
    assert preemptor_of(KAI_RECLAIM) == ("runai-b", "serve")
    # a preemptor named like a mechanism, a queue named like one, the workload's own name: all scrubbed first
    hostile = ("Pod runai-a/higher-priority-x-0 was preempted by workload runai-b/bin-packing-7.\n"
               "bin-packing uses <GPU: 1, CPU: 0 (cores), memory: 0 (GB)> with a quota of <GPU: 8, CPU: 0 (cores), "
               "memory: 0 (GB)>, fair-share of <GPU: 8, CPU: 0 (cores), memory: 0 (GB)> and queue priority of <1>.")
    assert "bin-packing" not in neutral(hostile, ["higher-priority-x"])
    assert _reason("Evict", hostile, {}, ["higher-priority-x"]) == FALLBACK.name


def test_recommendations_quote_only_figures_that_were_read():
    empty = PreemptionContext(project=None, requested_gpus=None, preemptible=None, priority_class=None,
                              terminate_after_preemption=None, pool=None)
    for r in REASONS:
        out = r.recommend(empty)
        assert out and all(isinstance(x, str) and x for x in out)
        # no figure that was not read
        assert not any(re.search(r"\bNone\b|\d", x.replace("Tier 2", "")) for x in out), (r.name, out)
    pool = Pool(name="a100", deserved=8, allocated=12, allocated_non_preemptible=4, limit=-1, over_quota_weight=2)
    c = PreemptionContext(project="ml", requested_gpus=4, preemptible=True, priority_class="train",
                          terminate_after_preemption=True, pool=pool,
                          other_pools=(Pool("h100", 4, 0, 0, -1, 1),))
    text = " ".join(BY_NAME["OVER_QUOTA_RECLAIM"].recommend(c))
    assert "12 GPUs allocated in node pool a100 against 8 deserved" in text and "Node pool h100" in text
    assert "terminateAfterPreemption is true" in text and "it fits" in text
