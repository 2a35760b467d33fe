"""The request every entry point builds and every Run:ai procedure takes as its graph input."""
from __future__ import annotations

from datetime import datetime, timedelta
from typing import Literal

from pydantic import BaseModel, Field, field_validator

from agent.model.time import lookback_words, parse_lookback, parse_now


class DiagnosisRequest(BaseModel):
    """Which workload to diagnose (Option A: ``workload_id``; Option B: ``workload_name`` + ``project``)."""

    cluster_id: str | None = None
    workload_id: str | None = None
    workload_name: str | None = None
    project: str | None = None
    intent: Literal["terminal", "active"] = "terminal"
    lookback: str = "7d"
    now: datetime = Field(default_factory=lambda: parse_now(None))

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
        return lookback_words(self.lookback)

    @property
    def has_workload(self) -> bool:
        return bool(self.workload_id or (self.workload_name and self.project))
