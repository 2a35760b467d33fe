"""Messages written by system components → signal kinds: the interpreter of the taxonomy's rule records
(``agent.taxonomy.registry``: each category's and each signal set's ``SignalRule``s). Pure functions; no I/O.

Only *structured* fields and messages written by system components (Run:ai control plane, kubelet, scheduler)
can produce a signal. Free text an attacker controls never does through these rules: submit commands and
annotations are quoted in reports but never matched, container logs and termination messages only line by line
through the few strict log rules (``kinds_from_log_line``: a GPU hardware fault in the words the CUDA runtime,
NVML, NCCL or the driver print), and before a system message is
matched, every quoted segment ("image refs", names) and every known user-chosen name (workload, project, pods,
containers) is scrubbed out of it, so a workload named ``oomkilled-preempted-by-x`` cannot steer the verdict.
"""
from __future__ import annotations

import re
from typing import Iterable

from workload_diagnose.agent.model.signals import Kind
from workload_diagnose.agent.taxonomy.record import SignalRule
from workload_diagnose.agent.taxonomy.registry import (EXCLUSIVE_RULES, EXIT_CODE_RULES, LOG_RULES, MESSAGE_RULES,
                                                       OBJECT_KINDS)
from workload_diagnose.agent.taxonomy.vocabulary import SIGKILL, SIGTERM, exit_code_from, signal_name

__all__ = ["exit_code_kinds", "from_system", "kinds_for_object", "kinds_from_log_line", "kinds_from_reason_message",
           "scrub", "signal_name", "about_the_workload"]

Triple = tuple[Kind, "str | None", "int | None"]

_QUOTED = re.compile(r'"[^"]{0,2000}"|\'[^\']{0,2000}\'|`[^`]{0,2000}`')


def scrub(text: str | None, names: Iterable[str]) -> str:
    """Remove quoted segments and user-chosen names from a system message before it is matched."""
    if not text:
        return ""
    out = _QUOTED.sub(" ", text)
    # Case-sensitive: a name appears in a message exactly as it was written, and Kubernetes / Run:ai names are
    # lower-case, while the reason tokens systems write are not ("OOMKilled"). Ignoring case would let a workload
    # named "oomkilled" erase Run:ai's own phase message "OOMKilled" (scenario names/named-exactly-oomkilled).
    for n in sorted({n for n in names if n and len(n) >= 3}, key=len, reverse=True):
        out = re.sub(re.escape(n) + r"[\w./:-]*", " <name> ", out)
    return out


def _fires(rule: SignalRule, r: str, msg: str, both: str, code: int | None) -> bool:
    if rule.exit_codes:
        return code in rule.exit_codes
    if r in rule.reasons:
        return True
    if rule.rx is not None and rule.rx.search(both if rule.on_reason_too else msg):
        return not (rule.unless_rx is not None and rule.unless_rx.search(msg))
    if rule.reason_with is not None:
        return r in rule.reason_with[0] and bool(rule.with_rx.search(msg))
    return False


def _triple(rule: SignalRule, r: str, msg: str, code: int | None) -> Triple:
    d = rule.detail
    detail = (r or None) if d == "reason" else d(msg, code) if callable(d) else d
    carried = code if (rule.exit_codes or rule.exit_code_from_message) else rule.exit_code
    return rule.kind, detail, carried


def kinds_from_reason_message(reason: str | None, message: str | None, names: Iterable[str]) -> list[Triple]:
    """Map one (reason, message) pair written by a system component to signal kinds.

    Returns (kind, detail, exit_code) triples. The reason is a machine token; the message is scrubbed first.
    An exclusive rule (progress, preemption) that fires is the whole answer; otherwise, per kind, the first rule
    that fires gives its triple, and a rule is dropped when a kind it names in ``unless_kinds`` fired too.
    """
    r = (reason or "").strip().lower().replace(" ", "")
    msg = scrub(message, names)
    both = f"{reason or ''} {msg}"
    code = exit_code_from(msg)
    for rule in EXCLUSIVE_RULES:
        # progress is decided on the reason token alone, before the message is even read
        if _fires(rule, r, msg, both, code):
            return [_triple(rule, r, msg, code)]
    fired: dict[Kind, tuple[SignalRule, Triple]] = {}
    for rule in MESSAGE_RULES + EXIT_CODE_RULES:
        if rule.kind not in fired and _fires(rule, r, msg, both, code):
            fired[rule.kind] = (rule, _triple(rule, r, msg, code))
    return [t for rule, t in fired.values() if not (rule.unless_kinds & fired.keys())]


