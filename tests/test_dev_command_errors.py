"""`simulate` and `demo` (the developer commands) end with one line on stderr and exit 2, never a traceback, for a
missing path, bad JSON, a file that is not a world, an unknown scenario, a port in use (issue 10 item 15).
Run as real processes, as a developer types them."""
from __future__ import annotations

import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
EXE = [sys.executable, "-m", "workload_diagnose.agent.entrypoints.cli"]
OOM = REPO / "evals" / "scenarios" / "core" / "oom-metrics"


def _one_line_error(args: list[str], *needles: str) -> None:
    r = subprocess.run(EXE + args, capture_output=True, text=True, timeout=60, cwd=REPO)
    lines = [ln for ln in r.stderr.splitlines() if ln.strip() and not ln.startswith("# ")]
    assert r.returncode == 2, (args, r.returncode, r.stderr[-1500:])
    assert "Traceback" not in r.stderr and len(lines) == 1, (args, r.stderr[-1500:])
    assert lines[0].startswith("workload-diagnose: error: "), lines
    for n in needles:
        assert n in lines[0], (n, lines[0])


@pytest.fixture(scope="module")
def broken(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("broken")
    (d / "bad.json").write_text('{"workloads": [')
    (d / "list.json").write_text("[1, 2]")
    (d / "no-world").mkdir()
    shutil.copy(OOM / "case.json", d / "no-world" / "case.json")
    (d / "bad-world").mkdir()
    shutil.copy(OOM / "case.json", d / "bad-world" / "case.json")
    (d / "bad-world" / "world.json").write_text("{")
    (d / "bad-case").mkdir()
    (d / "bad-case" / "case.json").write_text("{nope")
    return d


def test_simulate_missing_path(tmp_path):
    _one_line_error(["simulate", str(tmp_path / "nowhere")], "no world at", "nowhere")


def test_simulate_bad_json_and_not_a_world(broken):
    _one_line_error(["simulate", str(broken / "bad.json")], "is not valid JSON", "bad.json")
    _one_line_error(["simulate", str(broken / "list.json")], "is not a world")


def test_simulate_port_in_use():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        _one_line_error(["simulate", str(OOM), "--port", str(port)], f"127.0.0.1:{port}", "in use")
    _one_line_error(["simulate", str(OOM), "--port", "70000"], "--port must be between 0 and 65535")


def test_demo_unknown_scenario_and_broken_scenarios(broken):
    _one_line_error(["demo", "--scenario", "core/no-such-scenario"], "no scenario 'core/no-such-scenario'")
    _one_line_error(["demo", "--scenario", str(broken / "bad-case")], "case.json is not a valid scenario case")
    _one_line_error(["demo", "--scenario", str(broken / "no-world")], "no world at", "world.json")
    _one_line_error(["demo", "--scenario", str(broken / "bad-world")], "is not valid JSON")
