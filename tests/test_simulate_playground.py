"""``workload-diagnose simulate`` is a playground: a world moved to the real clock keeps every relative time, the
banner prints the export lines, the cluster it serves and commands that work when pasted (real processes, real
HTTP); ``--keep-time`` keeps the recorded times and the banner says which ``--now`` to pass."""
from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from workload_diagnose.evals.playground import Served, locate, newest_time, read_exports, shifted, to_real_clock
from workload_diagnose.evals.scenarios import load_scenario

EXE = [sys.executable, "-m", "workload_diagnose.agent.entrypoints.cli"]
TS = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d"


def _times(world: dict) -> list[datetime]:
    import re

    return [datetime.fromisoformat(t.replace("Z", "+00:00")) for t in re.findall(TS + r"(?:\.\d+)?Z", json.dumps(world))]


def test_a_shift_keeps_every_relative_time_and_format():
    sc = load_scenario("core/oom-metrics")
    world = json.loads(sc.world.read_text())
    moved = shifted(world, timedelta(days=13, hours=2, seconds=7))
    a, b = _times(world), _times(moved)
    assert len(a) == len(b) > 5
    assert all(y - x == timedelta(days=13, hours=2, seconds=7) for x, y in zip(a, b))
    assert json.dumps(moved).count("Z\"") == json.dumps(world).count("Z\"")  # every time still ends in Z
    assert shifted({"t": "2026-01-01T00:00:00.250+02:00"}, timedelta(hours=1)) == {"t": "2026-01-01T01:00:00.250+02:00"}


def test_the_reference_is_the_case_then_the_fleet_then_the_newest_time():
    sc = load_scenario("core/oom-metrics")
    served = Served(world=json.loads(sc.world.read_text()), label="x", args=sc.args.model_dump())
    locate(served)
    assert served.reference == sc.args.now and served.reference_from == "the case's now"
    now = datetime(2027, 3, 4, 5, 6, 7, tzinfo=timezone.utc)
    to_real_clock(served, now)
    assert served.args["now"] == "2027-03-04T05:06:07Z"
    assert max(_times(served.world)) <= now  # nothing happened after the case's now
    bare = Served(world={"workloads": [{"id": "w", "createdAt": "2026-01-01T00:00:00Z",
                                        "phaseUpdatedAt": "2026-01-02T00:00:00Z"}]}, label="y")
    locate(bare)
    assert bare.reference == "2026-01-02T00:00:00Z" == newest_time(bare.world)


def _start(args: list[str], tmp_path: Path) -> tuple[subprocess.Popen, list[str], dict]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RUNAI_", "KUBECONFIG"))}
    env.update(NO_COLOR="1", XDG_STATE_HOME=str(tmp_path))
    sim = subprocess.Popen(EXE + ["simulate", *args, "--port", "0"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, env=env)
    lines = []
    exported: dict = {}
    for _ in range(30):
        line = sim.stdout.readline()
        if not line:
            break
        lines.append(line.rstrip("\n"))
        if line.startswith("workload-diagnose ask"):
            break
    for line in lines:
        key, sep, value = line.removeprefix("export ").partition("=")
        if line.startswith("export ") and sep:
            exported[key] = value
    env.update(exported)
    return sim, lines, env


def _run_banner_command(line: str, env: dict) -> subprocess.CompletedProcess:
    argv = shlex.split(line)
    assert argv[0] == "workload-diagnose"
    return subprocess.run(EXE + argv[1:], capture_output=True, text=True, env=env, timeout=180)


def test_a_scenario_on_the_real_clock_and_its_banner(tmp_path):
    sim, lines, env = _start(["core/oom-metrics"], tmp_path)
    try:
        assert lines[0].startswith("# Run:ai simulator serving scenario core/oom-metrics on http://127.0.0.1:")
        assert "so that the case's now is now" in lines[1]
        assert {"RUNAI_BASE_URL", "RUNAI_CLIENT_ID", "RUNAI_CLIENT_SECRET"} <= set(env)
        assert any(x.startswith("# cluster gpu-3f2c7a1e (3f2c7a1e-8d4b-4c1e-9a57-2b6e0d9c4f11)") for x in lines)
        cmds = [x for x in lines if x.startswith("workload-diagnose ")]
        assert [shlex.split(c)[1] for c in cmds] == ["failed", "triage", "ask"]
        assert all("--now" not in c and "gpu-3f2c7a1e" in c for c in cmds)  # the real clock; the cluster's name
        failed = _run_banner_command(cmds[0], env)  # pasted as printed, without --now: today's diagnosis
        assert failed.returncode == 0 and failed.stdout.startswith("Category: OOM_KILLED"), failed.stderr
        # the failure, its history and its metrics are inside today's lookback: nothing degraded (unshifted, the
        # same command says the failure is older than the window and finds no memory samples)
        assert "Peak CPU memory usage" in failed.stdout and "older than this window" not in failed.stdout
        triage = _run_banner_command(cmds[1] + " -o json", env)
        assert triage.returncode == 0 and json.loads(triage.stdout)["counts"] == {"OOM_KILLED": 1}, triage.stderr
        ask = _run_banner_command(cmds[2], env)
        assert ask.returncode == 0 and "Category: OOM_KILLED" in ask.stdout, ask.stderr
    finally:
        sim.terminate()
        sim.wait(20)


def test_keep_time_prints_the_now_to_pass(tmp_path):
    sim, lines, env = _start(["core/oom-metrics", "--keep-time"], tmp_path)
    try:
        assert any(x == "# recorded times kept: pass --now 2026-11-20T12:00:00Z (the case's now) to every command"
                   for x in lines), lines
        cmds = [x for x in lines if x.startswith("workload-diagnose ")]
        assert cmds and all(c.endswith("--now 2026-11-20T12:00:00Z") for c in cmds)
        failed = _run_banner_command(cmds[0] + " --json", env)
        assert failed.returncode == 0 and json.loads(failed.stdout)["category"] == "OOM_KILLED"
    finally:
        sim.terminate()
        sim.wait(20)


def test_the_exports_are_read_back_by_the_tools(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("RUNAI_")}
    sim = subprocess.Popen(EXE + ["simulate", "--fleet", "5", "--port", "0"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, env=env)
    try:
        got = read_exports(sim.stdout)
        assert got["RUNAI_BASE_URL"].startswith("http://127.0.0.1:") and got["RUNAI_CLIENT_ID"] == "sim-client"
    finally:
        sim.terminate()
        sim.wait(20)


@pytest.mark.parametrize("args, msg", [
    (["core/oom-metrics", "--fleet", "3"], "give a world or --fleet N, not both"),
    (["--fleet", "0"], "--fleet must be between 1 and 20000"),
])
def test_bad_playground_input_is_one_line(args, msg):
    p = subprocess.run(EXE + ["simulate", *args, "--port", "0"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and msg in p.stderr, p.stderr
