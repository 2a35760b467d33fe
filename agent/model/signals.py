"""Signals: the typed unit of evidence every procedure produces and the classifier reads.

Only structured fields and messages written by system components produce a signal (see ``agent.evidence.rules``),
and, from the workload's own output, a line in the strict words of a GPU hardware fault (``SignalRule.reads_log``).
A signal carries its citation (``source``: the skill tool name or the kubectl command) and its text, already
redacted when it was read.
"""
from __future__ import annotations

import re
from typing import ClassVar

from pydantic import BaseModel, GetCoreSchemaHandler
from pydantic_core import core_schema


class Kind(str):
    """A signal kind: a short lower-case name. The constants below are the kinds the procedures and the taxonomy's
    records share; a category record may declare its own (``Kind("gpu_fault")``) without a line here. Which kinds
    make a Pending workload in scope, confirm a crash loop or stay unexplained is declared on the records
    (``agent.taxonomy.registry``)."""
    __slots__ = ()

    OOM: ClassVar[Kind]
    EXIT_137: ClassVar[Kind]
    IMAGE_PULL: ClassVar[Kind]
    INIT_FAILED: ClassVar[Kind]
    MOUNT_FAILED: ClassVar[Kind]
    APP_EXIT: ClassVar[Kind]
    SIGTERM: ClassVar[Kind]
    NODE_FAILURE: ClassVar[Kind]
    POLICY_STOP: ClassVar[Kind]
    PREEMPTED: ClassVar[Kind]
    SCHEDULING_WAIT: ClassVar[Kind]
    CRASH_LOOP: ClassVar[Kind]
    POD_ERROR: ClassVar[Kind]
    POD_SCHEDULED: ClassVar[Kind]

    def __new__(cls, value: str) -> Kind:
        if not isinstance(value, str) or not _NAME.fullmatch(value):
            raise ValueError(f"not a signal kind name: {value!r}")
        return super().__new__(cls, value)

    @property
    def value(self) -> str:
        return str.__str__(self)

    def __repr__(self) -> str:
        return f"Kind({self.value!r})"

    @classmethod
    def __get_pydantic_core_schema__(cls, source, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        return core_schema.no_info_after_validator_function(
            cls, core_schema.str_schema(), serialization=core_schema.plain_serializer_function_ser_schema(str))


_NAME = re.compile(r"[a-z][a-z0-9_]{0,39}")
Kind.OOM = Kind("oom")  # OOMKilled / OOMKilling: direct OOM signal
Kind.EXIT_137 = Kind("exit_137")  # SIGKILL without OOMKilled: unresolved until a cause is found
Kind.IMAGE_PULL = Kind("image_pull")
Kind.INIT_FAILED = Kind("init_failed")  # non-zero init-container exit
Kind.MOUNT_FAILED = Kind("mount_failed")
Kind.APP_EXIT = Kind("app_exit")  # non-zero main-container exit without a system signal
Kind.SIGTERM = Kind("sigterm")  # exit 143: the system asked the container to stop
Kind.NODE_FAILURE = Kind("node_failure")  # eviction / NotReady / node lost
Kind.POLICY_STOP = Kind("policy_stop")  # idle timeout / max duration / manual stop / policy
Kind.PREEMPTED = Kind("preempted")
Kind.SCHEDULING_WAIT = Kind("scheduling_wait")  # Unschedulable / waiting for resources
Kind.CRASH_LOOP = Kind("crash_loop")  # CrashLoopBackOff / repeated restarts: a symptom, not a cause
Kind.POD_ERROR = Kind("pod_error")  # k8sPhase Error / failed pod without a cause
Kind.POD_SCHEDULED = Kind("pod_scheduled")  # progress: bound to a node / pulling / started (not a failure)


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