def kinds_from_log_line(line: str | None) -> list[Triple]:
    """Map ONE line of the workload's own container output to signal kinds through the log rules only
    (``SignalRule.reads_log``). The line is not scrubbed (NCCL quotes the CUDA error it hit); per kind, the first
    rule that fires gives its triple. A caller drops lines the guardrails flagged as planted instructions."""
    msg = (line or "").strip()
    if not msg:
        return []
    fired: dict[Kind, Triple] = {}
    for rule in LOG_RULES:
        if rule.kind not in fired and _fires(rule, "", msg, msg, None):
            fired[rule.kind] = _triple(rule, "", msg, None)
    return list(fired.values())


def exit_code_kinds(code: int, *, is_init: bool, oom: bool) -> list[Triple]:
    """A container state's exit code (``tools.kube`` pod facts) → signal kinds."""
    if code == 0:
        return []
    if is_init:
        return [(Kind.INIT_FAILED, None, code)]
    if code == SIGKILL:
        return [] if oom else [(Kind.EXIT_137, None, SIGKILL)]
    if code == SIGTERM:
        return [(Kind.SIGTERM, None, SIGTERM)]
    return [(Kind.APP_EXIT, signal_name(code), code)]


# ------------------------------------------------------------------------------------------------ provenance
# Events are evidence only when a system component emitted them about an object whose failure they can describe.
# An event from an application ("trainer-sidecar") or about a ConfigMap cannot decide a verdict. A missing source
# is accepted (several APIs omit it); a source that is present must be one of these components.
SYSTEM_SOURCES = re.compile(
    r"^(?:kubelet|default-scheduler|kube-scheduler|[\w-]*scheduler|runai(?:-[\w-]+)?|node-controller|"
    r"taint-eviction-controller|taint-controller|kernel-monitor|node-problem-detector|kube-controller-manager|"
    r"[\w-]+-controller|kueue(?:-[\w-]+)?|kuberay-operator|ray-operator|cluster-autoscaler|karpenter|"
    r"nvidia-[\w-]+|gpu-operator|attachdetach-controller|persistentvolume-controller|csi-[\w.-]+|[\w.-]+\.csi\.[\w.-]+|"
    # GPU health monitors: NVIDIA NVSentinel, its gpu-health-monitor, EKS's node monitoring agent, DCGM
    r"nvsentinel[\w-]*|gpu-health-monitor|[\w-]*node-monitoring-agent|dcgm[\w-]*)"
    r"(?:[/,][\w./-]*)?$", re.IGNORECASE)
_WORKLOAD_KINDS = re.compile(r"^(?:Pod|PodGroup|\w*Workload|\w*Job|RayCluster|ReplicaSet|Deployment|StatefulSet|"
                             r"LeaderWorkerSet|InferenceService)$")


def from_system(emitter: str | None) -> bool:
    return not (emitter or "").strip() or bool(SYSTEM_SOURCES.match(emitter.strip()))


def about_the_workload(object_kind: str | None) -> bool:
    """Whether an event about ``object_kind`` is about the workload's own objects (None: the workload itself)."""
    k = (object_kind or "").strip()
    return not k or bool(_WORKLOAD_KINDS.match(k))


def kinds_for_object(kinds: list[Triple], object_kind: str | None) -> list[Triple]:
    """Keep only the signal kinds an event about ``object_kind`` can support (None: the workload's own object);
    which objects may carry which kinds is each record's ``objects``."""
    if about_the_workload(object_kind):
        return kinds
    allowed = OBJECT_KINDS.get((object_kind or "").strip(), frozenset())
    return [t for t in kinds if t[0] in allowed]
