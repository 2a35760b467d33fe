"""The ``projects`` capability over REST (:class:`tools.runai.source.ProjectSource`).

* ``find_project`` — ``GET /api/v1/org-unit/projects?filterBy=name==<name>&filterBy=clusterId==<uuid>``
  (``ProjectsFilterBy``: ``name``, ``clusterId`` are filter fields; ``limit`` 1–500), following ``next``; only an
  exact name and cluster match is kept (a server that ignores a filter cannot widen the answer).
* ``list_node_pools`` — ``GET /api/v1/node-pools?filterBy=clusterId==<uuid>`` (``NodepoolSortFilterFields``:
  ``clusterId``), every page the server names; only the cluster's pools are kept.

Paths, fields and example bodies: ``docs/reference/runai-projects-nodepools.md``.
"""
from __future__ import annotations

from typing import Any

from workload_diagnose.tools.base import Invocation, ToolResult
from workload_diagnose.tools.runai.ids import check_id, check_name
from workload_diagnose.tools.runai.quota import NodePool, Project, items_of, parse_node_pool, parse_project
from workload_diagnose.tools.runai.results import Absent

__all__ = ["find_project", "list_node_pools", "PROJECTS_PATH", "NODE_POOLS_PATH"]

PROJECTS_PATH = "/api/v1/org-unit/projects"
NODE_POOLS_PATH = "/api/v1/node-pools"
LIMIT = 500  # the OpenAPI maximum: one page holds any real answer
MAX_PAGES = 5


def _pages(get, path: str, filters: list[str], key: str, invs: list[Invocation], notes: list[str]) -> list:
    items: list = []
    offset, seen = 0, {0}
    for _ in range(MAX_PAGES):
        params = [("filterBy", f) for f in filters] + [("offset", str(offset)), ("limit", str(LIMIT))]
        body, inv = get(path, params)
        invs.append(inv)
        page = items_of(body, (key,), f"GET {path}")
        items += page
        nxt = body.get("next") if isinstance(body, dict) else None
        if nxt is None or not page:
            return items
        if not isinstance(nxt, int) or isinstance(nxt, bool) or nxt <= offset or nxt in seen:
            notes.append(f"{key} pagination stopped: the server returned next={nxt!r} after offset {offset}")
            return items
        seen.add(nxt)
        offset = nxt
    notes.append(f"{key} pagination stopped after {MAX_PAGES} pages: further {key} were not read")
    return items


def find_project(client: Any, *, cluster_id: str, name: str) -> ToolResult:
    check_id(cluster_id, "cluster id")
    check_name(name, "project")

    def fn(get, invs: list[Invocation], notes: list[str]) -> Project:
        raw = _pages(get, PROJECTS_PATH, [f"name=={name}", f"clusterId=={cluster_id}"], "projects", invs, notes)
        found = [p for p in (parse_project(r, notes) for r in raw) if p is not None and p.name == name
                 and (p.cluster_id or "").lower() == cluster_id.lower()]
        if len(raw) > len(found):
            notes.append(f"{len(raw) - len(found)} listed project(s) were not project {name!r} on cluster "
                         f"{cluster_id} and were left out")
        if not found:
            raise Absent(invs[-1] if invs else None, f"no project named {name!r} on cluster {cluster_id}")
        if len(found) > 1:
            notes.append(f"{len(found)} projects are named {name!r} on cluster {cluster_id}: the first listed "
                         f"(id {found[0].id}) was used")
        return found[0]

    return client._run("find_project", {"name": name, "clusterId": cluster_id}, fn)


def list_node_pools(client: Any, *, cluster_id: str) -> ToolResult:
    check_id(cluster_id, "cluster id")

    def fn(get, invs: list[Invocation], notes: list[str]) -> list[NodePool]:
        raw = _pages(get, NODE_POOLS_PATH, [f"clusterId=={cluster_id}"], "nodepools", invs, notes)
        pools = [p for p in (parse_node_pool(r, notes) for r in raw) if p is not None]
        mine = [p for p in pools if (p.cluster_id or "").lower() == cluster_id.lower()]
        if len(pools) > len(mine):
            notes.append(f"{len(pools) - len(mine)} listed node pool(s) of another cluster were left out")
        return mine

    return client._run("list_node_pools", {"clusterId": cluster_id}, fn)
