"""``list_clusters``: the Run:ai clusters the caller can see, to turn a cluster NAME the user gave into its id,
through a source that reads the ``clusters`` capability (REST: :mod:`tools.runai.rest.listing`). Only an exact
name match resolves a name; none or several is a question back to the user, never a guess.
"""
from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from workload_diagnose.tools.base import ErrorKind, ToolFailure, ToolResult, ToolStatus
from workload_diagnose.tools.runai.errors import ApiUnavailable
from workload_diagnose.tools.runai.ids import check_name
from workload_diagnose.tools.runai.source import ClusterSource

__all__ = ["Cluster", "ClusterMatch", "list_clusters", "resolve_cluster_name"]


class Cluster(BaseModel):
    uuid: str
    name: str


class ClusterMatch(BaseModel):
    """How a name resolved: ``cluster_id`` when exactly one cluster has that name."""

    name: str
    cluster_id: str | None = None
    matches: list[Cluster] = []
    known: list[str] = []  # every cluster name seen (to help the user answer)
    error: str | None = None  # the list could not be read

    @property
    def ambiguous(self) -> bool:
        return len(self.matches) > 1


def list_clusters(source: Any) -> ToolResult:
    """``list_clusters`` through ``source`` when it reads the ``clusters`` capability
    (:class:`tools.runai.source.ClusterSource`); otherwise an ERROR result saying so, without a read."""
    if not isinstance(source, ClusterSource):
        return ToolResult(tool="list_clusters", status=ToolStatus.ERROR,
                          error=ToolFailure(ErrorKind.OTHER, "this Run:ai source cannot list clusters").to_error())
    return source.list_clusters()


def resolve_cluster_name(source: Any, name: str) -> ClusterMatch:
    """Exact (case-sensitive) name → id; a name that is not a valid cluster name raises ``InvalidInput``."""
    check_name(name, "cluster name")
    res = list_clusters(source)
    if not res.ok and res.error is not None and res.error.kind in (ErrorKind.UNREACHABLE, ErrorKind.TIMEOUT):
        raise ApiUnavailable(f"cannot read the Run:ai cluster list: {res.error.message}")
    if not res.ok:
        return ClusterMatch(name=name, error=res.error.message if res.error else "the cluster list could not be read")
    clusters: list[Cluster] = res.data or []
    matches = [c for c in clusters if c.name == name]
    return ClusterMatch(name=name, cluster_id=matches[0].uuid if len(matches) == 1 else None, matches=matches,
                        known=sorted({c.name for c in clusters}))
