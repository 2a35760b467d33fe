"""Tier 1 over MCP keeps the diagnosis's one deadline: a ``tools/call`` (and its retry) gets only what is left of
``--timeout``, none when too little is left, and a tool that never answers ends the run as REST's silent endpoint
does (same exit code, same "stopped after N s (--timeout)" wording, about the same time)."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import threading
import time

import pytest

from workload_diagnose.evals.hostile import hang, hostile
from workload_diagnose.evals.scenarios import load_scenario
from tests.conftest import WID
from tests.mcp_tier1.test_source import OOM
from tests.test_cli import EXE, cli


def _hanging(st, tool: str) -> None:
    from workload_diagnose.evals.mcp_standin import McpFault

    st.options.faults = [McpFault(tool=tool, kind="timeout", seconds=60.0, times=-1)]


def test_a_call_gets_only_what_is_left_of_the_deadline_and_no_retry_after_it(standin):
    from workload_diagnose.evals.mcp_standin import memory_connector
    from workload_diagnose.tools.base import ErrorKind
    from workload_diagnose.tools.deadline import Deadline
    from workload_diagnose.tools.runai.mcp import RunaiMcpSource

    st, _ = standin(OOM)
    src = RunaiMcpSource(memory_connector(st), describe="t", timeout=10.0, deadline=Deadline(2.0))
    try:
        src.session.connect()
        _hanging(st, "get_workload_pods")
        t0 = time.monotonic()
        r = src.get_workload_pods(WID)
        took = time.monotonic() - t0
        assert r.error.kind == ErrorKind.TIMEOUT and "stopped after 2 s (--timeout): tools/call get_workload_pods" \
            in r.error.message, r.error
        assert r.invocations[0].attempts == 1 and "attempts" not in r.error.message  # no retry past the deadline
        assert took < 2.0 + 1.0, took
        n = len(st.calls)
        r = src.get_workload_history(WID, cutoff=__import__("datetime").datetime(2020, 1, 1))
        assert r.error.kind == ErrorKind.TIMEOUT and "stopped after 2 s" in r.error.message
        assert len(st.calls) == n  # nothing left of the deadline: not even sent
    finally:
        src.close()


def test_a_retry_is_not_started_with_too_little_of_the_deadline_left(standin):
    """The first attempt ends on the call's own bound with less than the minimum left: no second attempt."""
    from workload_diagnose.evals.mcp_standin import memory_connector
    from workload_diagnose.tools.deadline import Deadline
    from workload_diagnose.tools.runai.mcp import RunaiMcpSource
    from workload_diagnose.tools.runai.mcp.session import MIN_CALL_SECONDS

    st, _ = standin(OOM)
    src = RunaiMcpSource(memory_connector(st), describe="t", timeout=1.0, deadline=Deadline(30.0))
    try:
        src.session.connect()
        src.deadline = src.session.deadline = Deadline(1.0 + MIN_CALL_SECONDS / 2)
        src._sleep = src.deadline.sleep
        _hanging(st, "get_workload_pods")
        r = src.get_workload_pods(WID)
        assert r.invocations[0].attempts == 1 and "stopped after" in r.error.message, r.error
        assert [n for n, _ in st.calls].count("get_workload_pods") == 1
    finally:
        src.close()


def _free_port() -> int:
    with socket.socket() as so:
        so.bind(("127.0.0.1", 0))
        return so.getsockname()[1]


@pytest.fixture(scope="module")
def served():
    """(scenario, simulator, MCP stand-in over streamable HTTP, its URL) for core/oom-metrics."""
    import uvicorn

    from workload_diagnose.evals.mcp_standin import Standin, http_app
    from workload_diagnose.evals.simulator import running_simulator

    sc = load_scenario("core/oom-metrics")
    with running_simulator(sc.world) as s:
        st = Standin(s.url, s.client_id, s.client_secret)
        st.first_request = []  # when each HTTP request arrived (the client's first one is its handshake)
        inner = http_app(st, "tok-" + "5e1f0a9b")

        async def app(scope, receive, send):
            if scope["type"] == "http":
                st.first_request.append(time.monotonic())
            await inner(scope, receive, send)

        port = _free_port()
        server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                               log_level="critical", lifespan="on"))
        t = threading.Thread(target=server.run, daemon=True)
        t.start()
        for _ in range(250):
            if server.started:
                break
            time.sleep(0.02)
        yield sc, s, st, f"http://127.0.0.1:{port}"
        server.should_exit = True
        t.join(5)
        st.close()


def _watched(args, env, st) -> tuple[subprocess.CompletedProcess, float]:
    """Run the CLI; the seconds from the stand-in receiving the client's first HTTP request (its handshake, made
    once the diagnosis's deadline runs) to the process's end: the process's start-up before it is the
    machine's, not the source's."""
    n = len(st.first_request)
    full = {k: v for k, v in os.environ.items() if not k.startswith("RUNAI_")} | env
    p = subprocess.run(EXE + args, env=full, capture_output=True, text=True, timeout=90)
    end = time.monotonic()
    assert len(st.first_request) > n, p.stderr
    return p, end - st.first_request[n]


@pytest.mark.serial
@pytest.mark.parametrize("tool, rest_path, rc", [
    ("get_workload_status", r"/workloads/[^/]+$", 3),  # the workload itself: "could not answer", exit 3
    ("get_workload_pods", r"/pods$", 0),  # one read among several: its limitation, the verdict from the rest
])
def test_a_tool_that_never_answers_ends_with_the_deadline_like_rest(served, tool, rest_path, rc):
    sc, s, st, url = served
    _hanging(st, tool)
    args = ["failed", *sc.cli_args(), "--no-kube", "--json", "--timeout", "5"]
    mcp, after_connect = _watched([*args, "--tier1", "mcp"],
                                     {"RUNAI_MCP_URL": url, "RUNAI_MCP_TOKEN": "tok-5e1f0a9b"}, st)
    with hostile(sc.world, [("GET", rest_path, hang)]) as (srv, sim):
        rest = cli(args, {"RUNAI_BASE_URL": srv.url, "RUNAI_CLIENT_ID": sim.client_id,
                          "RUNAI_CLIENT_SECRET": sim.client_secret}, timeout=90)
    assert mcp.returncode == rest.returncode == rc, (mcp.stderr, rest.stderr)
    # the handshake, the call and its retry all within the 5 s (a retry with a fresh bound would add another 5 s);
    # the slack is the process's own exit on a loaded machine
    assert after_connect < 5 + 3.0, after_connect
    said = mcp.stderr if rc else "\n".join(json.loads(mcp.stdout)["limitations"])
    assert f"stopped after 5 s (--timeout): tools/call {tool} was not read" in said, said
    assert "stopped after 5 s (--timeout): GET " in (rest.stderr if rc else rest.stdout)
    assert "attempts" not in said
