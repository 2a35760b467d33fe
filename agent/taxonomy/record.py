"""The record types of the taxonomy: a category, the signal rules that feed it (each carrying its own true and
false samples), what it needs, its recommendation, report lines, chat words and triage groups.

Nothing here knows a category name; the records live in ``agent/taxonomy/categories/`` (one module per
category) and ``agent/taxonomy/signals/`` (signal-level facts that are not categories: preemption, scheduling
waits, crash loops, progress). ``agent.taxonomy.registry`` collects them; ``agent.evidence.rules`` interprets the
rules; the classifier, report, chat and triage read the registry.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Callable, Protocol

from workload_diagnose.agent.model.signals import Kind, Signal

def as_pair(s) -> tuple[str | None, str | None]:
    """A sample is (reason, message) as a system component wrote it; a bare string is a message without a reason."""
    return (None, s) if isinstance(s, str) else s


@dataclass(frozen=True)
class SignalRule:
    """One way a (reason, message) pair written by a system component shows a signal ``kind``.

    A rule fires when the reason token (lower-case, spaces removed) is one of ``reasons``, or ``message``
    matches the scrubbed message (``on_reason_too``: "reason + message"), or ``reason_with`` pairs reasons
    with a message pattern that must BOTH hold, or (``exit_codes``) the message states one of those exit codes.
    ``unless`` vetoes it when the scrubbed message also matches, ``unless_kinds`` when a rule of one of those
    kinds fired on the same message. For one kind, the first rule that fires wins (its ``detail``).
    """
    name: str
    kind: Kind
    reasons: frozenset[str] = frozenset()
    message: str | None = None
    on_reason_too: bool = False
    reason_with: tuple[frozenset[str], str] | None = None
    unless: str | None = None
    # exit-code rules: fire when the message states an exit code in this set ("terminated with exit code 1")
    exit_codes: frozenset[int] = frozenset()
    unless_kinds: frozenset[Kind] = frozenset()  # vetoed when a rule of one of these kinds fired on the message
    # the detail the signal carries: a fixed string, "reason" (the reason token), or a function of the scrubbed
    # message and its exit code
    detail: str | Callable[[str, int | None], str | None] | None = None
    exit_code: int | None = None  # the exit code the signal carries (OOM: 137); exit-code rules carry the stated one
    exit_code_from_message: bool = False  # carry the message's "exit code N" (init containers)
    # a signal of this kind at or after a signal of one of these kinds (by their times) is that one's symptom: the
    # classifier sets it aside (an application's exit after a node failure of the workload: a rank dies when a
    # peer's node is lost). A category's kind stands for all of its kinds. Per kind, like ``unless_kinds``: every
    # rule of a kind should declare the same.
    yields_to_earlier: frozenset[Kind] = frozenset()
    # how long after that earlier signal this one may still be its symptom, derived from the workload's signals (a
    # peer's node lost hours before or after a rank's exit did not end it); None: no bound. Per kind, as above.
    yields_within: Callable[[list[Signal]], timedelta] | None = None
    # signals of these kinds anywhere in the workload's evidence are symptoms of this one (a GPU fault explains the
    # application's exit): the classifier sets them aside before it applies the strongest-signal rule. Per kind: a
    # signal does not remember its rule, so every rule of a kind that declares it should declare the same.
    explains: frozenset[Kind] = frozenset()
    # a reading of these kinds from the SAME evidence line (source and text) is a misreading next to this one (the
    # kubelet's admission reason OutOfmemory read as an OOM kill)
    overrides_on_line: frozenset[Kind] = frozenset()
    # a rule over ONE LINE of the workload's own container output (its previous log's tail, its termination
    # message), never over a system message: ``agent.evidence.rules.kinds_from_log_line`` alone applies it, without
    # scrubbing quotes (NCCL quotes the CUDA error). Such text is the workload's own, so the wording must be strict:
    # what the CUDA runtime, NVML, NCCL or the kernel driver print for a hardware fault, never a word a program
    # could print in passing ("Xid" alone, an nvidia-smi table's zero counts)
    reads_log: bool = False
    true: tuple = ()   # samples the rule must turn into ``kind`` (through the interpreter)
    false: tuple = ()  # samples that must not produce ``kind``

    @property
    def rx(self) -> re.Pattern | None:
        return _compiled(self.message) if self.message else None

    @property
    def unless_rx(self) -> re.Pattern | None:
        return _compiled(self.unless) if self.unless else None

    @property
    def with_rx(self) -> re.Pattern | None:
        return _compiled(self.reason_with[1]) if self.reason_with else None


@dataclass(frozen=True)
class SignalSet:
    """A signal-level fact that is not a category (preemption, a scheduling wait, a crash loop, progress).

    ``exclusive``: when it fires, the interpreter returns it alone (progress never carries a failure; a
    preemption notice is about preemption only). ``order``: where its signal is listed among the categories'
    (compared with their ``precedence``).
    """
    kind: Kind
    rules: tuple[SignalRule, ...]
    exclusive: bool = False
    order: int = 100
    objects: frozenset[str] = frozenset()  # object kinds other than the workload's own that may carry it
    pod_failure: bool = False  # a direct failed-pod signal: a Pending workload showing it is in scope
    confirms_crash: bool = False  # confirms a Running workload's repeated container crashes
    unexplained: bool = False  # kept as supporting evidence of the fallback verdict


class VerdictLike(Protocol):
    category: str
    supporting: list[Signal]
    unresolved_137: bool
    sigterm: bool


@dataclass(frozen=True)
class RecoContext:
    signals: list[Signal]
    memory_limit: float | None
    peak: float | None
    restart_policy: str | None
    namespace: str | None
    log_line: str | None
    log_source: str | None = None  # the kubectl logs command the log line was read with (which container)
    nodes: tuple[str, ...] = ()  # the nodes the workload's pods ran on (pods read, Tier 2 pod facts)


@dataclass(frozen=True)
class ChatWords:
    """The words the chat understands for a category ("why not a memory problem?"), with samples.
    ``after_specific``: generic words, tried after every category's specific words."""
    pattern: str
    true: tuple[str, ...]
    false: tuple[str, ...] = ()
    after_specific: bool = False

    @property
    def rx(self) -> re.Pattern:
        return _compiled(self.pattern)


