"""The ``workload-diagnose triage`` command through the real CLI: the --json contract's exact keys, --html, the
exit codes of ``failed``, and the progress bar drawn in a real pseudo-terminal."""
from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from workload_diagnose.evals.simulator import running_simulator
from tests.lifecycle.test_watch import _read_until
from tests.triage.fleetrun import small_fleet

REPO = Path(__file__).resolve().parents[2]
TOP_KEYS = ["cluster_id", "window", "counts", "routed", "workloads", "clusters", "actions", "limitations",
            "tool_calls"]
WORKLOAD_KEYS = ["workload", "outcome", "category", "route", "headline", "recurrence"]
CMD = [sys.executable, "-c", "from workload_diagnose.agent.entrypoints.cli import main; main()", "triage"]


@pytest.fixture(scope="module")
def fleet():
    world = small_fleet(24)
    with running_simulator(world) as sim:
        env = {**os.environ, "RUNAI_CLIENT_ID": sim.client_id, "RUNAI_CLIENT_SECRET": sim.client_secret,
               "RUNAI_BASE_URL": sim.url}
        yield world, sim, env


def _args(world) -> list[str]:
    return ["--cluster-id", world["fleet"]["cluster_id"], "--now", world["fleet"]["now"], "--no-kube"]


def test_json_contract_keys(fleet):
    world, _, env = fleet
    p = subprocess.run(CMD + _args(world) + ["--json"], capture_output=True, text=True, env=env, cwd=REPO,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert list(d) == TOP_KEYS
    assert d["workloads"] and all(list(v) == WORKLOAD_KEYS for v in d["workloads"])
    assert all({"kind", "key", "workloads", "categories"} <= set(c) for c in d["clusters"])
    assert all({"action", "fixes"} <= set(a) for a in d["actions"])
    assert [a["fixes"] for a in d["actions"]] == sorted((a["fixes"] for a in d["actions"]), reverse=True)
    assert p.stderr == ""  # no progress bar when the output is JSON (and stderr is not a terminal)
    again = _invoke(env, _args(world) + ["--json"])
    assert again.exit_code == 0
    # deterministic under --now (tool_calls too, as a set: concurrent diagnoses finish in any order)
    a = json.loads(again.stdout)
    assert {k: v for k, v in a.items() if k != "tool_calls"} == {k: v for k, v in d.items() if k != "tool_calls"}
    assert sorted(map(json.dumps, a["tool_calls"])) == sorted(map(json.dumps, d["tool_calls"]))


def _invoke(env: dict, args: list[str]):
    """The same Typer app in-process (fast), with the environment the subprocess runs get."""
    from typer.testing import CliRunner

    from workload_diagnose.agent.entrypoints.cli import app

    keys = ("RUNAI_CLIENT_ID", "RUNAI_CLIENT_SECRET", "RUNAI_BASE_URL")
    return CliRunner().invoke(app, ["triage", *args], env={k: env[k] for k in keys})


def test_html_file(fleet, tmp_path):
    world, _, env = fleet
    out = tmp_path / "t.html"
    r = _invoke(env, _args(world) + ["--html", str(out)])
    assert r.exit_code == 0, r.output
    assert out.read_text().startswith("<!DOCTYPE html>") and "wrote" in r.stderr


@pytest.mark.parametrize("extra, code, msg", [
    (["--project", "a", "--department", "b"], 2, "not both"),
    (["--since", "yesterday"], 2, "--since"),
    (["--json", "--html", "x.html"], 2, "cannot be used together"),
    (["--concurrency", "0"], 2, "concurrency"),
])
def test_bad_input_exit_2_one_line(fleet, extra, code, msg):
    world, _, env = fleet
    r = _invoke(env, _args(world) + extra)
    assert r.exit_code == code and msg in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert r.exception is None or isinstance(r.exception, SystemExit)


def test_unreachable_exit_3_and_refused_exit_4(fleet):
    world, sim, env = fleet
    r = _invoke(env, _args(world) + ["--runai-url", "http://127.0.0.1:9"])
    assert r.exit_code == 3 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    r = _invoke({**env, "RUNAI_CLIENT_SECRET": "wrong"}, _args(world))
    assert r.exit_code == 4 and "refused the credentials" in r.stderr, r.stderr


def test_progress_bar_in_a_pty(fleet):
    world, _, env = fleet
    argv = CMD + _args(world)
    pid, fd = pty.fork()
    if pid == 0:  # the child: stdout and stderr are the pseudo-terminal
        os.chdir(REPO)
        os.execve(sys.executable, argv, env)
    try:
        out = _read_until(fd, b"\0never\0", 90)  # everything, until the command closes the terminal
        _, status = os.waitpid(pid, 0)
        pid = 0
    finally:
        if pid:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        os.close(fd)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, out[-2000:]
    text = out.decode(errors="replace")
    assert "diagnosing" in text and "━" in text  # rich's bar, drawn on the terminal
    assert "Triage of cluster" in text and "Patterns:" in text and "Traceback" not in text


def test_cluster_name_table_verbose_and_yaml(fleet):
    """A cluster NAME is resolved as ``failed`` resolves it; the text is a table by category; -v prints each read
    of this process; -o yaml is the --json object."""
    import re

    import yaml

    world, _, env = fleet
    by_id = _invoke(env, _args(world) + ["--json"])
    named = ["--cluster", "gpu-7c1d2e3f", *_args(world)[2:]]
    as_yaml = _invoke(env, named + ["-o", "yaml", "-v", "--processes", "1"])
    assert as_yaml.exit_code == 0, as_yaml.stderr
    a, b = yaml.safe_load(as_yaml.stdout), json.loads(by_id.stdout)
    assert {k: v for k, v in a.items() if k != "tool_calls"} == {k: v for k, v in b.items() if k != "tool_calls"}
    reads = as_yaml.stderr.splitlines()
    assert reads[0].startswith("workload-diagnose: GET /api/v1/clusters -> 200 in ")
    assert all(re.match(r"^workload-diagnose: (GET|POST) /api/v\d/\S+ -> \d{3} in \d+ ms", x) for x in reads)
    assert sum("/api/v1/workloads/" in x for x in reads) > len(b["workloads"])
    text = _invoke(env, named)
    assert text.exit_code == 0
    table = text.stdout.split("Workloads:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert re.match(r"^NAME +PROJECT +CATEGORY +HEADLINE$", table[0])
    order = [re.split(r" {2,}", row)[2] for row in table[1:]]
    assert len(order) == len(b["workloads"]) and order == sorted(order, key=list(dict.fromkeys(order)).index)
    assert list(dict.fromkeys(order))[:len(b["counts"])] == list(b["counts"])  # most frequent category first
    assert all(len(row) <= 250 for row in table)  # long evidence cut to its decisive part
    unknown = _invoke(env, ["--cluster-id", "gpu-nope", *_args(world)[2:]])
    assert unknown.exit_code == 2 and "no cluster is named exactly 'gpu-nope' (clusters you can see: " \
                                      "gpu-7c1d2e3f)" in unknown.stderr
