"""The HTTP request body and error bodies. Every field is validated by the CLI's own function
(:func:`agent.model.request.build_request`), so a name or id the CLI rejects is a 422 here, field by field.

Over HTTP ``cluster_id`` and a workload (``workload_id``, or ``workload_name`` + ``project``) are required:
missing → 422, not a ``needs_input`` object. Unknown fields → 422.
"""
from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

from workload_diagnose.agent.model.request import DiagnosisRequest, build_request, names_workload
from workload_diagnose.tools.runai import ids

ID_PATTERN = ids._SAFE_ID.pattern  # documented in the OpenAPI schema; enforced by build_request
NAME_PATTERN = ids._SAFE_NAME.pattern
# LOOKBACK_RX with ASCII digits and spaces, not zero: what every regex engine (pydantic's, a client's) reads alike
LOOKBACK_PATTERN = r"^ *([0-9]{0,3}[1-9]|[0-9]{0,2}[1-9][0-9]|[0-9]?[1-9][0-9]{2}|[1-9][0-9]{3}) *[mhdw] *$"
# ISO 8601 date-times of the years 1970–8999 (no lookback window can leave the calendar from there)
NOW_PATTERN = (r"^(19[7-9][0-9]|[2-8][0-9]{3})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):"
               r"[0-5][0-9]:[0-5][0-9](\.[0-9]{1,6})?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])?$")


def _options(schema: dict[str, Any]) -> None:
    """The workload id, or its name and project, as JSON Schema (a present null is the same as an absent field)."""
    null, text = {"type": "null"}, {"type": "string"}
    schema["oneOf"] = [
        {"title": "By workload id", "required": ["workload_id"],
         "properties": {"workload_id": text, "workload_name": null, "project": null}},
        {"title": "By name and project", "required": ["workload_name", "project"],
         "properties": {"workload_id": null, "workload_name": text, "project": text}},
    ]
    schema["examples"] = EXAMPLES


EXAMPLES = [{"cluster_id": "3f1c8a2e-0000-4000-8000-000000000001", "workload_id": "9b2d4c6e-0000-4000-8000-000000000002"},
            {"cluster_id": "3f1c8a2e-0000-4000-8000-000000000001", "workload_name": "train-42", "project": "ml-team",
             "intent": "active", "lookback": "3d"}]


def _checked(field: str, value: Any) -> Any:
    """Run one field through ``build_request``: its one-line InvalidInput (a ValueError) is that field's error."""
    if value is not None:
        build_request(**{field: value})
    return value


class DiagnosisBody(BaseModel):
    """``POST /v1/diagnoses``: which workload (its id ``workload_id``, or its name ``workload_name`` and
    ``project``) on which cluster; the other fields as ``workload-diagnose failed``."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=_options)

    cluster_id: str = Field(..., max_length=128, description="Run:ai cluster UUID", pattern=ID_PATTERN)
    workload_id: str | None = Field(None, max_length=128, pattern=ID_PATTERN,
                                    description="The workload UUID (or give workload_name and project)")
    workload_name: str | None = Field(None, max_length=253, description="The exact workload name (with project)",
                                      pattern=NAME_PATTERN)
    project: str | None = Field(None, max_length=253, description="The project name (with workload_name)",
                                pattern=NAME_PATTERN)
    intent: Literal["terminal", "active"] = Field("terminal", description="terminal (a past failure) or active "
                                                                          "(a current CrashLoopBackOff)")
    lookback: str = Field("7d", max_length=16, pattern=LOOKBACK_PATTERN,
                          description="History window: 90m, 36h, 7d, 2w")
    now: str | None = Field(None, max_length=64, pattern=NOW_PATTERN, json_schema_extra={"format": "date-time"},
                            description="Pin the clock (ISO 8601 date-time, years 1970–8999) for replays")

    _request: DiagnosisRequest | None = PrivateAttr(default=None)

    @field_validator("cluster_id", "workload_id", "workload_name", "project", "lookback", "now")
    @classmethod
    def _cli_rules(cls, v: Any, info) -> Any:
        return _checked(info.field_name, v)

    @model_validator(mode="after")
    def _whole(self) -> "DiagnosisBody":
        if not names_workload(self.workload_id, self.workload_name, self.project):
            raise ValueError("give the workload id (workload_id), or its name and project (workload_name and project)")
        req = build_request(**self.model_dump())
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
    415: {"model": ErrorBody, "description": "The body was not sent as JSON (Content-Type: application/json)"},
    429: {"model": ErrorBody, "description": "The concurrency limit is full (see Retry-After)",
          "headers": {"Retry-After": {"schema": {"type": "integer"}, "description": "seconds"}}},
    502: {"model": ErrorBody, "description": "Run:ai could not be read"},
    504: {"model": ErrorBody, "description": "Run:ai (or the diagnosis) timed out"},
}
