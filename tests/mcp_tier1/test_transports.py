"""``workload-diagnose failed --tier1 mcp`` as a real subprocess over the real transports: stdio (the stand-in as
a child process, RUNAI_MCP_COMMAND) and streamable HTTP (uvicorn on 127.0.0.1, RUNAI_MCP_URL + bearer token)."""
from __future__ import annotations

import json
import shlex
import socket
import sys
import threading
import time

import pytest

from workload_diagnose.evals.scenarios import load_scenario
from workload_diagnose.evals.simulator import running_simulator
from tests.test_cli import cli

STANDIN = f"{shlex.quote(sys.executable)} -m evals.mcp_standin"
SAME = ("outcome", "category", "route", "workload", "evidence", "recurrence", "recommendations", "question")


@pytest.fixture(scope="module")
def sim():
    from workload_diagnose.agent.api import diagnose
    from workload_diagnose.evals.runner import _kwargs

    sc = load_scenario("core/oom-metrics")
    with running_simulator(sc.world) as s:
        rest = diagnose(**_kwargs(sc), use_kube=False, runai_url=s.url, client_id=s.client_id,
                        client_secret=s.client_secret)
        yield s, sc, rest.model_dump(mode="json")


def _creds(s) -> dict:
    return {"RUNAI_BASE_URL": s.url, "RUNAI_CLIENT_ID": s.client_id, "RUNAI_CLIENT_SECRET": s.client_secret}


def _mcp(sc, env):
    return cli(["failed", *sc.cli_args(), "--no-kube", "--json", "--tier1", "mcp"], env)


def test_stdio_gives_the_rest_verdict_and_evidence(sim):
    s, sc, rest = sim
    p = _mcp(sc, {**_creds(s), "RUNAI_MCP_COMMAND": STANDIN})
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert {k: out[k] for k in SAME} == {k: rest[k] for k in SAME}
    assert out["category"] == "OOM_KILLED"
    assert all(c["request"].startswith("tools/call ") for c in out["tool_calls"])
    assert s.client_secret not in p.stdout + p.stderr


def _stdio_source(s, command: str):
    from workload_diagnose.tools.runai.mcp import RunaiMcpSource
    from workload_diagnose.tools.runai.mcp.connect import stdio_connector

    connect, describe = stdio_connector(command, _creds(s))
    return RunaiMcpSource(connect, describe=describe, timeout=20)


def _diagnose(sc, source):
    from workload_diagnose.agent.api import diagnose
    from workload_diagnose.evals.runner import _kwargs

    try:
        return diagnose(**_kwargs(sc), use_kube=False, tier1="mcp", source=source)
    finally:
        source.close()


def test_stdio_dropped_session_is_reconnected_once(sim, tmp_path):
    s, sc, rest = sim
    marker = tmp_path / "dropped"
    once = json.dumps({"faults": [{"tool": "get_workload_pods", "kind": "drop", "once_file": str(marker)}]})
    # the child gets only the RUNAI_* variables: the stand-in's variant travels on its command line
    src = _stdio_source(s, f"env WD_STANDIN_OPTIONS={shlex.quote(once)} {STANDIN}")
    res = _diagnose(sc, src)
    assert marker.exists() and src.session.connects == 2  # the first server process exited mid-call ...
    out = res.model_dump(mode="json")  # ... and the second one answered: nothing lost
    assert {k: out[k] for k in SAME} == {k: rest[k] for k in SAME}
    assert not any("dropped" in x for x in res.limitations)


def test_stdio_a_command_that_is_not_an_mcp_server_is_unavailable_in_one_line(sim, capfd):
    from workload_diagnose.agent.api import ApiUnavailable

    s, sc, _ = sim
    with pytest.raises(ApiUnavailable) as e:
        _diagnose(sc, _stdio_source(s, f"{shlex.quote(sys.executable)} -c 'print(1)'"))
    assert "cannot reach the Run:ai MCP server" in str(e.value) and "\n" not in str(e.value)
    assert "TaskGroup" not in str(e.value)
    assert "Traceback" not in capfd.readouterr().err  # the SDK's own log of the garbage is not printed


