"""Tier 1: Run:ai, read-only.

* :mod:`tools.runai.source` — :class:`RunaiSource`, the six skill reads the graph calls, and the ``fleet``
  capability a triage reads (:class:`FleetSource`).
* :mod:`tools.runai.registry` — every source (``rest``, ``mcp``: the ``--tier1`` values) and the one factory.
* :mod:`tools.runai.parse` / :mod:`tools.runai.sanitize` — bodies to typed results, and the guardrails every body
  passes, shared by every source.
* :mod:`tools.runai.rest` — :class:`RunaiClient`, the REST implementation (through :mod:`tools.transport`).
* :mod:`tools.runai.models` — the domain models every source returns; :mod:`tools.runai.quota` — projects (quota
  per node pool) and node pools, the ``projects`` capability's models and parsers; :mod:`tools.runai.capacity` —
  nodes and node-pool GPUs, the ``nodes`` capability's.
* :mod:`tools.runai.errors` — :class:`InvalidInput`, :class:`ApiUnavailable`, :class:`ApiAuthError`.
* :mod:`tools.runai.ids` — :func:`check_id` / :func:`check_name`.
"""
from workload_diagnose.tools.runai.errors import ApiAuthError, ApiUnavailable, InvalidInput
from workload_diagnose.tools.runai.ids import check_id, check_name
from workload_diagnose.tools.runai.models import (
    OOM_METRICS,
    Condition,
    Event,
    History,
    HistoryRecord,
    InvolvedObject,
    MetricSample,
    MetricSeries,
    PhaseUpdate,
    Pod,
    SubmittedSpec,
    Workload,
    WorkloadStatus,
)
from workload_diagnose.tools.runai.parse import SPEC_PATH_BY_KIND, spec_kind_path
from workload_diagnose.tools.runai.rest import RunaiClient
from workload_diagnose.tools.runai.source import FleetSource, RunaiSource
from workload_diagnose.tools.timeutil import iso, parse_time

__all__ = [
    "ApiAuthError", "ApiUnavailable", "InvalidInput", "check_id", "check_name",
    "OOM_METRICS", "Condition", "Event", "History", "HistoryRecord", "InvolvedObject", "MetricSample",
    "MetricSeries", "PhaseUpdate", "Pod", "SubmittedSpec", "Workload", "WorkloadStatus",
    "SPEC_PATH_BY_KIND", "RunaiClient", "spec_kind_path", "RunaiSource", "FleetSource", "iso", "parse_time",
]
