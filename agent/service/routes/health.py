"""``GET /healthz`` (the process answers), ``GET /readyz`` (Run:ai is reachable, checked for real and cached
briefly), ``GET /metrics`` (Prometheus). None of them needs a token: they tell nothing about a workload."""
from __future__ import annotations

import asyncio
from typing import Any, Callable

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel

from workload_diagnose.agent.service.metrics import CONTENT_TYPE_LATEST


ORDER = 10  # where these paths stand in the OpenAPI document (agent.service.routes)


class Health(BaseModel):
    status: str
    detail: str | None = None


def build(caller: Callable[..., Any]) -> APIRouter:
    router = APIRouter(tags=["operations"])

    @router.get("/healthz", response_model=Health, summary="The process is up")
    async def healthz() -> Health:
        return Health(status="ok")

    @router.get("/readyz", response_model=Health, summary="Run:ai is reachable (a real check, cached briefly)",
                responses={503: {"model": Health, "description": "Run:ai cannot be reached"}})
    async def readyz(request: Request) -> Any:
        svc = request.app.state.service
        ok, detail = await asyncio.to_thread(svc.upstream.ready)
        body = Health(status="ok" if ok else "unavailable", detail=detail)
        return body if ok else JSONResponse(body.model_dump(), status_code=503)

    @router.get("/metrics", summary="Prometheus metrics", response_class=Response,
                responses={200: {"content": {CONTENT_TYPE_LATEST: {"schema": {"type": "string"}}}}})
    async def metrics(request: Request) -> Response:
        return Response(request.app.state.service.metrics.render(), media_type=CONTENT_TYPE_LATEST)

    return router
