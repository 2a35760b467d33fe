"""Helpers every procedure's evidence extraction shares: one-line quoting, timestamps, signal construction."""
from __future__ import annotations

from typing import Any

from workload_diagnose.agent.evidence.rules import from_system, kinds_for_object, kinds_from_reason_message
from workload_diagnose.agent.model.signals import Signal
from workload_diagnose.agent.model.time import iso
from workload_diagnose.tools.timeutil import as_utc


def quote(text: str | None, limit: int = 480) -> str:
    """One line; long messages keep their head and their tail (where registry/kubelet errors put the cause)."""
    t = " ".join((text or "").split())
    if len(t) <= limit:
        return t
    half = (limit - 3) // 2
    return t[:half] + " … " + t[-half:]


def ts(value: Any) -> str | None:
    """Timestamps from the Kubernetes client are datetimes; signals keep ISO 8601 strings. A naive datetime is UTC
    (the one rule, :func:`tools.timeutil.as_utc`), never the machine's local zone."""
    if value is None or isinstance(value, str):
        return value
    try:
        return iso(as_utc(value))
    except (AttributeError, ValueError):
        return str(value)


def make_signals(kind_tuples, *, source: str, text: str, at: Any, obj: str | None, origin: str) -> list[Signal]:
    return [Signal(kind=k, detail=d, exit_code=code, source=source, text=text, at=ts(at), obj=obj, origin=origin)
            for k, d, code in kind_tuples]


def event_signals(reason, message, at, obj, names, source, origin, event_type=None, *, emitter: str | None = None,
                  object_kind: str | None = None) -> list[Signal]:
    """Signals of one event: only from a system component (``emitter``), only those its object can support."""
    if not from_system(emitter):
        return []
    kinds = kinds_for_object(kinds_from_reason_message(reason, message, names), object_kind)
    if not kinds:
        return []
    typ = f"{event_type} " if event_type else ""
    text = f"{typ}event reason: {reason or 'none'}; message: \"{quote(message)}\""
    text = text[0].upper() + text[1:]
    return make_signals(kinds, source=source, text=text, at=at, obj=obj, origin=origin)
