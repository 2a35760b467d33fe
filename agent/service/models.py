"""The HTTP request body and error bodies. Every field is validated by the CLI's own function
(:func:`agent.model.request.build_request`), so a name or id the CLI rejects is a 422 here, field by field.

Over HTTP ``cluster_id`` and a workload (``workload_id``, or ``workload_name`` + ``project``) are required:
missing → 422, not a ``needs_input`` object. Unknown fields → 422.
"""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

from agent.model.request import DiagnosisRequest, build_request
from agent.model.time import LOOKBACK_RX
from tools.runai import ids

ID_PATTERN = ids._SAFE_ID.pattern  # documented in the OpenAPI schema; enforced by build_request
NAME_PATTERN = ids._SAFE_NAME.pattern
LOOKBACK_PATTERN = LOOKBACK_RX.pattern
EARLIEST, LATEST = datetime(1970, 1, 1, tzinfo=timezone.utc), datetime(9000, 1, 1, tzinfo=timezone.utc)


def _checked(field: str, value: Any) -> Any:
    """Run one field through ``build_request``: its one-line InvalidInput (a ValueError) is that field's error."""
    if value is not None:
        build_request(**{field: value})
    return value


class DiagnosisBody(BaseModel):
    """``POST /v1/diagnoses``: which workload (Option A: ``workload_id``; Option B: ``workload_name`` +
    ``project``) on which cluster; the other fields as ``workload-diagnose failed``."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [
        {"cluster_id": "3f1c8a2e-0000-4000-8000-000000000001",
         "workload_id": "9b2d4c6e-0000-4000-8000-000000000002"},
        {"cluster_id": "3f1c8a2e-0000-4000-8000-000000000001", "workload_name": "train-42", "project": "ml-team",
         "intent": "active", "lookback": "3d"}]})

    cluster_id: str = Field(..., max_length=128, description="Run:ai cluster UUID", pattern=ID_PATTERN)
    workload_id: str | None = Field(None, max_length=128, description="Option A: the workload UUID",
                                    pattern=ID_PATTERN)
    workload_name: str | None = Field(None, max_length=253, description="Option B: the exact workload name",
                                      pattern=NAME_PATTERN)
    project: str | None = Field(None, max_length=253, description="Option B: the project name",
                                pattern=NAME_PATTERN)
    intent: Literal["terminal", "active"] = Field("terminal", description="terminal (a past failure) or active "
                                                                          "(a current CrashLoopBackOff)")
    lookback: str = Field("7d", max_length=16, pattern=LOOKBACK_PATTERN,
                          description="History window: 90m, 36h, 7d, 2w")
    now: str | None = Field(None, max_length=64, description="Pin the clock (ISO 8601) for replays",
                            json_schema_extra={"format": "date-time"})

    _request: DiagnosisRequest | None = PrivateAttr(default=None)

    @field_validator("cluster_id", "workload_id", "workload_name", "project", "lookback", "now")
    @classmethod
    def _cli_rules(cls, v: Any, info) -> Any:
        return _checked(info.field_name, v)

    @model_validator(mode="after")
    def _whole(self) -> "DiagnosisBody":
        if not (self.workload_id or (self.workload_name and self.project)):
            raise ValueError("give workload_id (Option A) or workload_name and project (Option B)")
        req = build_request(**self.model_dump())
        try:
            if not EARLIEST <= req.now < LATEST:
                raise ValueError(f"now {self.now!r} is outside the years 1970–8999")
            req.cutoff  # noqa: B018  (a lookback longer than the calendar overflows)
        except OverflowError:
            raise ValueError(f"lookback {self.lookback!r} reaches before the calendar starts") from None
        self._request = req
        return self

    def to_request(self) -> DiagnosisRequest:
        assert self._request is not None
        return self._request


class ErrorBody(BaseModel):
    """Every error but 422: one line, nothing about a workload the caller may not see."""

    detail: str


ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    401: {"model": ErrorBody, "description": "No or an unknown bearer token"},
    403: {"model": ErrorBody, "description": "The token (or the caller's Run:ai token) may not read that workload"},
    413: {"model": ErrorBody, "description": "The request body is larger than 64 KiB"},
    429: {"model": ErrorBody, "description": "The concurrency limit is full (see Retry-After)",
          "headers": {"Retry-After": {"schema": {"type": "integer"}, "description": "seconds"}}},
    502: {"model": ErrorBody, "description": "Run:ai could not be read"},
    504: {"model": ErrorBody, "description": "Run:ai (or the diagnosis) timed out"},
}
