"""Bounds on what a diagnosis reads, shared by every procedure (they travel in the run's context)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    log_tail_lines: int = 200  # kubectl logs --previous --tail
    log_limit_bytes: int = 256 * 1024  # never read more of a log than this, even when the server ignores limitBytes
    max_tier2_pods: int = 5  # pods described per workload
