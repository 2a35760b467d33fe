"""The simulator's nodes and node-pool GPU metrics validate against Run:ai's OpenAPI definitions of
``GET /api/v1/nodes`` and ``GET /api/v1/clusters/{clusterUuid}/nodepools/{nodepoolName}/metrics``
(docs/reference/runai-nodes-capacity.md). The schema below is transcribed from that reference (the public OpenAPI
document's required fields and types for the parts this project serves and reads)."""
from __future__ import annotations

import json

import httpx
import pytest
from openapi_core import OpenAPI
from openapi_core.testing import MockRequest, MockResponse

from workload_diagnose.evals.scenarios import all_scenarios
from workload_diagnose.evals.simulator import running_simulator
from workload_diagnose.evals.simulator_nodes import METRIC_TYPES

CL = "3f2c7a1e-8d4b-4c1e-9a57-2b6e0d9c4f11"
_TS = {"type": "string", "format": "date-time"}
_NODE = {
    "type": "object", "required": ["status", "nodePool", "createdAt", "name", "clusterUuid", "updatedAt"],
    "properties": {
        "status": {"type": "string", "enum": ["Ready", "NotReady", "Unknown"]},
        "conditions": {"type": "array", "items": {"type": "object", "required": ["type", "reason"], "properties": {
            "type": {"type": "string"}, "reason": {"type": "string"}, "message": {"type": "string"}}}},
        "taints": {"type": "array", "items": {"type": "object", "required": ["key", "effect"], "properties": {
            "key": {"type": "string"}, "value": {"type": "string"},
            "effect": {"type": "string", "enum": ["NoSchedule", "PreferNoSchedule", "NoExecute"]}}}},
        "nodePool": {"type": "string"}, "createdAt": _TS, "name": {"type": "string"},
        "gpuInfo": {"type": "object", "nullable": True, "required": ["gpuType", "gpuCount"], "properties": {
            "gpuType": {"type": "string"}, "gpuCount": {"type": "integer"}}},
        "id": {"type": "string", "format": "uuid"}, "clusterUuid": {"type": "string", "format": "uuid"},
        "updatedAt": _TS}}
_MEASUREMENTS = {
    "type": "object", "required": ["measurements"], "properties": {"measurements": {"type": "array", "items": {
        "type": "object", "required": ["type", "values"], "properties": {
            "type": {"type": "string"},
            "labels": {"type": "object", "nullable": True, "additionalProperties": {"type": "string"}},
            "values": {"type": "array", "nullable": True, "items": {
                "type": "object", "required": ["value", "timestamp"], "properties": {
                    "value": {"type": "string"}, "timestamp": {**_TS, "nullable": True}}}}}}}}}
_ERROR = {"content": {"application/json": {"schema": {"type": "object", "required": ["code", "message"]}}},
          "description": "error"}
SPEC = {
    "openapi": "3.0.3", "info": {"title": "Run:ai nodes (transcribed)", "version": "1"},
    "paths": {
        "/api/v1/nodes": {"get": {"parameters": [
            {"name": "filterBy", "in": "query", "explode": True,
             "schema": {"type": "array", "items": {"type": "string", "pattern": "^(name|status|nodePool|gpuType|"
                                                   "nvLinkDomainUid|nvLinkCliqueId|clusterUuid)(==|!=|<=|>=|=@|!@|"
                                                   "=\\^|=\\$).+$"}}},
            {"name": "offset", "in": "query", "schema": {"type": "integer"}},
            {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 500}}],
            "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {
                "type": "object", "required": ["nodes"],
                "properties": {"nodes": {"type": "array", "items": _NODE}}}}}}, "400": _ERROR}}},
        "/api/v1/clusters/{clusterUuid}/nodepools/{nodepoolName}/metrics": {"get": {"parameters": [
            {"name": "clusterUuid", "in": "path", "required": True, "schema": {"type": "string", "format": "uuid"}},
            {"name": "nodepoolName", "in": "path", "required": True, "schema": {"type": "string"}},
            {"name": "start", "in": "query", "required": True, "schema": _TS},
            {"name": "end", "in": "query", "required": True, "schema": _TS},
            {"name": "numberOfSamples", "in": "query", "schema": {"type": "integer", "minimum": 0, "maximum": 1000}},
            {"name": "metricType", "in": "query", "required": True, "explode": False, "style": "form",
             "schema": {"type": "array", "items": {"type": "string", "enum": list(METRIC_TYPES)}}}],
            "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": _MEASUREMENTS}}},
                          "400": _ERROR, "404": _ERROR}}}}}


