"""What a user reads never speaks of the skill's "Option A / Option B": the question a `needs_input` result asks
(`failed --json`'s `question`, the same for `preempted` and `pending`), the HTTP 422 texts and the OpenAPI
description of every body, and the MCP tools' descriptions and input schemas. It says it in plain words: the
workload id, or its name and project. (Every command's --help: tests/test_cli_conventions.py.)"""
from __future__ import annotations

import asyncio
import json

import pytest
from fastapi.testclient import TestClient

from workload_diagnose.agent.model.request import DiagnosisRequest
from workload_diagnose.agent.procedures.kit.stops import missing_input

JARGON = ("Option A", "Option B", "option a", "option b")


def _plain(text: str) -> bool:
    return not any(j in text for j in JARGON)


@pytest.mark.parametrize("fields,needle", [
    ({}, "the workload id (workload_id), or its name and project (workload_name + project)"),
    ({"cluster_id": "c1"}, "the workload id (workload_id), or its name and project"),
    ({"cluster_id": "c1", "workload_name": "train-a"}, "project"),
    ({"cluster_id": "c1", "project": "ml-team"}, "workload_name"),
])
def test_the_question_of_a_missing_identifier_is_plain(fields, needle):
    stop = missing_input(DiagnosisRequest.model_construct(**{"cluster_id": None, "workload_id": None,
                                                              "workload_name": None, "project": None, **fields}))
    assert stop is not None and stop.question.startswith("Which workload should I diagnose?")
    assert needle in stop.question and _plain(stop.question), stop.question


@pytest.fixture(scope="module")
def app(monkeypatch_module):
    from workload_diagnose.agent.service.app import from_env

    return from_env()


@pytest.fixture(scope="module")
def monkeypatch_module():
    mp = pytest.MonkeyPatch()
    for k, v in {"RUNAI_BASE_URL": "http://127.0.0.1:9", "RUNAI_CLIENT_ID": "x", "RUNAI_CLIENT_SECRET": "y",
                 "WD_KUBE": "off"}.items():
        mp.setenv(k, v)
    yield mp
    mp.undo()


def test_the_http_422_and_the_openapi_description_are_plain(app):
    assert _plain(json.dumps(app.openapi()))
    with TestClient(app, base_url="http://127.0.0.1") as client:
        for path in ("/v1/diagnoses", "/v1/preemptions", "/v1/pending"):
            r = client.post(path, json={"cluster_id": "3f2c7a1e-8d4b-4c1e-9a57-2b6e0d9c4f11"})
            assert r.status_code == 422, (path, r.status_code, r.text)
            assert _plain(r.text) and "the workload id (workload_id), or its name and project" in r.text, r.text


def test_the_mcp_tools_are_described_in_plain_words(monkeypatch_module):
    from workload_diagnose.agent.service.mcp import build_server, instructions

    tools = asyncio.run(build_server().list_tools())
    assert tools and _plain(instructions())
    for tool in tools:
        text = json.dumps(tool.model_dump(mode="json"))
        assert _plain(text), tool.name
    described = [t for t in tools if "workload_name" in json.dumps(t.input_schema)]
    assert described and all("its name and project" in (t.description or "") or "name and project" in
                             json.dumps(t.input_schema) for t in described)
