"""The two line shapes every result shares: an evidence line (a source and its text) and a read made."""
from __future__ import annotations

from pydantic import BaseModel


class EvidenceLine(BaseModel):
    source: str
    text: str


class ToolCall(BaseModel):
    tool: str
    request: str
    status: int | None = None
