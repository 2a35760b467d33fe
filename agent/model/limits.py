"""Bounds on what a diagnosis reads, shared by every procedure (they travel in the run's context)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    log_tail_lines: int = 200  # kubectl logs --previous --tail
    log_limit_bytes: int = 256 * 1024  # never read more of a log than this, even when the server ignores limitBytes
    max_tier2_pods: int = 5  # pods described per workload
    max_body_bytes: int = 16 * 1024 * 1024  # a Run:ai response body is read up to this, never further (decoded)
    read_idle_seconds: float = 10.0  # a Run:ai read that receives nothing for this long fails (inactivity)
    read_total_seconds: float = 30.0  # one Run:ai request, headers and body, never takes longer (a drip ends)
    max_event_pages: int = 20  # pages of workload events followed within the lookback (50 events a page)
    # a diagnosis reads its independent steps at once (spec, pods, history, metrics; the events beside the
    # workload) in threads: the least latency for one diagnosis (CLI, chat). A service or a fleet that runs many
    # diagnoses at once runs each one's steps one at a time instead, with no thread per read: the same reads, the
    # same report, less CPU (the threads of one process contend for the GIL). The service still overlaps the reads
    # of a step, started ahead on its event loop (agent/service/upstream.py); a fleet reads them one after the other
    concurrent_reads: bool = True
