"""What the graph needs from Run:ai: the six skill reads, as a :class:`typing.Protocol`.

The graph's nodes call a ``RunaiSource`` and nothing else of Run:ai. Every implementation is registered in
:mod:`tools.runai.registry` (REST, :class:`tools.runai.rest.RunaiClient`; the official Run:ai MCP server
``nvcr.io/nvidia/runai/runai-mcp-server``, :class:`tools.runai.mcp.RunaiMcpSource`) and built by its one factory
(``open_source``, ``--tier1 NAME``), WITHOUT touching a graph node. Each keeps this contract:

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
* **Sanitised.** Every body passes :class:`tools.runai.sanitize.Findings` before it is parsed (with the shared
  parsers of :mod:`tools.runai.parse`); the instruction-like findings are in :attr:`injections` (thread-safe: the
  graph's parallel nodes share one source).

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

from workload_diagnose.tools.base import ToolResult
from workload_diagnose.tools.runai.models import OOM_METRICS

__all__ = ["RunaiSource", "FleetSource", "ClusterSource", "ProjectSource", "NodeSource", "FLEET", "CLUSTERS",
           "PROJECTS", "NODES", "CAPABILITIES"]

#: the capability a fleet triage needs beyond the six reads (:class:`FleetSource`)
FLEET = "fleet"
#: the capability that resolves a cluster NAME to its id (:class:`ClusterSource`; the chat asks it)
CLUSTERS = "clusters"
#: the capability that reads a project's quota per node pool and the cluster's node pools (:class:`ProjectSource`)
PROJECTS = "projects"
#: the capability that reads a node pool's nodes and its GPUs, free ones included (:class:`NodeSource`)
NODES = "nodes"


@runtime_checkable
class RunaiSource(Protocol):
    """A read-only source of Run:ai evidence. See the module docstring."""

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


@runtime_checkable
class FleetSource(RunaiSource, Protocol):
    """Capability ``fleet``: what a triage (every failed workload of a cluster) reads beyond the six skill reads.
    A registered source declares it (``SourceSpec.capabilities``); one that does not is refused with
    one line before any read (:func:`tools.runai.registry.require`)."""

    def list_phase(self, *, cluster_id: str, phase: str | None, project: str | None = None,
                   department: str | None = None, since: datetime | None = None,
                   until: datetime | None = None) -> ToolResult:
        """``list_workloads`` of one whole phase of a cluster (every phase when ``phase`` is None; ``project`` or
        ``department`` narrowing it; the
        phase's last update in ``[since, until]`` when given), exact matches only, every page (``data:
        list[Workload]`` newest phase update first; what was not listed is a note)."""
        ...

    def get_listed_workload_status(self, listed: Any, *, cutoff: datetime | None = None) -> ToolResult:
        """``get_workload_status`` of a workload exactly as :meth:`list_phase` returned it: its events are read,
        the listed object stands in for the single-workload read."""
        ...

    def view(self) -> "FleetSource":
        """A view for one of many concurrent diagnoses: the same connections and credentials, its own
        ``injections``. Close the source, not the view."""
        ...

    def handoff(self) -> dict:
        """What a worker process needs (picklable) to continue with this source's credentials: see :meth:`adopt`."""
        ...

    def adopt(self, state: dict) -> None:
        """Continue with a :meth:`handoff` of the parent's source (one credential exchange per triage)."""
        ...

    def traffic(self) -> dict[str, float]:
        """Requests of the fleet so far: ``sent``, ``rate_limited``, ``paused_s`` (the shared 429 pause)."""
        ...



@runtime_checkable
class ClusterSource(Protocol):
    """Capability ``clusters``: the Run:ai clusters the caller can see. A source without it answers a cluster
    name with a question for the cluster id (:func:`tools.runai.clusters.list_clusters` says why)."""

    def list_clusters(self) -> ToolResult:
        """``list_clusters``: ``data: list[tools.runai.clusters.Cluster]`` (uuid lower case, name)."""
        ...


@runtime_checkable
class ProjectSource(Protocol):
    """Capability ``projects``: a project's quota per node pool (deserved, limit, over-quota weight) with what it
    uses (allocated, allocated non-preemptible, requested), and the cluster's node pools
    (:mod:`tools.runai.quota`; ``docs/reference/runai-projects-nodepools.md``). A procedure whose source does not
    declare it states the quota as not read."""

    def find_project(self, *, cluster_id: str, name: str) -> ToolResult:
        """``find_project``: the project named exactly ``name`` on ``cluster_id`` (``data:
        tools.runai.quota.Project``; ABSENT when no project has that name there)."""
        ...

    def list_node_pools(self, *, cluster_id: str) -> ToolResult:
        """``list_node_pools``: the node pools of ``cluster_id`` (``data: list[tools.runai.quota.NodePool]``)."""
        ...


@runtime_checkable
class NodeSource(Protocol):
    """Capability ``nodes``: the nodes of a node pool (status, taints, GPU type and count) and the pool's GPUs
    (total, allocated, free) (:mod:`tools.runai.capacity`; ``docs/reference/runai-nodes-capacity.md``). A procedure
    whose source does not declare it states the capacity as not read."""

    def list_nodes(self, *, cluster_id: str, node_pool: str) -> ToolResult:
        """``list_nodes``: the nodes of ``node_pool`` on ``cluster_id`` (``data: list[tools.runai.capacity.Node]``)."""
        ...

    def get_node_pool_gpus(self, *, cluster_id: str, node_pool: str, start: datetime, end: datetime) -> ToolResult:
        """``get_node_pool_gpus``: the pool's GPUs at the latest sample in ``[start, end]`` (``data:
        tools.runai.capacity.PoolGpus``; a figure no sample carried is None)."""
        ...


#: every capability a source may declare, and the protocol that checks it
CAPABILITIES: dict[str, type] = {FLEET: FleetSource, CLUSTERS: ClusterSource, PROJECTS: ProjectSource,
                                 NODES: NodeSource}
