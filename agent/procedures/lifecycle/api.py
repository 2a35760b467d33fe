"""One refresh of the lifecycle view: the compiled graph run over a read-only source (CLI, tests, --watch)."""
from __future__ import annotations

from typing import Any, Callable

from agent.model.lifecycle import LifecycleResult
from agent.procedures import graph
from agent.procedures.lifecycle.context import Context
from agent.procedures.lifecycle.nodes import LifecycleAuthError, LifecycleUnavailable
from agent.procedures.lifecycle.state import LifecycleRequest

__all__ = ["LifecycleAuthError", "LifecycleUnavailable", "LifecycleRequest", "refresh"]


def refresh(request: LifecycleRequest, kube: Any, *, metrics: Any = None,
            progress: Callable[[str], None] | None = None) -> LifecycleResult:
    """Walk the lifecycle of one run once. ``kube`` is a ``tools.kube.lifecycle.LifecycleReader``; its recorded
    calls and findings are per refresh (cleared here)."""
    kube.calls.clear()
    kube.injections.clear()
    out = graph("lifecycle").invoke({"request": request},
                                    context=Context(kube=kube, metrics=metrics, progress=progress))
    return out["result"]
