"""The simulator's projects and node pools (``GET /api/v1/org-unit/projects``, ``GET /api/v1/node-pools``), shaped
as Run:ai's OpenAPI document defines them (``docs/reference/runai-projects-nodepools.md``).

A world may hold::

    "projects":  [Project, ...]   # compact: {"name", "clusterId", "resources": [...], "status": {...}};
                                  # missing required fields get neutral values (id from the name)
    "nodepools": [Nodepool, ...]  # compact: {"name", "clusterId", ...}

A world without ``projects`` serves an empty list (``find_project`` is then ABSENT), as a control plane that does
not know the project would.
"""
from __future__ import annotations

import copy
import re
import uuid
from typing import Any

_FILTER = re.compile(r"^(?P<field>[A-Za-z]+)(?P<op>==|!=)(?P<value>.*)$")
TS = "2026-01-01T00:00:00Z"


def complete_project(p: dict) -> dict:
    """Fill the OpenAPI-required Project fields a compact world leaves out."""
    p = copy.deepcopy(p)
    name = p.get("name") or "default"
    defaults = {"id": _stable_id(name), "name": name,
                "parentId": "d0f6c9a4-5b1e-4c2a-9f3e-7a8b9c0d1e2f", "createdAt": TS, "updatedAt": TS,
                "totalResources": {}, "effective": {}, "status": {}, "description": "",
                "enforceRunaiScheduler": True, "resources": []}
    for k, v in defaults.items():
        p.setdefault(k, v)
    p.setdefault("parent", {"id": p["parentId"], "name": "default"})
    return p


def _stable_id(name: str) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, "project/" + name).int % 100000)


def complete_nodepool(n: dict) -> dict:
    n = copy.deepcopy(n)
    name = n.get("name") or "default"
    defaults = {"id": str(uuid.uuid5(uuid.NAMESPACE_URL, "nodepool/" + name).int % 100000), "name": name,
                "labelKey": "run.ai/node-pool", "labelValue": name, "tenantId": 1001, "clusterName": "cluster",
                "createdBy": "admin@example.com", "createdAt": TS, "updatedBy": "admin@example.com",
                "updatedAt": TS, "isDefault": name == "default", "phase": "Ready"}
    for k, v in defaults.items():
        n.setdefault(k, v)
    return n


def _filtered(items: list[dict], filters: list[str]) -> list[dict] | str:
    for f in filters:
        m = _FILTER.match(f)
        if not m:
            return f"invalid filterBy {f!r}"
        field, op, value = m.group("field"), m.group("op"), m.group("value")
        items = [x for x in items if (str(x.get(field)) == value) == (op == "==")]
    return items


def _page(items: list[dict], key: str, q: dict[str, list[str]]) -> dict[str, Any]:
    try:
        offset = int(q.get("offset", ["0"])[0])
        limit = max(1, min(int(q.get("limit", ["50"])[0]), 500))
    except ValueError:
        offset, limit = 0, 50
    out: dict[str, Any] = {key: items[offset: offset + limit]}
    if offset + limit < len(items):
        out["next"] = offset + limit
    return out


def serve(path: str, q: dict[str, list[str]], world: dict) -> tuple[int, Any] | None:
    """(status, body) for an org-unit or node-pool path, None for any other path."""
    if path == "/api/v1/org-unit/projects":
        items = _filtered([complete_project(p) for p in world.get("projects") or []], q.get("filterBy", []))
        if isinstance(items, str):
            return 400, {"code": 400, "message": items}
        return 200, _page(items, "projects", q)
    if path == "/api/v1/node-pools":
        items = _filtered([complete_nodepool(n) for n in world.get("nodepools") or []], q.get("filterBy", []))
        if isinstance(items, str):
            return 400, {"code": 400, "message": items}
        return 200, _page(items, "nodepools", q)
    return None
