"""The record types of the pending-reason taxonomy: why a workload is still Pending (a scheduling wait, never a
failure category). One :class:`PendingReason` per module under ``agent/taxonomy/pending_reasons/``; its
:class:`WaitRule`\\ s are data, each carrying true and false samples (the tests run them through the interpreter,
``agent.evidence.waits``); ``agent.taxonomy.pending_registry`` collects them.

Nothing here knows a reason's name.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Callable

# The figures a reason needs beyond the workload's own reads (the pending procedure reads exactly these)
PROJECT = "project"  # the project's quota per node pool (deserved, limit, allocated)
NODE_POOLS = "node_pools"  # the cluster's node pools (phase, label, nodes)
CAPACITY = "capacity"  # GPUs of the node pool(s) in question: total, allocated, free
SPEC = "spec"  # the submitted spec: node pools, node type, affinity, tolerations
NODES = "nodes"  # the nodes of the node pool(s): status, taints, GPU type
FIGURES = (PROJECT, NODE_POOLS, CAPACITY, SPEC, NODES)

# Who acts on a reason
OWNERS = ("researcher", "project-admin", "platform", "queue-owner")


@dataclass(frozen=True)
class WaitRule:
    """One way a (reason, message) pair written by a scheduler, Kueue or the Run:ai control plane shows a reason.

    Fires when the reason token (lower case, spaces removed) is one of ``reasons``, or ``message`` matches the
    scrubbed message (``on_reason_too``: the reason and the message together), or ``reason_with`` pairs reason
    tokens with a message pattern that must both hold. ``unless`` vetoes it when the scrubbed message matches too.
    """

    name: str
    reasons: frozenset[str] = frozenset()
    message: str | None = None
    on_reason_too: bool = False
    reason_with: tuple[frozenset[str], str] | None = None
    unless: str | None = None
    true: tuple = ()  # (reason, message) samples this rule must turn into its reason
    false: tuple = ()  # samples that must not give its reason

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
class WaitContext:
    """What a recommendation may quote: every figure was read (a missing one is None and is said to be missing)."""

    project: str | None = None
    pool: str | None = None  # the node pool in question
    requested: str | None = None  # "8 GPUs" as read
    deserved: str | None = None
    allocated: str | None = None
    limit: str | None = None  # None also when the project has no limit
    free: str | None = None
    total: str | None = None
    other_pools: tuple[str, ...] = ()  # other pools of the cluster with free GPUs (as read)
    preemptible: bool | None = None
    mismatches: tuple[str, ...] = ()  # spec vs the pools' nodes, one line each
    gang: str | None = None  # "needs N pods, M exist" as read
    namespace: str | None = None
    first_pod: str | None = None


def figure(value: str | None, what: str, unit: str = "GPUs") -> str:
    """``"<what> <value> <unit>"`` as read, or ``"<what> not known"`` (never a guessed number)."""
    return f"{what} {value} {unit}".rstrip() if value is not None else f"{what} not known"


@dataclass(frozen=True)
class PendingReason:
    name: str
    precedence: int  # lower wins when several reasons are shown
    summary: str  # what the reason means, one line
    owner: str  # who acts on it (one of OWNERS)
    recommend: Callable[[WaitContext], list[str]]
    rules: tuple[WaitRule, ...] = ()
    reads: frozenset[str] = frozenset()  # the figures it needs (FIGURES)


@functools.cache
def _compiled(p: str) -> re.Pattern:
    return re.compile(p, re.IGNORECASE)


def as_pair_sample(s) -> tuple[str | None, str | None]:
    """A sample is (reason, message) as a system component wrote it; a bare string is a message without a reason."""
    return (None, s) if isinstance(s, str) else s
