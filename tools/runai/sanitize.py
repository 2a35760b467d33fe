"""Every body a source reads passes here before it is parsed: ``guardrails.sanitize_value`` (normalise, redact,
injection scan), the instruction-like findings kept in read order for the report. One per source (or per view of
one): thread-safe, since the graph's parallel nodes share a source."""
from __future__ import annotations

import threading
from typing import Any

__all__ = ["Findings"]


class Findings:
    """``clean = findings.sanitize(body)``; ``findings.injections`` lists what every sanitised body carried."""

    def __init__(self) -> None:
        self.injections: list[Any] = []
        self._lock = threading.Lock()

    def sanitize(self, body: Any) -> Any:
        from workload_diagnose import guardrails

        clean, found = guardrails.sanitize_value(body)
        if found:
            with self._lock:
                self.injections.extend(found)
        return clean
