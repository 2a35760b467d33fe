"""Findings: what the nodes of a procedure add as they gather evidence (LangGraph reducer fields).

A node returns only what it adds; parallel nodes may add in any order, so every finding carries the ``step``
(the procedure's evidence order) it belongs to, and ``ordered`` gives the one deterministic order the report
prints: by step, then in the order added within the step.
"""
from __future__ import annotations

import operator
from typing import Annotated, TypeVar

from pydantic import BaseModel

from workload_diagnose.tools.base import ToolResult


class Limitation(BaseModel):
    step: int
    text: str


class Call(BaseModel):
    """One read request made, in the public ``tool_calls`` shape plus its step."""

    step: int
    tool: str
    request: str
    status: int | None = None


T = TypeVar("T", Limitation, Call)
Added = Annotated[list[T], operator.add]  # the reducer: a node's list is appended to what is there


def ordered(items: list[T]) -> list[T]:
    return sorted(items, key=lambda x: x.step)  # stable: keeps the order added inside a step


def calls_of(result: ToolResult | None, step: int) -> list[Call]:
    if result is None:
        return []
    return [Call(step=step, tool=result.tool, request=inv.describe(), status=inv.status_code)
            for inv in result.invocations]


def limitations(step: int, *texts: str) -> list[Limitation]:
    return [Limitation(step=step, text=t) for t in texts]