def _free_port() -> int:
    with socket.socket() as so:
        so.bind(("127.0.0.1", 0))
        return so.getsockname()[1]


@pytest.fixture(scope="module")
def http_server(sim):
    import uvicorn

    from workload_diagnose.evals.mcp_standin import Standin, http_app

    s, _, _ = sim
    token = "mcp-caller-token-" + "7f3a9c2e5b1d"
    standin = Standin(s.url, s.client_id, s.client_secret)
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(http_app(standin, token), host="127.0.0.1", port=port,
                                           log_level="warning", lifespan="on"))
    t = threading.Thread(target=server.run, daemon=True)
    t.start()
    for _ in range(200):
        if server.started:
            break
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}", token, standin
    server.should_exit = True
    t.join(5)
    standin.close()


def test_streamable_http_with_a_bearer_token_gives_the_rest_verdict(sim, http_server, monkeypatch):
    from workload_diagnose.agent.api import diagnose
    from workload_diagnose.evals.runner import _kwargs

    s, sc, rest = sim
    url, token, standin = http_server
    for k in ("RUNAI_BASE_URL", "RUNAI_CLIENT_ID", "RUNAI_CLIENT_SECRET", "RUNAI_MCP_COMMAND"):
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setenv("RUNAI_MCP_URL", url)  # no path: /mcp is the endpoint
    monkeypatch.setenv("RUNAI_MCP_TOKEN", token)
    out = diagnose(**_kwargs(sc), use_kube=False, tier1="mcp").model_dump(mode="json")  # the settings path
    assert {k: out[k] for k in SAME} == {k: rest[k] for k in SAME}
    assert {n for n, _ in standin.calls} <= {"get_workload_status", "get_workload_spec", "get_workload_pods",
                                             "get_workload_history", "get_workload_metrics"}


def test_streamable_http_a_refused_token_is_the_auth_error_without_the_token(sim, http_server):
    from workload_diagnose.agent.api import ApiAuthError
    from workload_diagnose.tools.runai.mcp import RunaiMcpSource
    from workload_diagnose.tools.runai.mcp.connect import http_connector

    s, sc, _ = sim
    url, token, standin = http_server
    wrong = "wrong-token-" + "c0ffee12345678"
    connect, describe = http_connector(url + "/mcp", wrong)
    n = len(standin.calls)
    with pytest.raises(ApiAuthError) as e:
        _diagnose(sc, RunaiMcpSource(connect, describe=describe))
    assert "HTTP 401" in str(e.value) and wrong not in str(e.value) and len(standin.calls) == n


@pytest.mark.parametrize("args, env, words", [
    (["--tier1", "grpc"], {}, ["--tier1 must be 'rest' or 'mcp'"]),
    (["--tier1", "mcp"], {}, ["RUNAI_MCP_URL", "RUNAI_MCP_COMMAND"]),
    (["--tier1", "mcp"], {"RUNAI_MCP_URL": "http://127.0.0.1:1", "RUNAI_MCP_COMMAND": "x"}, ["set only one"]),
    (["--tier1", "mcp"], {"RUNAI_MCP_URL": "ftp://h"}, ["not an http(s) URL"]),
])
def test_tier1_selection_errors_are_one_line_usage_errors(sim, monkeypatch, args, env, words):
    from typer.testing import CliRunner

    from workload_diagnose.agent.entrypoints.cli import app

    s, sc, _ = sim
    for k in ("RUNAI_MCP_URL", "RUNAI_MCP_COMMAND", "RUNAI_MCP_TOKEN"):
        monkeypatch.delenv(k, raising=False)
    for k, v in {**_creds(s), **env}.items():
        monkeypatch.setenv(k, v)
    r = CliRunner().invoke(app, ["failed", *sc.cli_args(), "--no-kube", *args])
    assert r.exit_code == 2, r.output
    err = r.stderr if hasattr(r, "stderr") else r.output
    assert len(err.strip().splitlines()) == 1 and all(w in err for w in words), err
