"""Time helpers, defined once: timestamps from APIs, the pinned clock (``--now``) and lookback windows."""
from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

from workload_diagnose.tools.timeutil import iso, parse_time

__all__ = ["iso", "parse_time", "parse_now", "parse_lookback", "lookback_words", "LOOKBACK_RX", "timestamp_problem"]

LOOKBACK_RX = re.compile(r"^\s*(\d{1,4})\s*([mhdw])\s*$")
_UNITS = {"m": ("minutes", "minute"), "h": ("hours", "hour"), "d": ("days", "day"), "w": ("weeks", "week")}


def parse_lookback(text: str) -> timedelta:
    m = LOOKBACK_RX.match(text or "")
    if not m:
        raise ValueError(f"lookback {text!r} is not a duration like 7d, 36h, 2w or 90m")
    n, unit = int(m.group(1)), m.group(2)
    if n <= 0:
        raise ValueError("lookback must be positive")
    return timedelta(**{_UNITS[unit][0]: n})


def lookback_words(text: str) -> str:
    """``7d`` → ``7 days`` (the wording of the report's History line)."""
    n, unit = LOOKBACK_RX.match(text).groups()  # type: ignore[union-attr]
    return f"{n} {_UNITS[unit][1]}{'s' if int(n) != 1 else ''}"


def parse_now(text: str | None) -> datetime:
    if not text:
        return datetime.now(timezone.utc).replace(microsecond=0)
    v = text.strip()
    if v.endswith("Z"):
        v = v[:-1] + "+00:00"
    try:
        dt = datetime.fromisoformat(v)
    except ValueError:
        raise ValueError(f"--now {text!r} is not an ISO 8601 timestamp (e.g. 2026-01-02T03:04:05Z)") from None
    return dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)


_ZONE = re.compile(r"(?:Z|[+-]\d{2}:?\d{2})$", re.IGNORECASE)
FUTURE_SLACK = timedelta(minutes=5)  # clock skew between the control plane and this machine


def timestamp_problem(value: object, now: datetime) -> str | None:
    """Why a timestamp from an API cannot be used (None when it can, or when it is simply absent)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    t = parse_time(value)
    if t is None:
        return "not a timestamp"
    if not _ZONE.search(str(value).strip()):
        return "no time zone"
    if t > now + FUTURE_SLACK:
        return "in the future"
    return None
