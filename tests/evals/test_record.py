"""``workload-diagnose record`` against a running simulator (standing in for a real control plane): it writes a
replay-only scenario that replays to the same verdict and holds no token or secret."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import yaml

from workload_diagnose.evals import checks
from workload_diagnose.evals.runner import replay
from workload_diagnose.evals.scenarios import all_scenarios, load_scenario
from workload_diagnose.evals.simulator import running_simulator
from workload_diagnose.evals.suite import run

EXE = [sys.executable, "-m", "workload_diagnose.agent.entrypoints.cli"]
PLANTED = ["hf_Qm9vQmFyQmF6UXV4UXV1eENvcmdlR3JhdWx0MTIz", "6f1d0c2b9a8e7f6d5c4b3a29181706f5e4d3c2b1",
           "S3cr3t-Pa55w0rd!", "q8Vb3nR2xT7mK1pL9sD4fG6hJ0wZ5cY8uE2iO7aN"]


def _record(sim, sc, out, *extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("RUNAI_")}
    env.update(RUNAI_CLIENT_ID=sim.client_id, RUNAI_CLIENT_SECRET=sim.client_secret)
    return subprocess.run(EXE + ["record", "--runai-url", sim.url, "--out", str(out), *sc.cli_args(), *extra],
                          capture_output=True, text=True, env=env, timeout=120)


def test_record_writes_a_clean_replayable_scenario(tmp_path):
    sc = load_scenario("resilience/secrets-in-evidence")  # the world carries credentials in spec, command, events
    out = tmp_path / "captured" / "crash-with-secrets"
    with running_simulator(sc.world) as sim:
        r = _record(sim, sc, out)
        secret, tokens, port = sim.client_secret, sorted(sim.tokens), str(sim.server_address[1])
        again = _record(sim, sc, out)  # an existing scenario is never overwritten silently
    assert r.returncode == 0, r.stderr
    assert again.returncode == 2 and "--force" in again.stderr
    assert sorted(p.name for p in out.iterdir()) == ["case.json", "cassette.yaml"]  # replay-only: no world
    case = json.loads((out / "case.json").read_text())
    assert case["confirmed"] is False and case["args"]["now"] == sc.args.now
    assert case["expected"] == {"outcome": "diagnosed", "category": "CRASH_APP_ERROR", "route": None,
                                "recurrence": 1}

    text = (out / "cassette.yaml").read_text()
    assert tokens and secret not in text and not any(t in text for t in tokens)
    assert not any(p in text for p in PLANTED)
    assert "127.0.0.1" not in text and f":{port}" not in text
    data = yaml.safe_load(text)
    for i in data["interactions"]:
        hdrs = {k.lower() for k in (i["request"].get("headers") or {})}
        assert not hdrs & {"authorization", "cookie", "host"}
        assert not {k.lower() for k in (i["response"].get("headers") or {})} & {"set-cookie"}
        assert i["request"]["uri"].startswith("http://runai-simulator.local/")
    assert checks.secret_leaks({"cassette": text}, [secret, *tokens]) == []

    captured = load_scenario(out)
    assert not captured.has_world and captured.confirmed is False
    res = replay(captured)
    assert (res.outcome, res.category, res.route) == ("diagnosed", "CRASH_APP_ERROR", None)
    assert not any(p in res.model_dump_json() for p in PLANTED)

    # the runner scores a replay-only scenario (flagged unconfirmed) and skips it in the fault matrix
    lines: list[str] = []
    assert run(None, root=tmp_path, jobs=1, faults=True, baseline="", echo=lines.append) == 0
    text = "\n".join(lines)
    assert "unconfirmed captures  1: captured/crash-with-secrets" in text
    assert "0/0 runs passed" in text
    assert all(s.has_world for s in all_scenarios())  # the default listing stays simulator scenarios


def test_record_refuses_incomplete_identifiers(tmp_path):
    r = subprocess.run(EXE + ["record", "--out", str(tmp_path / "x"), "--workload-name", "a"], capture_output=True,
                       text=True, timeout=60, env={k: v for k, v in os.environ.items() if not k.startswith("RUNAI_")})
    assert r.returncode == 2 and not (tmp_path / "x").exists()


def test_record_with_refused_credentials_keeps_nothing(tmp_path):
    sc = load_scenario("core/oom-metrics")
    with running_simulator(sc.world) as sim:
        env = {k: v for k, v in os.environ.items() if not k.startswith("RUNAI_")}
        env.update(RUNAI_CLIENT_ID=sim.client_id, RUNAI_CLIENT_SECRET="wrong")
        r = subprocess.run(EXE + ["record", "--runai-url", sim.url, "--out", str(tmp_path / "x"), *sc.cli_args()],
                           capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 4
    assert not (tmp_path / "x" / "cassette.yaml").exists() and not (tmp_path / "x" / "case.json").exists()
