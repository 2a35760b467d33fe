"""``GET /healthz`` (the process answers), ``GET /readyz`` (this replica can take requests), ``GET /metrics``
(Prometheus). None of them needs a token: they tell nothing about a workload.

``/readyz`` answers 503 only for what this replica itself cannot serve: its Run:ai source is not configured
(``RUNAI_BASE_URL`` unset, a ``WD_TIER1`` source without its settings), which no retry fixes. Run:ai's own state is
checked for real (a token exchange with the service account; in pass-through an unauthenticated GET that any
answer but a 5xx proves reachable; cached ``WD_READY_TTL_S``) and *reported* (``runai``, ``detail`` and the
``workload_diagnose_runai_up`` gauge), not acted on: Run:ai is shared by every replica, so failing readiness on
its outage would take every replica out of the Service at once, and callers would get connection errors instead
of the one-line 502/504 that says Run:ai is the problem. Alert on the gauge, not on readiness.
"""
from __future__ import annotations

import asyncio
from typing import Any, Callable, Literal

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field

from workload_diagnose.agent.service.metrics import CONTENT_TYPE_LATEST
from workload_diagnose.agent.service.upstream import unconfigured


ORDER = 10  # where these paths stand in the OpenAPI document (agent.service.routes)


class Health(BaseModel):
    status: str
    detail: str | None = None
    runai: Literal["reachable", "unreachable"] | None = Field(
        None, description="/readyz: what the last Run:ai check found (reported; readiness does not depend on it)")


def build(caller: Callable[..., Any]) -> APIRouter:
    router = APIRouter(tags=["operations"])

    @router.get("/healthz", response_model=Health, summary="The process is up")
    async def healthz() -> Any:
        return JSONResponse({"status": "ok", "detail": None})

    @router.get("/readyz", response_model=Health,
                summary="This replica can take requests (Run:ai's state is reported, not required)",
                responses={503: {"model": Health, "description": "The Run:ai source is not configured"}})
    async def readyz(request: Request) -> Any:
        svc = request.app.state.service
        if (why := unconfigured(svc.config)) is not None:
            return JSONResponse(Health(status="unavailable", detail=why).model_dump(), status_code=503)
        ok, detail = await asyncio.to_thread(svc.upstream.ready)
        svc.metrics.runai_up.set(1 if ok else 0)
        return Health(status="ok", detail=detail, runai="reachable" if ok else "unreachable")

    @router.get("/metrics", summary="Prometheus metrics", response_class=Response,
                responses={200: {"content": {CONTENT_TYPE_LATEST: {"schema": {"type": "string"}}}}})
    async def metrics(request: Request) -> Response:
        return Response(request.app.state.service.metrics.render(), media_type=CONTENT_TYPE_LATEST)

    return router
