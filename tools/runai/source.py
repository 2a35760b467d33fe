"""What the graph needs from Run:ai: the six skill reads, as a :class:`typing.Protocol`.

The graph's nodes call a ``RunaiSource`` and nothing else of Run:ai. There are two implementations: REST
(:class:`tools.runai.rest.RunaiClient`) and the official Run:ai MCP server
(``nvcr.io/nvidia/runai/runai-mcp-server``: :class:`tools.runai.mcp.RunaiMcpSource`), chosen where the source is
constructed (``agent/sources.py`` ``open_runai``, ``--tier1 rest|mcp``), WITHOUT touching a graph node. Each
keeps this contract:

* **Same methods, same signatures, same return types.** Each method returns a :class:`tools.base.ToolResult`
  whose ``tool`` is the skill tool name (the method's name) and whose ``data`` is the model listed below
  (:mod:`tools.runai.models`). A failed or partial read is a result, not an exception: ``status`` is
  ``ERROR`` (``error.kind`` from :class:`tools.base.ErrorKind`) or ``ABSENT`` (the workload/endpoint does not
  exist), ``notes`` says what was not read (e.g. pagination stopped).
* **Only the fatal errors raise:** :class:`tools.runai.errors.ApiUnavailable` (cannot reach Run:ai at all) and
  :class:`tools.runai.errors.ApiAuthError` (credentials refused) — from any method or from construction — and
  :class:`tools.runai.errors.InvalidInput` for an identifier that fails :mod:`tools.runai.ids` (validate
  *before* sending anything).
* **Invocations are text.** Every call that left the process is one :class:`tools.base.Invocation` in the
  result: ``tool`` and ``arguments`` as the caller gave them (``{"workloadId": ...}``; the keys each method
  records are listed below), ``request`` the exact request text as sent (for MCP: the ``tools/call`` name and
  JSON arguments), ``status_code`` and ``attempts``. Reports cite ``request`` verbatim.
* **Read-only by construction.** REST goes through :mod:`tools.transport`; an MCP source must allow-list the
  six read tool names itself (write tools exist on some servers) and refuse anything else before sending.
* **Sanitised.** Every body passes ``guardrails.sanitize_value`` before it is parsed; the instruction-like
  findings are appended to :attr:`injections` (thread-safe: the graph's parallel nodes share one source).

=======================  ==========================================  =======================================
method                   ``arguments`` recorded                      ``data`` when OK
=======================  ==========================================  =======================================
list_workloads           name, clusterId, project                    ``list[Workload]`` (exact matches only)
get_workload_status      workloadId                                  :class:`WorkloadStatus`
get_workload_spec        workloadId, workloadType                    :class:`SubmittedSpec`
get_workload_pods        workloadId                                  ``list[Pod]``
get_workload_history     workloadId, cutoff                          :class:`History` (newest first)
get_workload_metrics     workloadId, start, end, metricTypes         ``list[MetricSeries]``
=======================  ==========================================  =======================================
"""
from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from tools.base import ToolResult
from tools.runai.models import OOM_METRICS

__all__ = ["RunaiSource"]


@runtime_checkable
class RunaiSource(Protocol):
    """A read-only source of Run:ai evidence (REST today; MCP later). See the module docstring."""

    #: guardrail findings (instruction-like text) in everything this source read, in read order.
    injections: list[Any]

    def list_workloads(self, *, name: str, cluster_id: str, project: str) -> ToolResult:
        """``list_workloads``: workloads named exactly ``name`` in ``project`` on ``cluster_id``, newest phase
        update first, every page (``data: list[Workload]``)."""
        ...

    def get_workload_status(self, workload_id: str, *, cutoff: datetime | None = None) -> ToolResult:
        """``get_workload_status``: the workload and its recent events, newest first down to ``cutoff`` (the
        lookback) when given (``data: WorkloadStatus``; ``events is None`` when only the events could not be read;
        ``notes`` says what was skipped or not read)."""
        ...

    def get_workload_spec(self, workload_id: str, workload_type: str | None) -> ToolResult:
        """``get_workload_spec``: the submitted spec (``data: SubmittedSpec``; ABSENT for a kind without one)."""
        ...

    def get_workload_pods(self, workload_id: str) -> ToolResult:
        """``get_workload_pods``: the workload's pods, every page (``data: list[Pod]``)."""
        ...

    def get_workload_history(self, workload_id: str, *, cutoff: datetime) -> ToolResult:
        """``get_workload_history``: records newer than ``cutoff``, newest first (``data: History``)."""
        ...

    def get_workload_metrics(self, workload_id: str, *, start: datetime, end: datetime,
                             metric_types: tuple[str, ...] = OOM_METRICS, samples: int = 1000) -> ToolResult:
        """``get_workload_metrics``: one series per metric type in ``[start, end]`` (``data:
        list[MetricSeries]``; values that are not plain numbers are counted in ``unparsable``, never coerced)."""
        ...

    def close(self) -> None:
        """Release connections. Idempotent."""
        ...
