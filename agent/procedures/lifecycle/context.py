"""The run's context (LangGraph ``context_schema``): the read-only Kubernetes source and the limits of one refresh.

Nodes read it through ``runtime.context``; the same compiled graph serves every refresh and every entry point.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

MAX_PODS_WITH_EVENTS = 10  # event reads per refresh are bounded: pods beyond this are said in a limitation


@dataclass
class Context:
    kube: Any  # tools.kube.lifecycle.LifecycleReader (GET-only over the guarded client)
    metrics: Any = None  # tools.kube.metrics.DcgmProfileReader, only with --run-profile
    progress: Callable[[str], None] | None = None
    max_pods_with_events: int = MAX_PODS_WITH_EVENTS

    def step(self, message: str) -> None:
        if self.progress:
            self.progress(message)
