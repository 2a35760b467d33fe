"""Tier 1: Run:ai, read-only.

* :mod:`tools.runai.source` — :class:`RunaiSource`, the six skill reads the graph calls (the seam for a
  second implementation over the official Run:ai MCP server).
* :mod:`tools.runai.rest` — :class:`RunaiClient`, the REST implementation (through :mod:`tools.transport`).
* :mod:`tools.runai.models` — the domain models every source returns.
* :mod:`tools.runai.errors` — :class:`InvalidInput`, :class:`ApiUnavailable`, :class:`ApiAuthError`.
* :mod:`tools.runai.ids` — :func:`check_id` / :func:`check_name`.

Everything agent/ and evals/ imported from ``tools.runai`` before the split is re-exported here.
"""
from tools.runai.errors import ApiAuthError, ApiUnavailable, InvalidInput
from tools.runai.ids import check_id, check_name
from tools.runai.models import (
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
from tools.runai.rest import SPEC_PATH_BY_KIND, RunaiClient, spec_kind_path
from tools.runai.source import RunaiSource
from tools.timeutil import iso, parse_time

__all__ = [
    "ApiAuthError", "ApiUnavailable", "InvalidInput", "check_id", "check_name",
    "OOM_METRICS", "Condition", "Event", "History", "HistoryRecord", "InvolvedObject", "MetricSample",
    "MetricSeries", "PhaseUpdate", "Pod", "SubmittedSpec", "Workload", "WorkloadStatus",
    "SPEC_PATH_BY_KIND", "RunaiClient", "spec_kind_path", "RunaiSource", "iso", "parse_time",
]