@pytest.fixture(scope="module")
def openapi():
    return OpenAPI.from_dict(SPEC)


def _check(openapi, world: dict, cluster_id: str, pools: list[str]) -> int:
    checked = 0
    with running_simulator(world) as sim, httpx.Client(base_url=sim.url) as c:
        tok = c.post("/api/v1/token", json={"grantType": "client_credentials", "clientID": sim.client_id,
                                            "clientSecret": sim.client_secret}).json()["accessToken"]
        h = {"Authorization": f"Bearer {tok}"}
        calls = []
        for p in pools:
            calls.append(("/api/v1/nodes", f"/api/v1/nodes", [("filterBy", f"clusterUuid=={cluster_id}"),
                                                              ("filterBy", f"nodePool=={p}"), ("offset", "0"),
                                                              ("limit", "500")]))
            calls.append(("/api/v1/clusters/{clusterUuid}/nodepools/{nodepoolName}/metrics",
                          f"/api/v1/clusters/{cluster_id}/nodepools/{p}/metrics",
                          [("metricType", "TOTAL_GPU,ALLOCATED_GPU,UNALLOCATED_GPU"), ("start", "2026-11-20T11:50:00Z"),
                           ("end", "2026-11-20T12:00:00Z"), ("numberOfSamples", "5")]))
        for template, path, query in calls:
            r = c.get(path, params=query, headers=h)
            assert r.status_code in (200, 404), r.text
            req = MockRequest("https://app.run.ai", "get", path, args=dict(query))
            openapi.validate_response(req, MockResponse(r.content, status_code=r.status_code,
                                                        content_type="application/json"))
            checked += 1
    return checked


def test_compact_nodes_and_pool_gpus_are_served_as_the_spec_defines(openapi):
    world = {"workloads": [], "nodepools": [{"name": "a100", "clusterId": CL}],
             "nodes": [{"name": "gpu-a100-1", "nodePool": "a100", "clusterUuid": CL,
                        "gpuInfo": {"gpuType": "NVIDIA-A100-SXM4-80GB", "gpuCount": 8},
                        "taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]},
                       {"name": "cpu-1", "nodePool": "default", "clusterUuid": CL, "gpuInfo": None}],
             "nodepool_gpus": {"a100": {"TOTAL_GPU": "8", "ALLOCATED_GPU": "6", "UNALLOCATED_GPU": "2"}}}
    assert _check(openapi, world, CL, ["a100", "default"]) == 4


def test_a_node_missing_a_required_field_does_not_validate(openapi):
    world = {"workloads": [], "nodes": [{"name": "n1", "nodePool": "a100", "clusterUuid": CL, "status": "Broken"}]}
    with pytest.raises(Exception, match="not valid|does not match|is not one of|is not a"):
        _check(openapi, world, CL, ["a100"])


def _serves_nodes(sc) -> bool:
    world = json.loads(sc.world.read_text())
    return "nodes" in world or "nodepool_gpus" in world


@pytest.mark.parametrize("sc", [s for s in all_scenarios() if _serves_nodes(s)], ids=lambda s: s.id)
def test_every_scenario_world_serves_valid_nodes(openapi, sc):
    world = json.loads(sc.world.read_text())
    world.pop("faults", None)
    pools = sorted({n.get("nodePool") for n in world.get("nodes") or [] if isinstance(n.get("nodePool"), str)}
                   | set(world.get("nodepool_gpus") or {})
                   | {p.get("name") for p in world.get("nodepools") or [] if isinstance(p.get("name"), str)})
    assert _check(openapi, world, sc.args.cluster_id or CL, pools) >= 2
