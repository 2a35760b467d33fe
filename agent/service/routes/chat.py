"""``POST /v1/chat/{thread_id}/messages`` ``{message}``: one turn of the chat assistant, answered with exactly the
``workload-diagnose ask --json`` object (``agent.chat.api.chat``).

The conversation lives in the service's chat store (``agent.service.chatstore``): PostgreSQL when
``WD_CHAT_POSTGRES_DSN`` is set, so any replica behind a load balancer continues any thread. A thread belongs to
its caller: the store key is the caller's credential plus the thread id, so one API token can never read or
continue another's conversation. The turn runs in the service's bounded pool (429 when full, 504 past the
deadline) and reads Run:ai through the caller's scope (a workload outside it is a 403, as for diagnoses).
"""
from __future__ import annotations

import json
from typing import Any, Callable

from fastapi import APIRouter, Depends, Path, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from workload_diagnose.agent.model.chat import ChatReply
from workload_diagnose.agent.service.auth import Principal
from workload_diagnose.agent.service.models import ERROR_RESPONSES

ORDER = 30  # where these paths stand in the OpenAPI document (agent.service.routes)

THREAD_ID = r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$"
MAX_MESSAGE_CHARS = 8000


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="forbid")
    message: str = Field(min_length=1, max_length=MAX_MESSAGE_CHARS, description="What the user said.")


def owner_key(principal: Principal) -> str:
    """Who owns a thread: one credential (``Principal.owner``), never a token's display name."""
    return principal.owner


def build(caller: Callable[..., Any]) -> APIRouter:
    router = APIRouter(tags=["chat"])

    @router.post("/v1/chat/{thread_id}/messages", response_model=ChatReply, responses=ERROR_RESPONSES,
                 summary="One turn of the chat assistant (the `ask --json` object)")
    async def message(body: ChatMessage, request: Request,
                      thread_id: str = Path(pattern=THREAD_ID, description="The conversation's id (yours)."),
                      principal: Principal = Depends(caller)) -> Any:
        svc = request.app.state.service
        store = svc.chat_store()
        key = f"{owner_key(principal)}.{thread_id}"

        def turn() -> ChatReply:
            from workload_diagnose.agent.chat.api import chat

            client = svc.upstream.source(principal.bearer)
            try:
                return chat(key, body.message, runai=principal.guard(client), checkpointer=store,
                            kube_reader=svc.upstream.kube, use_kube=svc.upstream.kube is not None)
            finally:
                client.close()

        reply = await svc.runner.call(turn)
        out = reply.model_dump(mode="json")
        out["thread_id"] = thread_id  # the caller's id, not the store key
        return Response(json.dumps(out), media_type="application/json")

    return router
