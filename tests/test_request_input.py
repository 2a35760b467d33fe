"""User input becomes a request in one place: one-line errors before any read, ids normalised, Option A xor B,
and a workload whose cluster Run:ai does not report is a limitation, not a mismatch (issue 10 item 13)."""
from __future__ import annotations

import copy
import json
import os
import subprocess
import sys

import pytest

from workload_diagnose.agent.api import InvalidInput, diagnose
from workload_diagnose.evals.runner import live
from workload_diagnose.evals.scenarios import load_scenario
from workload_diagnose.evals.simulator import running_simulator

SC = load_scenario("core/crash-exit-code")
A = SC.args


@pytest.mark.parametrize("kwargs, words", [
    ({"lookback": "7x"}, "use a number and m/h/d/w"),
    ({"lookback": "0d"}, "use a number and m/h/d/w"),
    ({"now": "yesterday"}, "ISO 8601"),
    ({"intent": "whenever"}, "terminal' or 'active"),
    ({"workload_name": "train-42", "project": "ml-team"}, "not both"),
    ({"project": "ml-team"}, "not both"),
])
def test_bad_input_is_one_line_before_any_read(kwargs, words):
    args = {"cluster_id": A.cluster_id, "workload_id": A.workload_id, "runai_url": "http://127.0.0.1:9"} | kwargs
    with pytest.raises(InvalidInput) as e:
        diagnose(**args)
    msg = str(e.value)
    assert words in msg and "\n" not in msg and "pydantic" not in msg


def test_bad_lookback_exits_2_with_one_line_on_stderr():
    env = {k: v for k, v in os.environ.items() if not k.startswith("RUNAI_")}
    p = subprocess.run([sys.executable, "-m", "workload_diagnose.agent.entrypoints.cli", "failed", "--cluster-id", A.cluster_id, "--workload-id",
                        A.workload_id, "--lookback", "7x", "--runai-url", "http://127.0.0.1:9", "--no-kube"],
                       capture_output=True, text=True, env=env, timeout=60)
    assert p.returncode == 2
    assert len(p.stderr.strip().splitlines()) == 1 and "errors.pydantic.dev" not in p.stderr


def test_upper_case_uuids_are_the_same_workload():
    with running_simulator(SC.world) as sim:
        kw = dict(runai_url=sim.url, client_id=sim.client_id, client_secret=sim.client_secret, use_kube=False,
                  now=A.now, retry_sleep=lambda s: None)
        lower = diagnose(cluster_id=A.cluster_id, workload_id=A.workload_id, **kw)
        upper = diagnose(cluster_id=A.cluster_id.upper(), workload_id=A.workload_id.upper(), **kw)
    assert (upper.outcome, upper.category) == (lower.outcome, lower.category) == ("diagnosed", "CRASH_APP_ERROR")
    assert upper.model_dump_json() == lower.model_dump_json()


def test_a_workload_without_a_cluster_id_is_a_limitation_not_a_mismatch():
    world = copy.deepcopy(json.loads(SC.world.read_text()))
    del world["workloads"][0]["clusterId"]
    res, _ = live(SC, world=world)
    assert (res.outcome, res.category) == ("diagnosed", "CRASH_APP_ERROR")
    assert any("did not report the cluster" in x for x in res.limitations)
