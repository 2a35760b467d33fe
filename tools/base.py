"""Typed tool results shared by every tool wrapper.

A ToolResult carries its status, the skill tool name that produced it (the name cited in reports), the read
invocations it made, and a typed error instead of an exception. The graph turns errors into limitations.
"""
from __future__ import annotations

from enum import Enum
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, Field

T = TypeVar("T")


class ToolStatus(str, Enum):
    OK = "ok"
    ERROR = "error"  # the call failed (network, 5xx after retries, malformed body, ...)
    ABSENT = "absent"  # the resource or endpoint does not exist (404, unsupported kind)


class ErrorKind(str, Enum):
    UNREACHABLE = "unreachable"
    UNAUTHORIZED = "unauthorized"
    FORBIDDEN = "forbidden"
    NOT_FOUND = "not_found"
    RATE_LIMITED = "rate_limited"
    SERVER_ERROR = "server_error"
    TIMEOUT = "timeout"
    MALFORMED = "malformed"
    TOO_LARGE = "too_large"  # the body passed the configured cap; it was not read further
    OTHER = "other"


class ToolError(BaseModel):
    kind: ErrorKind
    message: str
    status_code: int | None = None


class Invocation(BaseModel):
    """One call of a skill tool as it left the process.

    ``tool`` and ``arguments`` are the call as the caller made it (the skill tool name and its arguments, e.g.
    ``{"workloadId": "..."}``): read these, not the wire form, to know *what* was asked. ``request`` is the exact
    request text as sent, whatever the source (for REST ``GET /api/v1/workloads/<id>?a=b``; a future MCP source
    would record its ``tools/call``); it is what reports cite. ``status_code`` is the answer's status (HTTP for
    REST; None when no answer came), ``attempts`` how many sends it took (retries included).
    """

    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    request: str
    status_code: int | None = None
    attempts: int = 1

    def describe(self) -> str:
        return self.request


class ToolResult(BaseModel, Generic[T]):
    tool: str
    status: ToolStatus
    data: T | None = None
    error: ToolError | None = None
    invocations: list[Invocation] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)  # partial-result remarks (e.g. pagination stopped)

    @property
    def ok(self) -> bool:
        return self.status == ToolStatus.OK


class ToolFailure(Exception):
    """Raised inside a wrapper, caught at its boundary and turned into ``ToolResult(status=ERROR)``."""

    def __init__(self, kind: ErrorKind, message: str, status_code: int | None = None):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.status_code = status_code

    def to_error(self) -> ToolError:
        return ToolError(kind=self.kind, message=self.message, status_code=self.status_code)


class WriteRefused(Exception):
    """A non-read request was attempted through a read-only transport. Nothing was sent."""
