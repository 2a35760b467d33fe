"""The MCP server through the official SDK's client, over stdio and over streamable HTTP (a real subprocess
each): the tools listed with their read-only annotations, no tool that writes, and diagnose_failed_workload
for several bundled scenarios with the same object as the CLI (structured content) and its report (text)."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from contextlib import asynccontextmanager

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from tests.service.conftest import body_of
from tests.service.live import free_port

SCENARIOS = ["core/oom-metrics", "core/option-b-terminal", "core/route-preempted"]  # diagnosed, Option B, routed
EXE = [sys.executable, "-m", "workload_diagnose.agent.entrypoints.cli", "mcp"]


def _env(sim) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RUNAI_", "WD_", "KUBECONFIG"))}
    return {**env, "RUNAI_BASE_URL": sim.url, "RUNAI_CLIENT_ID": sim.client_id,
            "RUNAI_CLIENT_SECRET": sim.client_secret, "WD_KUBE": "off", "KUBECONFIG": "/nonexistent/kubeconfig"}


def _cli(sc, sim, procedure: str = "runai_failed") -> dict:
    from workload_diagnose.agent.api import run_procedure

    res = run_procedure(procedure, **body_of(sc), runai_url=sim.url, client_id=sim.client_id,
                        client_secret=sim.client_secret, use_kube=False)
    from workload_diagnose.agent.service.upstream import KUBE_OFF

    return json.loads(json.dumps(res.model_dump(mode="json")).replace("--no-kube was given", KUBE_OFF))


async def _exercise(session: ClientSession, sim, scenarios) -> None:
    await session.initialize()
    from workload_diagnose.agent.procedures import specs

    listed = {t.name: t for t in (await session.list_tools()).tools}
    assert set(listed) == {s.tool.name for s in specs().values() if s.tool}  # one per procedure; none writes
    assert {"diagnose_failed_workload", "diagnose_preempted_workload", "diagnose_pending_workload",
            "lifecycle_status"} <= set(listed)
    for tool in listed.values():
        assert tool.annotations.read_only_hint is True and tool.annotations.destructive_hint is False
    assert set(listed["diagnose_failed_workload"].input_schema["properties"]) == {
        "cluster_id", "workload_id", "workload_name", "project", "intent", "lookback", "now"}
    assert set(listed["lifecycle_status"].input_schema["properties"]) == {"name", "namespace", "kind"}
    for sid in SCENARIOS:
        sc = scenarios[sid]
        res = await session.call_tool("diagnose_failed_workload", body_of(sc))
        assert not res.is_error, res.content
        got = res.structured_content
        assert (got["outcome"], got["category"], got["route"]) == sc.expected.verdict(), sid
        assert got == _cli(sc, sim)
        assert [c.text for c in res.content] == [got["report"]]
    bad = await session.call_tool("diagnose_failed_workload", {"cluster_id": "c1", "workload_name": "a,b==c",
                                                               "project": "p"})
    assert bad.is_error and "not a valid" in bad.content[0].text and "Traceback" not in bad.content[0].text
    missing = await session.call_tool("diagnose_failed_workload", {"workload_id": "w1"})
    assert not missing.is_error and missing.structured_content["outcome"] == "needs_input"  # as the CLI
    sc = scenarios["core/route-pending"]  # the failed diagnosis routes it; the pending one answers it
    got = (await session.call_tool("diagnose_pending_workload", body_of(sc))).structured_content
    assert got == _cli(sc, sim, "pending") and got["outcome"] == "diagnosed" and got["reason"]
    lc = await session.call_tool("lifecycle_status", {"name": "train", "namespace": "ml"})
    assert lc.is_error and "kubeconfig" in lc.content[0].text  # no cluster here: one line, not a crash


def test_mcp_over_stdio(sim, scenarios):
    params = StdioServerParameters(command=EXE[0], args=EXE[1:], env=_env(sim))

    async def main() -> None:
        with open(os.devnull, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (r, w):
                async with ClientSession(r, w) as session:
                    await _exercise(session, sim, scenarios)

    anyio.run(main)


def _wait_port(port: int, proc: subprocess.Popen, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.stderr.read()
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise AssertionError("the MCP server did not listen")


def test_mcp_over_streamable_http(sim, scenarios):
    port = free_port()
    proc = subprocess.Popen(EXE + ["--transport", "streamable-http", "--port", str(port)], env=_env(sim),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        _wait_port(port, proc)

        async def main() -> None:
            async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (r, w, *_):
                async with ClientSession(r, w) as session:
                    await _exercise(session, sim, scenarios)

        anyio.run(main)
    finally:
        proc.terminate()
        proc.wait(15)


def test_streamable_http_on_a_taken_port_is_one_line_exit_1_before_it_says_it_listens(sim):
    """As ``serve``: the port is bound before the "streamable HTTP on" line, and a port another process listens on
    is one line and exit 1 (not uvicorn's log lines and its exit 3, which the CLI's table calls 'API unreachable')."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        p = subprocess.run(EXE + ["--transport", "streamable-http", "--port", str(port)], env=_env(sim),
                           stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    assert p.returncode == 1 and p.stdout == "", (p.returncode, p.stdout, p.stderr)
    assert p.stderr == f"workload-diagnose: error: cannot listen on 127.0.0.1:{port}: Address already in use\n"
