"""The public CLI contract, run as a real subprocess against the simulator."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import yaml

from workload_diagnose.evals.scenarios import load_scenario
from workload_diagnose.evals.simulator import running_simulator

EXE = [sys.executable, "-m", "workload_diagnose.agent.entrypoints.cli"]
KEYS = {"outcome", "category", "route", "workload", "evidence", "recurrence", "recommendations", "limitations",
        "question", "report"}


def cli(args, env_extra=None, timeout=60):
    env = {k: v for k, v in os.environ.items() if not k.startswith("RUNAI_")}
    env.update(env_extra or {})
    return subprocess.run(EXE + args, capture_output=True, text=True, env=env, timeout=timeout)


@pytest.fixture(scope="module")
def sim():
    sc = load_scenario("core/oom-metrics")
    with running_simulator(sc.world) as s:
        yield s, sc


def test_failed_json_contract_and_same_bytes_twice(sim):
    s, sc = sim
    env = {"RUNAI_BASE_URL": s.url, "RUNAI_CLIENT_ID": s.client_id, "RUNAI_CLIENT_SECRET": s.client_secret}
    a = cli(["failed", *sc.cli_args(), "--no-kube", "--json"], env)
    b = cli(["failed", *sc.cli_args(), "--no-kube", "--json"], env)
    assert a.returncode == 0, a.stderr
    assert a.stdout == b.stdout
    out = json.loads(a.stdout)
    assert KEYS <= set(out)
    assert out["outcome"] == "diagnosed" and out["category"] == "OOM_KILLED" and out["route"] is None
    assert set(out["workload"]) >= {"id", "name", "project", "cluster_id", "phase"}
    assert all(set(e) == {"source", "text"} for e in out["evidence"])
    assert set(out["recurrence"]) == {"count", "lookback", "recurring"}
    assert out["report"].splitlines()[0] == "Category: OOM_KILLED"
    assert s.client_secret not in a.stdout


def test_human_report_without_json(sim):
    s, sc = sim
    r = cli(["failed", *sc.cli_args(), "--no-kube", "--runai-url", s.url],
            {"RUNAI_CLIENT_ID": s.client_id, "RUNAI_CLIENT_SECRET": s.client_secret})
    assert r.returncode == 0 and r.stdout.startswith("Category: OOM_KILLED")


def test_refused_credentials_is_one_line_nonzero(sim):
    s, sc = sim
    r = cli(["failed", *sc.cli_args(), "--no-kube", "--json", "--runai-url", s.url],
            {"RUNAI_CLIENT_ID": s.client_id, "RUNAI_CLIENT_SECRET": "nope"})
    assert r.returncode == 4 and r.stdout == ""
    assert len(r.stderr.strip().splitlines()) == 1 and "refused the credentials" in r.stderr


def test_unreachable_is_one_line_nonzero():
    r = cli(["failed", "--cluster-id", "3f2c7a1e-8d4b-4c1e-9a57-2b6e0d9c4f11", "--workload-id",
             "0b4e7c2a-1f3d-4e5a-8b6c-9d0e1f2a3b4c", "--runai-url", "http://127.0.0.1:9", "--no-kube", "--json"],
            {"RUNAI_CLIENT_ID": "a", "RUNAI_CLIENT_SECRET": "b"})
    assert r.returncode == 3 and r.stdout == ""
    assert len(r.stderr.strip().splitlines()) == 1 and "cannot reach" in r.stderr


def test_missing_parameters_prints_the_object_and_exits_5():
    """A missing required identifier is still the needs_input object (--json, -o yaml), but not exit 0; each way
    names the flag that supplies it in one line on stderr, as kubectl does."""
    r = cli(["failed", "--workload-name", "job-a", "--json"])
    assert r.returncode == 5, r.stderr
    out = json.loads(r.stdout)
    assert (out["outcome"], out["route"], out["category"]) == ("needs_input", "missing_parameters", None)
    assert out["question"]
    line = ("workload-diagnose: error: --cluster-id and --project (-p) are required: the Run:ai cluster's UUID or "
            "its exact name; the project workload 'job-a' belongs to\n")
    assert r.stderr == line
    as_yaml = cli(["failed", "--workload-name", "job-a", "-o", "yaml"])
    assert as_yaml.returncode == 5 and yaml.safe_load(as_yaml.stdout) == out and as_yaml.stderr == line
    text = cli(["failed", "--workload-name", "job-a"])  # nothing was read: the flags, nothing else
    assert text.returncode == 5 and text.stdout == "" and text.stderr == line
    for args, flag in ((["--workload-id", "0b4e7c2a-1f3d-4e5a-8b6c-9d0e1f2a3b4c"], "--cluster-id is required: "),
                       (["--cluster-id", "gpu-a"], "--workload-id (or --workload-name with -p/--project) is "),
                       (["--cluster-id", "gpu-a", "-p", "ml"], "--workload-name (or --workload-id) is required")):
        r = cli(["failed", *args])
        assert r.returncode == 5 and r.stdout == "" and r.stderr.startswith(f"workload-diagnose: error: {flag}")
    from typer.testing import CliRunner

    from workload_diagnose.agent.entrypoints.cli import app

    helped = CliRunner().invoke(app, ["failed", "--help"], env={"COLUMNS": "200"})
    assert "5 a required identifier is missing" in " ".join(helped.output.split())


def test_other_needs_input_results_still_exit_0(sim):
    """Only the missing identifier has its own code: a workload that does not exist is an answer (exit 0)."""
    s, sc = sim
    env = {"RUNAI_BASE_URL": s.url, "RUNAI_CLIENT_ID": s.client_id, "RUNAI_CLIENT_SECRET": s.client_secret}
    r = cli(["failed", "--cluster-id", sc.args.cluster_id, "--workload-name", "no-such-job", "--project",
             "ml-team", "--no-kube", "--json"], env)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["route"] == "no_matching_workload"


@pytest.mark.parametrize("args", [["--workload-name", "a,projectName==x", "--project", "p"],
                                  ["--workload-id", "../../etc"], ["--lookback", "forever", "--workload-id", "x1"],
                                  ["--now", "yesterday", "--workload-id", "x1"], ["--intent", "maybe"]])
def test_bad_input_is_a_clear_usage_error(args):
    r = cli(["failed", "--cluster-id", "3f2c7a1e-8d4b-4c1e-9a57-2b6e0d9c4f11", *args, "--json",
             "--runai-url", "http://127.0.0.1:9"])
    assert r.returncode == 2 and r.stdout == "" and "error:" in r.stderr


def test_help_lists_the_contract():
    r = cli(["failed", "--help"])
    assert r.returncode == 0
    for flag in ("--cluster-id", "--workload-id", "--workload-name", "--project", "--intent", "--lookback", "--now",
                 "--runai-url", "--kubeconfig", "--no-kube", "--json"):
        assert flag in r.stdout
