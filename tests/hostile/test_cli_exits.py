"""The real CLI (a subprocess) against hostile servers and bad settings: the exit-code cases. Each ends within its
deadline with one line on stderr and its exit code (3 unreachable, 2 bad input, 130 Ctrl-C), never a hang or a
traceback. The cases that end in a limitation (exit 0) run in-process in test_reads.py."""
from __future__ import annotations

import signal
import subprocess
import sys
import time

from tests.hostile.conftest import ROOT, cli_args, cli_env, run_cli
from workload_diagnose.evals.hostile import endless, hang, hostile, raw

STARTUP = 20.0  # a cold interpreter importing langgraph on a loaded 2-core machine
SLACK = 3.0  # from the deadline to the process's exit (interpreter teardown on a loaded machine)


def _one_line_error(stderr: str) -> str:
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert "Traceback" not in stderr, stderr
    assert len(lines) == 1 and lines[0].startswith("workload-diagnose: error: "), stderr
    return lines[0]


def test_hung_token_endpoint_is_one_exchange_within_the_timeout(oom_world):
    with hostile(oom_world, [("POST", r"/api/v1/token$", hang)]) as (srv, sim):
        run = run_cli(cli_args(srv.url, "--timeout", "2"), cli_env(sim))
        assert run.code == 3, run.stderr
        assert "stopped after 2 s (--timeout)" in _one_line_error(run.stderr)
        assert run.since(srv) < 2 + SLACK
        assert srv.count("POST", "/token") == 1  # one exchange shared by every thread, not 3 attempts x 2 threads


def test_endless_body_on_the_workload_is_capped_exit_3(oom_world):
    wl = f"/api/v1/workloads/{oom_world['workloads'][0]['id']}$"
    with hostile(oom_world, [("GET", wl, endless(b'{"id": "', b"x" * 64))]) as (srv, sim):
        run = run_cli(cli_args(srv.url, "--timeout", "20"), cli_env(sim))
        assert run.code == 3, run.stderr
        assert "larger than the 16 MiB cap" in _one_line_error(run.stderr)
        assert srv.sent[wl[:-1]] < 64 * 1024 * 1024  # the client hung up soon after the cap, it did not drain


def test_html_instead_of_the_workload_is_one_line_exit_3(oom_world):
    page = b"<html><body><h1>502 Bad Gateway</h1></body></html>"
    wl = f"/api/v1/workloads/{oom_world['workloads'][0]['id']}$"
    with hostile(oom_world, [("GET", wl, raw(200, page, "text/html"))]) as (srv, sim):
        run = run_cli(cli_args(srv.url), cli_env(sim))
    assert run.code == 3
    assert "not valid JSON (text/html)" in _one_line_error(run.stderr)


def test_ctrl_c_exits_130_within_a_second(oom_world):
    with hostile(oom_world, [("GET", r"/pods$", hang), ("GET", r"/history$", hang)]) as (srv, sim):
        p = subprocess.Popen([sys.executable, "-m", "workload_diagnose.agent.entrypoints.cli", *cli_args(srv.url, "--timeout", "60")],
                             env=cli_env(sim), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            t_end = time.monotonic() + STARTUP + 10
            while srv.count("GET", "/history") == 0 and time.monotonic() < t_end:
                time.sleep(0.05)
            assert srv.count("GET", "/history") == 1, "the diagnosis never reached its parallel reads"
            time.sleep(0.2)
            t0 = time.monotonic()
            p.send_signal(signal.SIGINT)
            out, err = p.communicate(timeout=10)
            took = time.monotonic() - t0
        finally:
            if p.poll() is None:
                p.kill()
    assert p.returncode == 130, err
    assert "interrupted" in _one_line_error(err)
    assert took < 1.5, took


def test_bad_settings_are_one_line_exit_2(tmp_path):
    """A URL without a scheme, a timeout that is not a number, a CA file that does not exist: exit 2 before any read."""
    cases = [
        (cli_args("127.0.0.1:18780"), {}, "--runai-url '127.0.0.1:18780' is not a usable URL"),
        (cli_args(None, "--timeout", "abc"), {"RUNAI_BASE_URL": "https://runai.example.com"},
         "--timeout must be a number of seconds above 0"),
        (cli_args("https://runai.example.com", "--ca-file", str(tmp_path / "missing.pem")), {},
         f"--ca-file {tmp_path / 'missing.pem'}: no such file"),
    ]
    procs = [(subprocess.Popen([sys.executable, "-m", "workload_diagnose.agent.entrypoints.cli", *args], cwd=ROOT, text=True,
                               env=cli_env(**env, RUNAI_CLIENT_ID="x", RUNAI_CLIENT_SECRET="y"),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE), expected) for args, env, expected in cases]
    for p, expected in procs:  # started together: three cold interpreters cost one start-up, not three
        _, err = p.communicate(timeout=60)
        assert p.returncode == 2, err
        assert expected in _one_line_error(err), err
