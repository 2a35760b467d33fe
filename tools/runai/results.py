"""How one skill read becomes its :class:`tools.base.ToolResult`, for every source (REST, MCP): the data when the
read worked, ABSENT for :class:`Absent`, ERROR for a :class:`tools.base.ToolFailure` or a body of the wrong
shape. A failed read that was sent stays listed in the result's invocations."""
from __future__ import annotations

from typing import Any, Callable

from pydantic import ValidationError

from workload_diagnose.tools.base import ErrorKind, Invocation, ToolFailure, ToolResult, ToolStatus

__all__ = ["Absent", "tool_result", "no_spec"]


class Absent(Exception):
    """The workload or resource does not exist (REST: 404; MCP: a 'not found' tool error)."""

    def __init__(self, invocation: Invocation | None, message: str, status_code: int | None = None):
        super().__init__(message)
        self.invocation = invocation
        self.message = message
        self.status_code = status_code


def tool_result(tool: str, invocations: list[Invocation], notes: list[str], read: Callable[[], Any]) -> ToolResult:
    def listed(e: BaseException) -> list[Invocation]:
        inv = getattr(e, "invocation", None)
        if inv is not None and inv not in invocations:
            invocations.append(inv)
        return invocations

    try:
        data = read()
    except Absent as a:
        return ToolResult(tool=tool, status=ToolStatus.ABSENT, invocations=listed(a), notes=notes,
                          error=ToolFailure(ErrorKind.NOT_FOUND, a.message, a.status_code).to_error())
    except ToolFailure as f:
        return ToolResult(tool=tool, status=ToolStatus.ERROR, invocations=listed(f), notes=notes, error=f.to_error())
    except ValidationError as e:
        return ToolResult(tool=tool, status=ToolStatus.ERROR, invocations=invocations, notes=notes,
                          error=ToolFailure(ErrorKind.MALFORMED, f"unexpected response shape: "
                                            f"{e.error_count()} field error(s)").to_error())
    return ToolResult(tool=tool, status=ToolStatus.OK, data=data, invocations=invocations, notes=notes)


def no_spec(workload_type: str | None) -> ToolResult:
    """``get_workload_spec`` for a kind that has no submitted spec: ABSENT, without a read."""
    return ToolResult(tool="get_workload_spec", status=ToolStatus.ABSENT,
                      error=ToolFailure(ErrorKind.NOT_FOUND, f"workload type {workload_type!r} has no "
                                        "submitted-spec endpoint").to_error())
