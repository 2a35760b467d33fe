"""``list_clusters``: the Run:ai clusters the service account can see, to turn a cluster NAME the user gave into
its id. Read-only, through :class:`tools.runai.rest.RunaiClient`'s guarded GET (retries, one token refresh,
every body normalised, redacted and injection-scanned before it is parsed).

``GET /api/v1/clusters`` answers a JSON array of clusters ``{uuid, tenantId, name, createdAt, domain, version,
status, lastLiveness, ...}`` (Run:ai REST API, "Get a list of clusters"; ``shared/reference/runai-api.md`` does
not list it). Only an exact name match resolves a name; none or several is a question back to the user, never
a guess.
"""
from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from tools.base import ErrorKind, Invocation, ToolFailure, ToolResult, ToolStatus
from tools.runai.errors import ApiUnavailable
from tools.runai.ids import check_name

__all__ = ["Cluster", "ClusterMatch", "list_clusters", "resolve_cluster_name"]

PATH = "/api/v1/clusters"


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
    """``list_clusters`` through ``source``: its own ``list_clusters()`` when it has one (another RunaiSource),
    else the REST client's guarded GET."""
    own = getattr(type(source), "list_clusters", None)
    if own is not None:
        return source.list_clusters()
    run = getattr(source, "_run", None)
    if run is None:
        return ToolResult(tool="list_clusters", status=ToolStatus.ERROR,
                          error=ToolFailure(ErrorKind.OTHER, "this Run:ai source cannot list clusters").to_error())

    def fn(get, invs: list[Invocation], notes: list[str]) -> list[Cluster]:
        body, inv = get(PATH)
        invs.append(inv)
        if isinstance(body, dict) and isinstance(body.get("clusters"), list):
            body = body["clusters"]  # tolerate a wrapped list
        if not isinstance(body, list):
            raise ToolFailure(ErrorKind.MALFORMED, f"GET {PATH}: not a list of clusters")
        out = []
        for c in body:
            if isinstance(c, dict) and isinstance(c.get("uuid"), str) and isinstance(c.get("name"), str):
                out.append(Cluster(uuid=c["uuid"].lower(), name=c["name"]))
        return out

    return run("list_clusters", {}, fn)


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
