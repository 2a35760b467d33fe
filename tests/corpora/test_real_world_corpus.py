"""Every record of the public incident corpus (``evals/corpora/real_world.json``) through the product's own readers
and the classifier: the category the skill gives when the record is the strongest evidence.

How a record reaches the product decides the reader: a system component's reason/message (pod and node events, pod
status, container states, node conditions, Kueue conditions; tools that print on the node: nvidia-smi, the device
plugin, docker, Ray's control plane) goes through the system-message rules (a node event only through the kinds a
Node may carry); the workload's own output (``log_tail`` written by the application, its launcher or its init
container) goes line by line through the log rules, next to the container's non-zero exit that brought it. A
near-miss about an application's crash (an application-class Xid on the node) is read next to that exit: it must not
move the verdict off it. A record
that alone cannot decide (a metric's definition, a symptom whose cause the thread found elsewhere) says what else
decides in its ``needs`` field and is not checked alone (its ``must_not_be`` is about the whole incident).
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from workload_diagnose.agent.evidence.rules import kinds_for_object, kinds_from_log_line, kinds_from_reason_message
from workload_diagnose.agent.model.signals import Kind, Signal
from workload_diagnose.agent.taxonomy import classify

CORPUS = json.loads((Path(__file__).parents[2] / "evals" / "corpora" / "real_world.json").read_text())
# writers whose words reach the diagnosis as system messages (events, statuses, conditions), not as the workload's log
_SYSTEM_WRITER = re.compile(r"device-plugin|nvidia-smi|docker|kubeadm|cri-o|kubectl|\bray\b(?! \()|raylet|"
                            r"ray memory monitor|ray \((?:raylet|NODE_DIED)", re.IGNORECASE)


def own_output(rec: dict) -> bool:
    return rec["where"] == "log_tail" and not _SYSTEM_WRITER.search(rec["emitter"])


def read(rec: dict) -> list[Signal]:
    """The signals the product's readers make of one record (plus, for the workload's own output, its exit)."""
    text, reason = rec["text"], rec["reason"] or None
    if own_output(rec):
        init = "init container" in rec["emitter"]
        exit_kind = Kind.INIT_FAILED if init else Kind.APP_EXIT
        sigs = [Signal(kind=exit_kind, source="kubectl describe pod", text="terminated with exit code 1", exit_code=1)]
        for line in text.splitlines():
            sigs += [Signal(kind=k, source="kubectl logs", text=line, detail=d) for k, d, _ in kinds_from_log_line(line)]
        return sigs
    kinds = kinds_from_reason_message(reason, text, names=[])
    if rec["where"] == "node_event":
        kinds = kinds_for_object(kinds, "Node")
    sigs = [Signal(kind=k, source=rec["where"], text=text, detail=d, exit_code=c) for k, d, c in kinds]
    if rec["near_miss"] and rec["category"] == "CRASH_APP_ERROR":
        sigs.append(Signal(kind=Kind.APP_EXIT, source="kubectl describe pod", text="terminated with exit code 1",
                           exit_code=1))
    return sigs


def verdict(rec: dict) -> str | None:
    sigs = read(rec)
    if any(s.kind == Kind.PREEMPTED for s in sigs):
        return None  # routed out before classification
    v = classify(sigs).category
    return None if v == "UNKNOWN" and rec["category"] is None else v


@pytest.mark.parametrize("rec", CORPUS, ids=[f"{i}:{r['where']}:{r['source'].rsplit('/', 3)[-3]}"
                                             for i, r in enumerate(CORPUS)])
def test_record(rec):
    if rec.get("needs"):
        return
    got = verdict(rec)
    assert got not in rec.get("must_not_be", []), f"{got} for {rec['text'][:120]!r}"
    assert got == rec["category"], f"{got} != {rec['category']} for {rec['text'][:160]!r} ({rec['source']})"


def test_every_record_is_sourced_and_classed():
    for rec in CORPUS:
        assert rec["source"].startswith("https://") and rec["class"] in range(1, 7) and rec["text"].strip()
