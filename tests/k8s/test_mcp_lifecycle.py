"""The MCP tool ``lifecycle_status`` (official SDK client, in process) reads the real kube-apiserver through the
read-only lifecycle reader and answers what ``workload-diagnose lifecycle --json`` answers."""
from __future__ import annotations

import anyio
import pytest

pytestmark = pytest.mark.k8s


def test_lifecycle_status_tool_over_the_real_apiserver(kube_apiserver, admin_core, monkeypatch):
    from kubernetes import client
    from mcp.client.client import Client

    from workload_diagnose.agent.procedures.lifecycle.api import LifecycleRequest, refresh
    from workload_diagnose.agent.service.config import ServiceConfig
    from workload_diagnose.agent.service.mcp import build_server
    from workload_diagnose.tools.kube.lifecycle import LifecycleReader

    admin_core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name="mcp-lifecycle")))
    monkeypatch.setenv("KUBECONFIG", str(kube_apiserver.kubeconfig))
    server = build_server(ServiceConfig(kube="off"))

    async def call():
        async with Client(server) as c:
            return await c.call_tool("lifecycle_status", {"name": "no-such-run", "namespace": "mcp-lifecycle"})

    res = anyio.run(call)
    assert not res.is_error, res.content
    got = res.structured_content
    reader = LifecycleReader.from_kubeconfig(str(kube_apiserver.kubeconfig), None)
    try:
        want = refresh(LifecycleRequest(name="no-such-run", namespace="mcp-lifecycle"), reader).model_dump(mode="json")
    finally:
        reader.close()
    assert got["first_incomplete"] == want["first_incomplete"] == "Submitted"
    assert got["phases"] == want["phases"] and got["tool_calls"] == want["tool_calls"] and got["tool_calls"]
    assert res.content[0].text == got["report"]
