"""The two line shapes every result shares: an evidence line (a source and its text) and a read made."""
from __future__ import annotations

from pydantic import BaseModel, Field


class EvidenceLine(BaseModel):
    source: str
    text: str


class ToolCall(BaseModel):
    tool: str
    request: str
    status: int | None = None
    # only for a read the service made speculatively (WD_SPECULATIVE_READS) that the procedure did not use: why
    unused: str | None = Field(default=None, exclude_if=lambda v: v is None)


def decisive(text: str, limit: int) -> str:
    """``text`` on one line of at most ``limit`` characters, cut where it says least. An error chain (``: ``-separated
    clauses, as a registry or mount error) names what failed first and why last ('Failed to pull image "x": rpc
    error: ...: 401 Unauthorized'): its tail is kept, after the first clause when that is short, and the middle
    becomes '…'. Any other text keeps its start. Whitespace runs become one space."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    if ": " not in flat:
        cut = flat[:max(1, limit - 1)]
        space = cut.rfind(" ")
        return (cut[:space] if space > len(cut) * 2 // 3 else cut).rstrip(" ,;:") + "…"
    head, _, _ = flat.partition(": ")
    prefix = f"{head}: … " if len(head) + 4 <= limit // 2 else "… "
    tail = flat[len(flat) - max(1, limit - len(prefix)):]
    clause, space = tail.find(": "), tail.find(" ")
    if 0 <= clause < len(tail) // 3:  # start the tail at a clause of the chain when one starts early
        tail = tail[clause + 2:]
    elif 0 <= space < len(tail) // 2:  # else at a word, not inside one
        tail = tail[space + 1:]
    return prefix + tail
