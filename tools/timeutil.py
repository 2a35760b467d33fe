"""The one timestamp parser of the project: API strings (ISO 8601, ``Z`` or offset, optional space separator) and
Kubernetes client datetimes → timezone-aware UTC ``datetime``; and back to the ``YYYY-MM-DDTHH:MM:SSZ`` form the
Run:ai API takes and reports print.

A value that cannot be read is ``None``, never a guess; a value without a zone is taken as UTC (the Run:ai API and
the Kubernetes API both speak UTC).
"""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

__all__ = ["parse_time", "as_utc", "iso"]


def parse_time(value: Any) -> datetime | None:
    """An ISO 8601 string → aware datetime (naive → UTC); anything else, blank or unparsable → None."""
    if not isinstance(value, str) or not value.strip():
        return None
    v = value.strip().replace(" ", "T", 1) if "T" not in value else value.strip()
    if v.endswith("Z"):
        v = v[:-1] + "+00:00"
    try:
        dt = datetime.fromisoformat(v)
    except ValueError:
        return None
    return dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)


def as_utc(value: Any) -> datetime | None:
    """Like :func:`parse_time`, but also accepts a ``datetime`` (what the Kubernetes client deserialises)."""
    if value is None:
        return None
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=timezone.utc)
    return parse_time(str(value))


def iso(dt: datetime) -> str:
    """An aware datetime → ``2024-05-01T10:00:00Z`` (seconds precision, UTC)."""
    return dt.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
