"""The request every entry point builds and every Run:ai procedure takes as its graph input."""
from __future__ import annotations

from datetime import datetime, timedelta
from typing import Literal

import re

from pydantic import BaseModel, Field, field_validator

from workload_diagnose.agent.model.time import lookback_words, parse_lookback, parse_now
from workload_diagnose.tools.runai import InvalidInput, check_id, check_name

_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.IGNORECASE)


class DiagnosisRequest(BaseModel):
    """Which workload to diagnose: by its id (``workload_id``), or by its name and project (``workload_name`` +
    ``project``; the skill's Option A and Option B)."""

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
        return names_workload(self.workload_id, self.workload_name, self.project)

    @property
    def complete(self) -> bool:
        return is_complete(self.cluster_id, self.workload_id, self.workload_name, self.project)


def names_workload(workload_id: str | None, workload_name: str | None, project: str | None) -> bool:
    """A workload id, or a workload name with its project."""
    return bool(workload_id or (workload_name and project))


def is_complete(cluster_id: str | None, workload_id: str | None, workload_name: str | None,
                project: str | None) -> bool:
    """Enough to read anything: the cluster and a workload (else a procedure asks, and reads nothing)."""
    return bool(cluster_id and names_workload(workload_id, workload_name, project))


def is_uuid(value: str | None) -> bool:
    """Whether ``value`` is a UUID (a cluster id); anything else a user gives for a cluster is its name."""
    return bool(value and _UUID.match(value))


def _id(value: str | None, what: str) -> str | None:
    if not value:
        return None
    check_id(value, what)
    return value.lower() if _UUID.match(value) else value  # an upper-case UUID is the same UUID


def build_request(*, cluster_id: str | None = None, workload_id: str | None = None, workload_name: str | None = None,
                  project: str | None = None, intent: str = "terminal", lookback: str = "7d",
                  now: str | None = None) -> DiagnosisRequest:
    """The one place user input becomes a request: every problem is a one-line ``InvalidInput``, before any read."""
    if intent not in ("terminal", "active"):
        raise InvalidInput(f"intent must be 'terminal' or 'active', not {intent!r}")
    try:
        parse_lookback(lookback)
    except (ValueError, TypeError):
        raise InvalidInput(f"lookback {lookback!r} is not a duration: use a number and m/h/d/w, e.g. 7d, 36h, 2w or "
                           "90m") from None
    try:
        when = parse_now(now)
    except ValueError as e:
        raise InvalidInput(str(e)) from None
    if workload_id and (workload_name or project):
        raise InvalidInput("give either a workload id or a workload name with its project, not both")
    if workload_name:
        check_name(workload_name, "workload name")
    if project:
        check_name(project, "project")
    return DiagnosisRequest(cluster_id=_id(cluster_id, "cluster id"), workload_id=_id(workload_id, "workload id"),
                            workload_name=workload_name or None, project=project or None, intent=intent,
                            lookback=lookback, now=when)
