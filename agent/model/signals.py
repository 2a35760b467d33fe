"""Signals: the typed unit of evidence every procedure produces and the classifier reads.

Only structured fields and messages written by system components produce a signal (see ``agent.evidence.rules``).
A signal carries its citation (``source``: the skill tool name or the kubectl command) and its text, already
redacted when it was read.
"""
from __future__ import annotations

from enum import Enum

from pydantic import BaseModel


class Kind(str, Enum):
    OOM = "oom"  # OOMKilled / OOMKilling: direct OOM signal
    EXIT_137 = "exit_137"  # SIGKILL without OOMKilled: unresolved until a cause is found
    IMAGE_PULL = "image_pull"
    INIT_FAILED = "init_failed"  # non-zero init-container exit
    MOUNT_FAILED = "mount_failed"
    APP_EXIT = "app_exit"  # non-zero main-container exit without a system signal
    SIGTERM = "sigterm"  # exit 143: the system asked the container to stop
    NODE_FAILURE = "node_failure"  # eviction / NotReady / node lost
    POLICY_STOP = "policy_stop"  # idle timeout / max duration / manual stop / policy
    PREEMPTED = "preempted"
    SCHEDULING_WAIT = "scheduling_wait"  # Unschedulable / waiting for resources
    CRASH_LOOP = "crash_loop"  # CrashLoopBackOff / repeated restarts: a symptom, not a cause
    POD_ERROR = "pod_error"  # k8sPhase Error / failed pod without a cause
    POD_SCHEDULED = "pod_scheduled"  # progress: bound to a node / pulling / started (past scheduling; not a failure)


# Signals that make a Pending workload in scope ("direct failed-pod signal").
DIRECT_FAILURE_KINDS = frozenset({Kind.OOM, Kind.EXIT_137, Kind.IMAGE_PULL, Kind.INIT_FAILED, Kind.MOUNT_FAILED,
                                  Kind.APP_EXIT, Kind.CRASH_LOOP, Kind.POD_ERROR})
# Signals that confirm a Running workload's CrashLoopBackOff / repeated container crashes.
CRASH_CONFIRMING_KINDS = frozenset({Kind.CRASH_LOOP, Kind.OOM, Kind.APP_EXIT, Kind.EXIT_137})
# Symptoms kept as supporting evidence of an UNKNOWN verdict.
UNEXPLAINED_KINDS = frozenset({Kind.EXIT_137, Kind.SIGTERM, Kind.POD_ERROR, Kind.CRASH_LOOP})


class Signal(BaseModel):
    kind: Kind
    source: str  # the tool cited in the report (skill tool name or kubectl command)
    text: str  # the evidence line, already redacted
    at: str | None = None
    obj: str | None = None  # pod / container / node the signal is about
    exit_code: int | None = None
    detail: str | None = None  # image-pull error class, policy kind, node name ...
    origin: str = ""  # status | pods | history | kube | spec


def kinds_of(signals: list[Signal]) -> set[Kind]:
    return {s.kind for s in signals}
