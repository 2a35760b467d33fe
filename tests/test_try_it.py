"""docs/try-it.md works as written: every command of its ``sh`` blocks runs, as a shell runs it, against
``workload-diagnose simulate`` started the way the page says (its banner's export lines pasted), with the exit
code the page states (``# exit N``, else 0) and the output that shows it did what the page says. The examples of
every ``--help`` name workloads of the same simulated fleet: they are checked against it too."""
from __future__ import annotations

import json
import os
import re
import shlex
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "docs" / "try-it.md"
BIN = Path(sys.executable).parent

# what each command of the page must show (a substring of the command → a check of (stdout, stderr, workdir))
EXPECT = {
    "simulate": None,  # started first, by the fixture
    "--workload-name train-llm-42-0000": lambda o, e, d: o.startswith("Category: OOM_KILLED"),
    "-o yaml": lambda o, e, d: yaml.safe_load(o)["category"] == "OOM_KILLED",
    "serve-ranker-0022": lambda o, e, d: o.startswith("Category: CRASH_APP_ERROR") and "GET /api/v1/" in e,
    "gpu-7c1d2e3f --no-kube  # exit 5": lambda o, e, d: o == "" and "--workload-id (or --workload-name" in e,
    "--cluster-id gpu-west": lambda o, e, d: "no cluster is named exactly 'gpu-west' (clusters you can see: "
                                             "gpu-7c1d2e3f)" in e,
    "triage --cluster-id gpu-7c1d2e3f --no-kube\n": lambda o, e, d: re.search(r"^NAME +PROJECT +CATEGORY +HEADLINE",
                                                                               o, re.M) is not None,
    "-o json": lambda o, e, d: json.loads(o)["workloads"] and all(
        w["workload"]["project"] == "vision" for w in json.loads(o)["workloads"]),
    "--html triage.html": lambda o, e, d: (d / "triage.html").read_text().startswith("<!DOCTYPE html>"),
    "fail?\" --thread": lambda o, e, d: o.startswith("I need the cluster"),
    "it's in vision": lambda o, e, d: "Category: OOM_KILLED" in o,
    "is it recurring": lambda o, e, d: "within the lookback" in o,
    "my jobs": lambda o, e, d: "workload-diagnose triage --cluster-id gpu-7c1d2e3f --since 24h" in o,
    "serve --port": None,  # started in the background, checked by the curl after it
    "curl": lambda o, e, d: json.loads(o)["category"] == "OOM_KILLED",
}


def commands() -> list[str]:
    """Every command of the page's ``sh`` blocks, one per line (a backslash continues a line)."""
    blocks = re.findall(r"```sh\n(.*?)```", PAGE.read_text(), re.S)
    out = []
    for block in blocks:
        for line in block.replace("\\\n", " ").splitlines():
            if line.strip() and not line.lstrip().startswith("#"):
                out.append(line.strip())
    return out


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _expected_exit(cmd: str) -> int:
    m = re.search(r"#\s*exit\s+(\d+)\s*$", cmd)
    return int(m.group(1)) if m else 0


def _check_for(cmd: str):
    """The one expectation whose key the command contains (a key ending in a newline: the command ends so)."""
    keys = [k for k in EXPECT if (cmd + "\n").endswith(k) if k.endswith("\n")] + [
        k for k in EXPECT if not k.endswith("\n") and k in cmd]
    assert len(keys) == 1, f"the test knows no (or several) expectations for {cmd!r}: {keys}"
    return EXPECT[keys[0]]


@pytest.fixture(scope="module")
def shell(tmp_path_factory):
    """An environment as a reader has it after step 1: the simulator started as the page says, its export lines."""
    from workload_diagnose.evals.playground import read_exports

    work = tmp_path_factory.mktemp("try-it")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RUNAI_", "WD_", "KUBECONFIG"))}
    env.update(PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}", XDG_STATE_HOME=str(work / "state"), NO_COLOR="1",
               COLUMNS="160")
    first = commands()[0]
    assert first == "workload-diagnose simulate", first
    sim = subprocess.Popen([*shlex.split(first), "--port", str(_free_port())], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, env=env, cwd=work)
    background: list[subprocess.Popen] = [sim]
    try:
        exported = read_exports(sim.stdout)
        assert set(exported) == {"RUNAI_BASE_URL", "RUNAI_CLIENT_ID", "RUNAI_CLIENT_SECRET"}, sim.stderr.read()
        env.update(exported)
        yield env, work, background
    finally:
        for p in background:
            p.terminate()
        for p in background:
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(5)


def _wait_healthy(url: str, proc: subprocess.Popen, seconds: float = 90) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else "serve exited"
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    raise AssertionError(f"{url} did not answer in {seconds} s")


def test_every_command_of_the_page_runs_as_written(shell):
    env, work, background = shell
    port = str(_free_port())
    ran = []
    for cmd in commands()[1:]:
        check = _check_for(cmd)
        line = cmd.replace("8080", port)
        if line.endswith("&"):  # a server for the next commands
            proc = subprocess.Popen(["bash", "-c", f"exec {line[:-1]}"], env=env, cwd=work, text=True,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            background.append(proc)
            _wait_healthy(f"http://127.0.0.1:{port}/healthz", proc)
            ran.append(cmd)
            continue
        p = subprocess.run(["bash", "-c", line], env=env, cwd=work, capture_output=True, text=True, timeout=300)
        assert p.returncode == _expected_exit(cmd), (cmd, p.returncode, p.stdout[-2000:], p.stderr[-2000:])
        assert "Traceback" not in p.stderr, (cmd, p.stderr[-2000:])
        assert check(p.stdout, p.stderr, work), (cmd, p.stdout[-3000:], p.stderr[-1000:])
        ran.append(cmd)
    assert len(ran) >= 12


def test_the_help_examples_name_workloads_the_simulator_serves():
    """Every ``--help`` example names the default fleet's cluster, workloads and projects (so each one pastes)."""
    from workload_diagnose.agent.entrypoints import examples as ex
    from workload_diagnose.evals.fleet import CLUSTER, fleet_world
    from workload_diagnose.evals.simulator import World

    world = fleet_world(60)
    by_id = {w["id"]: w for w in world["workloads"]}
    assert ex.CLUSTER_ID == CLUSTER and {"uuid": CLUSTER, "name": ex.CLUSTER} in [
        {"uuid": c["uuid"], "name": c["name"]} for c in World(world).clusters()]
    assert (by_id[ex.WORKLOAD_ID]["name"], by_id[ex.WORKLOAD_ID]["projectName"]) == (ex.NAME, ex.PROJECT)
    active = [w for w in world["workloads"] if (w["name"], w["projectName"]) == ex.ACTIVE]
    assert len(active) == 1 and active[0]["phase"] == "Running"
