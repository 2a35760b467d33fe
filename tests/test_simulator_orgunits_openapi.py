"""The simulator's projects and node pools validate against Run:ai's OpenAPI definitions of
``GET /api/v1/org-unit/projects`` and ``GET /api/v1/node-pools`` (docs/reference/runai-projects-nodepools.md).

The schema below is transcribed from that reference (the public OpenAPI document's required fields and types for
the parts of Project and Nodepool this project serves and reads); when ``shared/reference/
runai-openapi-orgunits.json`` (an extract of the public document) is present, it is used instead.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import httpx
import pytest
from openapi_core import OpenAPI
from openapi_core.testing import MockRequest, MockResponse

from workload_diagnose.evals.scenarios import all_scenarios
from workload_diagnose.evals.simulator import running_simulator

CL = "3f2c7a1e-8d4b-4c1e-9a57-2b6e0d9c4f11"
_NUM = {"type": "number", "format": "double", "nullable": True}
_STATUS = {"type": "object", "properties": {"gpu": _NUM, "cpu": _NUM, "memory": _NUM}}
_RES = {"type": "object", "properties": {"deserved": _NUM, "limit": _NUM, "overQuotaWeight": _NUM}}
_TS = {"type": "string", "format": "date-time"}
_PROJECT = {
    "type": "object",
    "required": ["id", "name", "parentId", "createdAt", "updatedAt", "totalResources", "effective", "status",
                 "description", "enforceRunaiScheduler", "clusterId", "resources"],
    "properties": {
        "id": {"type": "string"}, "name": {"type": "string"}, "clusterId": {"type": "string", "format": "uuid"},
        "parentId": {"type": "string"}, "createdAt": _TS, "updatedAt": _TS, "description": {"type": "string"},
        "enforceRunaiScheduler": {"type": "boolean"}, "totalResources": {"type": "object"},
        "effective": {"type": "object"},
        "parent": {"type": "object", "nullable": True, "required": ["id", "name"],
                   "properties": {"id": {"type": "string", "format": "uuid"}, "name": {"type": "string"}}},
        "status": {"type": "object", "properties": {
            "phase": {"type": "string", "enum": ["Creating", "Updating", "Deleting", "Deleted", "Initializing",
                                                 "Ready", "NotReady", "Unknown"]},
            "nodePoolQuotaStatuses": {"type": "array", "items": {
                "type": "object", "required": ["nodePoolName", "nodePoolId"],
                "properties": {"nodePoolName": {"type": "string"}, "nodePoolId": {"type": "string"},
                               "allocated": _STATUS, "allocatedNonPreemptible": _STATUS, "requested": _STATUS}}},
            "quotaStatus": {"type": "object", "properties": {"allocated": _STATUS, "allocatedNonPreemptible": _STATUS,
                                                             "requested": _STATUS}}}},
        "resources": {"type": "array", "items": {
            "type": "object", "required": ["gpu"],
            "properties": {"nodePool": {"type": "object", "nullable": True, "required": ["id"],
                                        "properties": {"id": {"type": "string"}, "name": {"type": "string"}}},
                           "gpu": {"type": "object", "required": ["deserved"], "properties": {
                               "deserved": {"type": "number"}, "limit": _NUM, "overQuotaWeight": _NUM}},
                           "cpu": {**_RES, "nullable": True}, "memory": {**_RES, "nullable": True},
                           "priority": {"type": "string", "nullable": True}}}}}}
_NODEPOOL = {
    "type": "object",
    "required": ["name", "labelKey", "labelValue", "clusterId", "id", "tenantId", "clusterName", "createdBy",
                 "createdAt", "updatedBy", "updatedAt", "isDefault"],
    "properties": {"name": {"type": "string", "minLength": 1}, "labelKey": {"type": "string", "minLength": 1},
                   "labelValue": {"type": "string", "minLength": 1},
                   "clusterId": {"type": "string", "format": "uuid"}, "id": {"type": "string"},
                   "tenantId": {"type": "integer"}, "clusterName": {"type": "string"},
                   "createdBy": {"type": "string"}, "createdAt": _TS, "updatedBy": {"type": "string"},
                   "updatedAt": _TS, "isDefault": {"type": "boolean"},
                   "phase": {"type": "string", "enum": ["Creating", "Updating", "Deleting", "Empty", "Unschedulable",
                                                        "Ready", "Deleted"]},
                   "status": {"type": "object", "properties": {"nodes": {"type": "array",
                                                                         "items": {"type": "string"}}}}}}
_FILTER = [{"name": "filterBy", "in": "query", "required": False, "explode": True,
            "schema": {"type": "array", "items": {"type": "string"}}},
           {"name": "offset", "in": "query", "schema": {"type": "integer"}},
           {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 500}}]
_ERROR = {"content": {"application/json": {"schema": {"type": "object", "required": ["code", "message"]}}},
          "description": "error"}
TRANSCRIBED = {
    "openapi": "3.0.3", "info": {"title": "Run:ai org units (transcribed)", "version": "1"},
    "paths": {
        "/api/v1/org-unit/projects": {"get": {"parameters": _FILTER, "responses": {
            "200": {"description": "ok", "content": {"application/json": {"schema": {
                "type": "object", "required": ["projects"],
                "properties": {"projects": {"type": "array", "items": _PROJECT}, "next": {"type": "integer"}}}}}},
            "400": _ERROR}}},
        "/api/v1/node-pools": {"get": {"parameters": _FILTER, "responses": {
            "200": {"description": "ok", "content": {"application/json": {"schema": {
                "type": "object", "properties": {"nodepools": {"type": "array", "items": _NODEPOOL}}}}}},
            "400": _ERROR}}}}}


@pytest.fixture(scope="module")
def openapi():
    env = os.environ.get("WD_SHARED_DIR")
    root = Path(env) if env else Path(__file__).resolve().parents[1].parent / "shared"
    extract = root / "reference" / "runai-openapi-orgunits.json"
    return OpenAPI.from_dict(json.loads(extract.read_text()) if extract.is_file() else TRANSCRIBED)


def _check(openapi, world: dict, cluster_id: str, names: list[str]) -> int:
    checked = 0
    with running_simulator(world) as sim, httpx.Client(base_url=sim.url) as c:
        tok = c.post("/api/v1/token", json={"grantType": "client_credentials", "clientID": sim.client_id,
                                            "clientSecret": sim.client_secret}).json()["accessToken"]
        h = {"Authorization": f"Bearer {tok}"}
        calls = [("/api/v1/node-pools", [("filterBy", f"clusterId=={cluster_id}"), ("limit", "500")])]
        calls += [("/api/v1/org-unit/projects", [("filterBy", f"name=={n}"), ("filterBy", f"clusterId=={cluster_id}"),
                                                 ("offset", "0"), ("limit", "500")]) for n in names]
        calls.append(("/api/v1/org-unit/projects", [("limit", "1")]))  # a page with next
        for path, query in calls:
            r = c.get(path, params=query, headers=h)
            req = MockRequest("https://app.run.ai", "get", path, args=dict(query))
            openapi.validate_response(req, MockResponse(r.content, status_code=r.status_code,
                                                        content_type="application/json"))
            checked += 1
    return checked


def test_compact_projects_and_node_pools_are_served_as_the_spec_defines(openapi):
    world = {"workloads": [], "projects": [
        {"name": "ml-team", "clusterId": CL, "resources": [{"nodePool": {"id": "3", "name": "a100"},
                                                            "gpu": {"deserved": 8, "limit": -1, "overQuotaWeight": 2}}],
         "status": {"phase": "Ready", "nodePoolQuotaStatuses": [{"nodePoolName": "a100", "nodePoolId": "3",
                                                                 "allocated": {"gpu": 12, "cpu": 0, "memory": 0}}]}},
        {"name": "other", "clusterId": CL}], "nodepools": [{"name": "a100", "clusterId": CL}]}
    assert _check(openapi, world, CL, ["ml-team", "other", "missing"]) == 5


def test_a_project_missing_a_required_field_does_not_validate(openapi):
    world = {"workloads": [], "projects": [{"name": "p", "clusterId": CL, "resources": [{"nodePool": {"id": "1"}}]}]}
    with pytest.raises(Exception, match="not valid|does not match|is not a|required"):
        _check(openapi, world, CL, ["p"])  # resources[0] has no gpu: the schema requires it


@pytest.mark.parametrize("sc", [s for s in all_scenarios() if '"projects"' in s.world.read_text()
                                or '"nodepools"' in s.world.read_text()], ids=lambda s: s.id)
def test_every_scenario_world_serves_valid_projects(openapi, sc):
    world = json.loads(sc.world.read_text())
    world.pop("faults", None)
    names = sorted({p.get("name") for p in world.get("projects") or [] if isinstance(p.get("name"), str)})
    assert _check(openapi, world, sc.args.cluster_id or CL, names) >= 2
