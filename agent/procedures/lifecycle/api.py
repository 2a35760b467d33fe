"""One refresh of the lifecycle view: the compiled graph run over a read-only source (CLI, tests, --watch)."""
from __future__ import annotations

from typing import Any, Callable, Literal

from workload_diagnose.agent.model.lifecycle import LifecycleResult
from workload_diagnose.agent.procedures import run
from workload_diagnose.agent.procedures.lifecycle.context import Context
from workload_diagnose.agent.procedures.lifecycle.nodes import LifecycleAuthError, LifecycleUnavailable
from workload_diagnose.agent.procedures.lifecycle.state import LifecycleRequest

__all__ = ["LifecycleAuthError", "LifecycleUnavailable", "LifecycleRequest", "refresh", "status"]


def refresh(request: LifecycleRequest, kube: Any, *, metrics: Any = None,
            progress: Callable[[str], None] | None = None) -> LifecycleResult:
    """Walk the lifecycle of one run once. ``kube`` is a ``tools.kube.lifecycle.LifecycleReader``; its recorded
    calls and findings are per refresh (cleared here)."""
    kube.calls.clear()
    kube.injections.clear()
    return run("lifecycle", request, Context(kube=kube, metrics=metrics, progress=progress))


def status(name: str, namespace: str, kind: Literal["auto", "job", "rayjob"] = "auto") -> LifecycleResult:
    """One refresh with a reader of ``KUBECONFIG`` (the MCP tool ``lifecycle_status``); raises ``KubeError`` or
    ``InvalidInput`` (one line each)."""
    from workload_diagnose.tools.kube.lifecycle import LifecycleReader

    reader = LifecycleReader.from_kubeconfig(None, None)
    try:
        return refresh(LifecycleRequest(name=name, namespace=namespace, kind=kind), reader)
    finally:
        reader.close()
