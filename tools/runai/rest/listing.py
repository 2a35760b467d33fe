"""The ``fleet`` listing over REST: every workload of a cluster in one phase, through ``GET /api/v1/workloads``
with the filters, sort and pages done by the server (``shared/reference/runai-api.md``, OpenAPI
``WorkloadsFilter``): ``filterBy=clusterId==…&filterBy=phase==…`` (+ ``projectName==`` or ``departmentName==``,
+ ``phaseUpdatedAt>=since`` / ``<=until``), ``sortBy=phaseUpdatedAt&sortOrder=desc``, ``limit`` up to 500,
following ``next``. The server's filter is authoritative, yet only items that match it exactly are kept (a server
that ignores a filter cannot widen the triage); what was dropped or not read is a note.

The ``clusters`` listing: ``GET /api/v1/clusters`` answers a JSON array of clusters ``{uuid, tenantId, name,
createdAt, domain, version, status, lastLiveness, ...}`` (Run:ai REST API, "Get a list of clusters";
``shared/reference/runai-api.md`` does not list it).
"""
from __future__ import annotations

from datetime import datetime
from typing import Any, Callable, Iterator

from pydantic import ValidationError

from workload_diagnose.tools.base import ErrorKind, Invocation, ToolFailure, ToolResult
from workload_diagnose.tools.runai.ids import check_id, check_name
from workload_diagnose.tools.runai.models import Workload
from workload_diagnose.tools.timeutil import iso, parse_time

__all__ = ["list_phase", "list_clusters", "workload_pages", "MAX_LIMIT"]

CLUSTERS = "/api/v1/clusters"

MAX_LIMIT = 500  # the OpenAPI maximum of ``limit``: the fewest list calls per workload


def workload_pages(get: Callable, filters: list[str], limit: int, max_pages: int, invs: list[Invocation],
                   notes: list[str], *, what: str = "pagination", exhausted: str = "") -> Iterator[list]:
    """The raw ``workloads`` of each page of ``GET /api/v1/workloads`` with ``filters``, newest phase update first,
    following ``next`` for at most ``max_pages`` pages. A ``next`` that does not move forward ends the walk with a
    note (``what`` names the walk in it), as does the last page allowed (``exhausted`` adds why that matters)."""
    offset = 0
    seen: set[int] = set()
    for _ in range(max_pages):
        params = [("filterBy", f) for f in filters] + [("sortBy", "phaseUpdatedAt"), ("sortOrder", "desc"),
                                                       ("offset", str(offset)), ("limit", str(limit))]
        body, inv = get("/api/v1/workloads", params)
        invs.append(inv)
        if not isinstance(body, dict) or not isinstance(body.get("workloads"), list):
            raise ToolFailure(ErrorKind.MALFORMED, "GET /api/v1/workloads: no 'workloads' list")
        yield body["workloads"]
        nxt = body.get("next")
        if nxt is None or not body["workloads"]:
            return
        if not isinstance(nxt, int) or nxt <= offset or nxt in seen:
            notes.append(f"{what} stopped: the server returned next={nxt!r} after offset {offset}")
            return
        seen.add(nxt)
        offset = nxt
    notes.append(f"{what} stopped after {max_pages} pages{exhausted}")


def list_phase(client: Any, *, cluster_id: str, phase: str | None, project: str | None = None,
               department: str | None = None, since: datetime | None = None, until: datetime | None = None,
               max_pages: int = 40, limit: int = MAX_LIMIT) -> ToolResult:
    """``list_workloads`` for a whole phase (every phase when ``phase`` is None: a project's or department's
    workloads): ``data`` is ``list[Workload]`` newest phase update first."""
    check_id(cluster_id, "cluster id")
    if phase is not None:
        check_name(phase, "phase")
    if project is not None:
        check_name(project, "project")
    if department is not None:
        check_name(department, "department")
    filters = [f"clusterId=={cluster_id}"] + ([f"phase=={phase}"] if phase is not None else [])
    if project is not None:
        filters.append(f"projectName=={project}")
    if department is not None:
        filters.append(f"departmentName=={department}")
    if since is not None:
        filters.append(f"phaseUpdatedAt>={iso(since)}")
    if until is not None:
        filters.append(f"phaseUpdatedAt<={iso(until)}")
    limit = max(1, min(limit, MAX_LIMIT))

    def matches(w: Workload) -> bool:
        extra = w.model_extra or {}
        t = parse_time(w.phaseUpdatedAt)
        return ((w.clusterId or "").lower() == cluster_id.lower() and (phase is None or (w.phase or "") == phase)
                and (project is None or w.projectName == project)
                and (department is None or extra.get("departmentName") == department)
                and (since is None or (t is not None and t >= since))
                and (until is None or (t is not None and t <= until)))

    def fn(get, invs: list[Invocation], notes: list[str]) -> list[Workload]:
        out: list[Workload] = []
        ids: set[str] = set()
        dropped, bad = 0, 0
        what = f"pagination of phase {phase}" if phase is not None else "pagination"
        for page in workload_pages(get, filters, limit, max_pages, invs, notes, what=what,
                                   exhausted=f" of {limit}: older workloads in the window were not listed"):
            for raw in page:
                try:
                    w = Workload.model_validate(raw)
                except ValidationError:
                    bad += 1
                    continue
                if w.id in ids:
                    continue  # a page served twice, or a workload that moved between pages: listed once
                if not matches(w):
                    dropped += 1
                    continue
                ids.add(w.id)
                out.append(w)
        if dropped:
            notes.append(f"{dropped} listed workload(s) did not match the requested filters and were left out")
        if bad:
            notes.append(f"{bad} listed item(s) were not workloads (unexpected shape) and were left out")
        return out

    args: dict[str, Any] = {"clusterId": cluster_id}
    for k, v in (("phase", phase), ("project", project), ("department", department),
                 ("since", iso(since) if since else None), ("until", iso(until) if until else None)):
        if v is not None:
            args[k] = v
    return client._run("list_workloads", args, fn)



def list_clusters(client: Any) -> ToolResult:
    """``list_clusters`` (``data: list[Cluster]``) through the client's guarded GET."""
    from workload_diagnose.tools.runai.clusters import Cluster

    def fn(get, invs: list[Invocation], notes: list[str]) -> list[Cluster]:
        body, inv = get(CLUSTERS)
        invs.append(inv)
        if isinstance(body, dict) and isinstance(body.get("clusters"), list):
            body = body["clusters"]  # tolerate a wrapped list
        if not isinstance(body, list):
            raise ToolFailure(ErrorKind.MALFORMED, f"GET {CLUSTERS}: not a list of clusters")
        out = []
        for c in body:
            if isinstance(c, dict) and isinstance(c.get("uuid"), str) and isinstance(c.get("name"), str):
                out.append(Cluster(uuid=c["uuid"].lower(), name=c["name"]))
        return out

    return client._run("list_clusters", {}, fn)
