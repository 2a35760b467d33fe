"""``POST /v1/diagnoses``: 200 and exactly the ``workload-diagnose failed --json`` object; with ``Accept:
text/event-stream`` the same request as a stream (``agent.service.sse``)."""
from __future__ import annotations

from typing import Any, Callable

from fastapi import APIRouter, Depends, Request, Response

from agent.model.result import DiagnosisResult
from agent.service import sse
from agent.service.auth import Principal
from agent.service.models import ERROR_RESPONSES, DiagnosisBody


def build(caller: Callable[..., Any]) -> APIRouter:
    router = APIRouter(tags=["diagnoses"])

    @router.post("/v1/diagnoses", response_model=DiagnosisResult, summary="Diagnose one failed Run:ai workload",
                 responses={**ERROR_RESPONSES, 200: {"description": "The `failed --json` object (or, with Accept: "
                                                                    "text/event-stream, progress events then it)",
                                                     "content": {sse.MEDIA_TYPE: {"schema": {"type": "string"}}}}})
    async def diagnose(body: DiagnosisBody, request: Request, principal: Principal = Depends(caller)) -> Any:
        svc = request.app.state.service
        admitted = svc.runner.admit(principal, body.to_request())  # 403 / 429 before any read
        if sse.wants_stream(request):
            return sse.stream(admitted, svc.metrics)
        result = await admitted.result()
        return Response(result.model_dump_json(), media_type="application/json")

    return router
