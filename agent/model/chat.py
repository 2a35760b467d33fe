"""The public result of one chat turn: the ``workload-diagnose ask --json`` contract (stable field names)."""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

Missing = Literal["cluster_id", "workload", "project"]


class ChatReply(BaseModel):
    thread_id: str
    reply: str
    needs_input: bool
    missing: list[Missing] = Field(default_factory=list)  # what the assistant asked for (never a value given)
    # the answering command's --json object (failed, or the sibling the question or route named); null while input
    # is needed
    diagnosis: dict | None = None
    usage: dict = Field(default_factory=dict)  # LLM calls and tokens this turn (zeros without an LLM); llm_error
    # (only when a model call gave no usable answer): why the turn went on without it
