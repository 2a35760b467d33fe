"""One Configuration for a diagnosis run (the open_deep_research pattern): inputs, clock, limits."""
from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from typing import Literal

from pydantic import BaseModel, Field, field_validator

_LOOKBACK = re.compile(r"^\s*(\d{1,4})\s*([mhdw])\s*$")


def parse_lookback(text: str) -> timedelta:
    m = _LOOKBACK.match(text or "")
    if not m:
        raise ValueError(f"lookback {text!r} is not a duration like 7d, 36h, 2w or 90m")
    n, unit = int(m.group(1)), m.group(2)
    if n <= 0:
        raise ValueError("lookback must be positive")
    return {"m": timedelta(minutes=n), "h": timedelta(hours=n), "d": timedelta(days=n),
            "w": timedelta(weeks=n)}[unit]


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


class Configuration(BaseModel):
    cluster_id: str | None = None
    workload_id: str | None = None
    workload_name: str | None = None
    project: str | None = None
    intent: Literal["terminal", "active"] = "terminal"
    lookback: str = "7d"
    now: datetime = Field(default_factory=lambda: parse_now(None))
    # Tier 2 bounds
    log_tail_lines: int = 200
    log_limit_bytes: int = 256 * 1024
    max_tier2_pods: int = 5

    @field_validator("lookback")
    @classmethod
    def _lb(cls, v: str) -> str:
        parse_lookback(v)
        return v.strip()

    @property
    def lookback_delta(self) -> timedelta:
        return parse_lookback(self.lookback)

    @property
    def cutoff(self) -> datetime:
        return self.now - self.lookback_delta

    @property
    def lookback_text(self) -> str:
        n, unit = _LOOKBACK.match(self.lookback).groups()  # type: ignore[union-attr]
        word = {"m": "minute", "h": "hour", "d": "day", "w": "week"}[unit]
        return f"{n} {word}{'s' if int(n) != 1 else ''}"
