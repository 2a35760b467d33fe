"""``ask`` as a separate process: the same thread continues across two processes on SQLite (the default store in
the XDG state directory) and on a real PostgreSQL server; a few scenarios through ``ask`` give exactly the
``failed --json`` object; bad input is one line, never a traceback."""
from __future__ import annotations

import copy
import json

import pytest

from tests.chat.phrasing import ROOT
from tests.chat.procs import ask_json, env_for, run
from tests.chat.worlds import CL, NEW, NOW, chat_world

KEYS = {"thread_id", "reply", "needs_input", "missing", "diagnosis", "usage"}


@pytest.fixture
def sim():
    from workload_diagnose.evals.simulator import running_simulator

    with running_simulator(chat_world()) as s:
        yield s


def _two_turns(sim, env_a: dict, env_b: dict, *store: str) -> dict:
    first = ask_json(f"why did my workload {NEW} fail?", sim, env_a, "--thread", "t-1", "--now", NOW, *store)
    assert set(first) == KEYS
    assert first["needs_input"] and first["missing"] == ["cluster_id"] and first["diagnosis"] is None
    assert first["usage"]["llm_calls"] == 0
    second = ask_json(CL, sim, env_b, "--thread", "t-1", "--now", NOW, *store)  # another process
    assert second["thread_id"] == "t-1" and not second["needs_input"] and second["missing"] == []
    assert second["diagnosis"]["category"] == "OOM_KILLED" and second["diagnosis"]["workload"]["id"] == NEW
    return second


def test_thread_continues_across_processes_sqlite_in_xdg_state_dir(sim, tmp_path):
    from workload_diagnose.agent.api import diagnose

    env = env_for(sim, tmp_path / "state")
    second = _two_turns(sim, env, env)
    assert (tmp_path / "state" / "workload-diagnose" / "chat.sqlite").exists()
    failed = diagnose(cluster_id=CL, workload_id=NEW, now=NOW, use_kube=False, runai_url=sim.url,
                      client_id=sim.client_id, client_secret=sim.client_secret).model_dump(mode="json")
    assert second["diagnosis"] == failed  # what `failed --json` prints for the same workload


def test_thread_continues_across_processes_postgres(sim, tmp_path, postgres_dsn):
    env_flag = env_for(sim, tmp_path / "a")
    env_dsn = env_for(sim, tmp_path / "b", WD_CHAT_POSTGRES_DSN=postgres_dsn)
    first = ask_json(f"why did my workload {NEW} fail?", sim, env_flag, "--thread", "pg-1", "--now", NOW,
                     "--store", postgres_dsn)
    assert first["missing"] == ["cluster_id"]
    second = ask_json(f"cluster {CL}", sim, env_dsn, "--thread", "pg-1", "--now", NOW)  # DSN from the environment
    assert second["diagnosis"]["category"] == "OOM_KILLED"
    assert not (tmp_path / "a" / "workload-diagnose" / "chat.sqlite").exists()
    assert not (tmp_path / "b" / "workload-diagnose" / "chat.sqlite").exists()


@pytest.mark.parametrize("scenario,question", [  # Option A is compared in the SQLite test above
    ("core/option-b-active-crashloop", "why is my pod CrashLoopBackOff? it's {workload_name} in project {project}, "
                                       "cluster {cluster_id}"),
])
def test_ask_subprocess_gives_the_failed_json_object(tmp_path, scenario, question):
    from workload_diagnose.evals.simulator import running_simulator

    sc = ROOT / "evals" / "scenarios" / scenario
    args = json.loads((sc / "case.json").read_text())["args"]
    with running_simulator(copy.deepcopy(json.loads((sc / "world.json").read_text()))) as s:
        env = env_for(s, tmp_path)
        flags = [f"--{k.replace('_', '-')}={v}" for k, v in args.items()]
        p = run(["failed", *flags, "--runai-url", s.url, "--no-kube", "--json"], env)
        assert p.returncode == 0, p.stderr
        failed = json.loads(p.stdout)
        got = ask_json(question.format(**args), s, env, "--now", args["now"])
    assert got["diagnosis"] == failed and not got["needs_input"]


def test_bad_input_is_one_line_not_a_traceback(sim, tmp_path):
    env = env_for(sim, tmp_path)
    p = run(["ask", "hi", "--thread", "../x", "--runai-url", sim.url, "--no-kube"], env)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "Traceback" not in p.stderr
    p = run(["ask", f"why did {NEW} fail on cluster {CL}?", "--runai-url", "http://127.0.0.1:9", "--no-kube"], env)
    assert p.returncode == 3 and p.stderr.startswith("workload-diagnose: error:") and "Traceback" not in p.stderr
