"""The service's routes, one module each. ``ROUTERS`` is the one list ``agent.service.app`` includes: a new
endpoint (e.g. the chat endpoint) is a module here with ``build(caller) -> APIRouter`` and one line below.
``caller`` is the app's auth dependency (it yields the request's :class:`agent.service.auth.Principal`; it is
an OpenAPI security requirement only when auth is configured)."""
from __future__ import annotations

ROUTERS: tuple[str, ...] = (
    "workload_diagnose.agent.service.routes.health",  # GET /healthz, /readyz, /metrics
    "workload_diagnose.agent.service.routes.procedures",  # POST per registered procedure (/v1/diagnoses: runai_failed)
    "workload_diagnose.agent.service.routes.chat",  # POST /v1/chat/{thread_id}/messages
)