@dataclass(frozen=True)
class TriageGroup:
    """How triage groups workloads of this category: ``facts`` names the fact reader in
    ``agent.triage.patterns.FACTS`` (node, image, registry_error, datasource, project); ``action(key, n)``."""
    kind: str
    facts: str
    action: Callable[[str, int], str]
    line_class: Callable[[str], str] | None = None  # the class of a cited evidence line (registry_error)


def _never(v: VerdictLike) -> str | None:
    return None


def _no_limits(v: VerdictLike, c: RecoContext) -> list[str]:
    return []


@dataclass(frozen=True)
class Category:
    name: str
    precedence: int  # the skill's "strongest direct signal" order: lower wins
    summary: str
    recommend: Callable[[RecoContext], list[str]]
    rules: tuple[SignalRule, ...] = ()  # rules whose kinds are this category's direct signals
    objects: frozenset[str] = frozenset()  # object kinds other than the workload's own that may carry it
    needs_metrics: bool = False  # Step 4: get_workload_metrics is needed (OOM: request/limit/peak)
    tier2_reason: Callable[[VerdictLike], str | None] = _never  # why Tier 2 evidence is needed, or None
    reads_node: bool = False  # Tier 2 reads kubectl describe node for this category's evidence or verdict
    spec_lines: tuple[str, ...] = ()  # submitted-spec lines (by prefix) that corroborate it in the report
    limitations: Callable[[VerdictLike, RecoContext], list[str]] = field(default=_no_limits)
    excluded_by_preemption: bool = False  # preemption evidence excludes it (routed out instead)
    words: ChatWords | None = None
    triage: tuple[TriageGroup, ...] = ()
    pod_failure: bool = False  # its signals are direct failed-pod signals (a Pending workload is in scope)
    confirms_crash: bool = False  # its signals confirm a Running workload's repeated container crashes

    @property
    def kinds(self) -> frozenset[Kind]:
        return frozenset(r.kind for r in self.rules)


@functools.cache
def _compiled(p: str) -> re.Pattern:
    return re.compile(p, re.IGNORECASE)
