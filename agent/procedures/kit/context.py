"""The run's context (LangGraph ``context_schema``): the sources and limits a diagnosis uses, apart from its input.

Nodes read it through ``runtime.context``; the same compiled graph serves every run and every entry point.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from workload_diagnose.agent.model.limits import Limits

if TYPE_CHECKING:
    from workload_diagnose.tools.runai import RunaiSource


@dataclass
class Context:
    runai: RunaiSource  # Tier 1: any implementation of the six skill reads (REST today)
    kube: Any = None  # Tier 2: tools.kube.KubeReader, or None when unavailable
    kube_unavailable: str | None = "no kubeconfig was given"  # why Tier 2 is unavailable (stated as a limitation)
    progress: Callable[[str], None] | None = None  # per-step progress for interactive entry points
    limits: Limits = field(default_factory=Limits)
    deadline: Any = None  # tools.deadline.Deadline of the diagnosis (--timeout): Tier 2's reads end by it too

    def step(self, message: str) -> None:
        if self.progress:
            self.progress(message)
