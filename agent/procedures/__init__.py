"""Procedures: one package per procedure, each a LangGraph graph whose nodes mirror the procedure's steps.

To add a procedure: create ``agent/procedures/<name>/`` (``graph.py`` with ``build_graph()``, its nodes and report,
built on ``agent.procedures.kit``; its package ``__init__`` declares ``SPEC``, an :class:`agent.procedures.spec.
ProcedureSpec`) and add its package to ``REGISTRY``. The CLI, HTTP, MCP, LangGraph Studio and the eval runner derive
from the specs; entry points look procedures up by name (or, for a Run:ai request, by its type), never by import
path. Procedures never import each other (a test checks it): what two share belongs in the kit.
"""
from __future__ import annotations

from functools import cache
from typing import Any

from workload_diagnose.agent.procedures.spec import ProcedureSpec, load

REGISTRY: tuple[str, ...] = (
    "workload_diagnose.agent.procedures.runai_failed",  # Run:ai: why did my workload fail?
    "workload_diagnose.agent.procedures.preempted",  # Run:ai: why was my workload preempted?
    "workload_diagnose.agent.procedures.lifecycle",  # Kueue/KubeRay: the first incomplete lifecycle layer
    "workload_diagnose.agent.procedures.pending",  # Run:ai: why is my workload still Pending?
    "workload_diagnose.agent.procedures.health",  # Run:ai: how is my project doing, what needs attention?
)


@cache
def specs() -> dict[str, ProcedureSpec]:
    """Every registered procedure's spec, by name, in registry order."""
    out: dict[str, ProcedureSpec] = {}
    for module in REGISTRY:
        spec: ProcedureSpec = load(f"{module}:SPEC")
        if spec.name in out:
            raise ValueError(f"procedure {spec.name!r} is registered twice")
        out[spec.name] = spec
    return out


def spec(name: str) -> ProcedureSpec:
    try:
        return specs()[name]
    except KeyError:
        raise KeyError(f"no procedure {name!r} (registered: {', '.join(specs())})") from None


@cache
def graph(name: str) -> Any:
    """The compiled graph of a registered procedure (compiled once per process: it holds no run state)."""
    return spec(name).build_graph()


def for_request(request: Any) -> ProcedureSpec:
    """The runai procedure whose input is exactly this request's type."""
    for s in specs().values():
        if s.kind == "runai" and type(request) is s.input_type:
            return s
    raise KeyError(f"no procedure takes a {type(request).__name__}")


def run(name: str, request: Any, context: Any) -> Any:
    """Run one procedure on one request with its context (the sources it reads); returns its result."""
    limits = getattr(context, "limits", None)
    config = None if limits is None or limits.concurrent_reads else {"max_concurrency": 1}  # nodes one at a time
    return graph(name).invoke({"request": request}, context=context, config=config)["result"]
