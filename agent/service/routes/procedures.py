"""One POST route per registered runai procedure that declares one (``agent.procedures.specs()``), e.g.
``POST /v1/diagnoses`` (runai_failed): 200 and exactly the procedure's ``--json`` object; with ``Accept:
text/event-stream`` the same request as a stream (``agent.service.sse``). The body is the ``failed`` request
(``DiagnosisBody``), turned into the procedure's own request type; the runner picks the procedure by that type. A
procedure whose spec names its own ``params`` takes those instead: the body is a model of that function's
parameters (no other field), and the function builds the request."""
from __future__ import annotations

import inspect
from typing import Any, Callable

from fastapi import APIRouter, Depends, Request, Response
from pydantic import ConfigDict, create_model

from workload_diagnose.agent.procedures import specs
from workload_diagnose.agent.procedures.spec import ProcedureSpec, load
from workload_diagnose.agent.service import sse
from workload_diagnose.agent.service.auth import Principal
from workload_diagnose.agent.service.models import ERROR_RESPONSES, DiagnosisBody


ORDER = 20  # where these paths stand in the OpenAPI document (agent.service.routes)


def build(caller: Callable[..., Any]) -> APIRouter:
    router = APIRouter()
    for spec in specs().values():
        if spec.route is not None and spec.kind == "runai":
            _add(router, spec, caller)
    return router


def _field(name: str, annotation: Any, default: Any) -> tuple[Any, Any]:
    """A parameter as a body field documented with what the request's rules enforce: a workload option's own
    constraints (``DiagnosisBody``), else a name's pattern for a text; the parameter's default kept."""
    from copy import copy

    from pydantic import Field

    from workload_diagnose.agent.service.models import NAME_PATTERN

    shared = DiagnosisBody.model_fields.get(name)
    if shared is not None:
        info = copy(shared)
        info.default = default
        return annotation, info
    if annotation in (str, str | None):
        return annotation, Field(default, max_length=253, pattern=NAME_PATTERN)
    return annotation, default


def params_body(spec: ProcedureSpec) -> tuple[type, Callable[[Any], Any]]:
    """The body model of a procedure's route and how a body becomes its request: ``DiagnosisBody`` for the shared
    workload options, else a model of its ``params`` function's parameters (extra fields refused)."""
    if spec.params is None:
        return DiagnosisBody, lambda body: spec.as_input(body.to_request())
    build = load(spec.params)
    sig = inspect.signature(build, eval_str=True)
    fields = {name: _field(name, p.annotation, p.default) for name, p in sig.parameters.items()}
    extra = getattr(build, "json_schema", None)  # cross-field rules the parameters state (e.g. one scope, not two)
    model = create_model(f"{spec.name.title().replace('_', '')}Body",
                         __config__=ConfigDict(extra="forbid", json_schema_extra=extra),
                         **fields)  # type: ignore[call-overload]
    model.__doc__ = (build.__doc__ or "").split("\n\n")[0]

    def to_request(body: Any) -> Any:
        """The request, or the parameters' one-line error as the documented 422 body (a validation error list)."""
        from fastapi.exceptions import RequestValidationError

        from workload_diagnose.tools.runai import InvalidInput

        try:
            return build(**body.model_dump())
        except InvalidInput as e:
            raise RequestValidationError([{"loc": ("body",), "msg": str(e), "type": "value_error"}]) from None

    return model, to_request


def _add(router: APIRouter, spec: ProcedureSpec, caller: Callable[..., Any]) -> None:
    route = spec.route
    assert route is not None
    body_type, to_request = params_body(spec)

    async def endpoint(body: DiagnosisBody, request: Request, principal: Principal = Depends(caller)) -> Any:
        svc = request.app.state.service
        admitted = svc.runner.admit(principal, to_request(body))  # 403 / 429 before any read
        if sse.wants_stream(request):
            return sse.stream(admitted, svc.metrics)
        result = await admitted.result()
        return Response(result.model_dump_json(), media_type="application/json")

    endpoint.__name__ = route.operation
    endpoint.__annotations__["body"] = body_type
    router.add_api_route(
        route.path, endpoint, methods=["POST"], response_model=spec.output_type, summary=route.summary,
        tags=[route.tag], name=route.operation,
        responses={**ERROR_RESPONSES, 200: {"description": f"{route.ok} (or, with Accept: text/event-stream, "
                                                           "progress events then it)",
                                            "content": {sse.MEDIA_TYPE: {"schema": {"type": "string"}}}}})
