"""``Accept: text/event-stream`` on ``POST /v1/diagnoses``: one ``progress`` event per tool call as it completes,
then one ``result`` event (the ``failed --json`` object), or one ``error`` event (``{status, detail}``) when the
diagnosis ended without a result. Every refusal that needs no read (401/403/413/422/429) is an HTTP error before
the stream starts; a workload found outside the token's scope after its status read is an ``error`` event (403).
Tier 2 (Kubernetes) is one ``progress`` event for the step; its calls are listed in the result's ``tool_calls``.
"""
from __future__ import annotations

import asyncio
import json
from typing import Any, AsyncIterator

from fastapi import Request
from fastapi.responses import StreamingResponse

from workload_diagnose.agent.model.result import ToolCall
from workload_diagnose.agent.service.errors import one_line, status_and_detail
from workload_diagnose.agent.service.runner import Admitted

MEDIA_TYPE = "text/event-stream"


def wants_stream(request: Request) -> bool:
    return MEDIA_TYPE in (request.headers.get("accept") or "").lower()


def frame(event: str, data: Any) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


def stream(admitted: Admitted, metrics: Any) -> StreamingResponse:
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[ToolCall | None] = asyncio.Queue()

    def on_call(call: ToolCall) -> None:  # called from the diagnosis thread
        try:
            loop.call_soon_threadsafe(queue.put_nowait, call)
        except RuntimeError:  # the server is shutting down: nobody is listening any more
            pass

    task = asyncio.ensure_future(admitted.result(on_call))  # starts now: its slot is freed even if no one reads

    def finished(t: asyncio.Future) -> None:
        if not t.cancelled():
            t.exception()  # retrieved here, reported in the stream (or dropped when the client left)
        queue.put_nowait(None)

    task.add_done_callback(finished)

    async def events() -> AsyncIterator[bytes]:
        while (call := await queue.get()) is not None:
            yield frame("progress", call.model_dump(mode="json"))
        exc = task.exception() if not task.cancelled() else asyncio.CancelledError()
        if exc is None:
            yield frame("result", task.result().model_dump(mode="json"))
            return
        status, detail = status_and_detail(exc)
        if status == 403:
            metrics.rejected.labels(reason="scope").inc()
        yield frame("error", {"status": status, "detail": one_line(detail)})

    return StreamingResponse(events(), media_type=MEDIA_TYPE,
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
