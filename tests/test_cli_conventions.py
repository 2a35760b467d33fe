"""CLI conventions of the product commands (issue 10 item 17): --version, -h, shell completion, flags shown as
flags, --intent as a choice, -v/--verbose request lines, NO_COLOR, no wrapping of the Workload line, elapsed time
on the spinner. What only happens on a terminal is tested through a real pseudo-terminal (the pty module)."""
from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time

import pytest

from workload_diagnose.evals.scenarios import load_scenario
from workload_diagnose.evals.simulator import running_simulator

EXE = [sys.executable, "-m", "workload_diagnose.agent.entrypoints.cli"]
ANSI = re.compile(rb"\x1b")
REQUEST_LINE = re.compile(r"^workload-diagnose: (GET /api/v1/\S+) -> (\d{3}) in (\d+) ms$")


def _env(extra: dict | None = None) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RUNAI_") and k not in ("NO_COLOR", "COLUMNS",
                                                                                         "FORCE_COLOR", "TERM")}
    env["TERM"] = "xterm-256color"
    env.update(extra or {})
    return env


def run(args: list[str], env_extra: dict | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(EXE + args, capture_output=True, text=True, env=_env(env_extra), timeout=timeout)


def run_in_pty(args: list[str], env_extra: dict | None = None, cols: int = 80, timeout: float = 60
               ) -> tuple[int, bytes]:
    """Run the CLI with stdin/stdout/stderr on one real pseudo-terminal of ``cols`` columns; (exit code, bytes)."""
    env = _env(env_extra)
    pid, fd = pty.fork()
    if pid == 0:  # child: the pty is its controlling terminal
        try:
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 50, cols, 0, 0))
            os.execve(sys.executable, [sys.executable, "-m", "workload_diagnose.agent.entrypoints.cli", *args], env)
        finally:
            os._exit(127)
    out = b""
    end = time.monotonic() + timeout
    try:
        while time.monotonic() < end:
            r, _, _ = select.select([fd], [], [], 0.2)
            if r:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:  # EIO: the child closed the terminal
                    break
                if not chunk:
                    break
                out += chunk
        _, status = os.waitpid(pid, 0)
        pid = 0
    finally:
        if pid:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        os.close(fd)
    return os.waitstatus_to_exitcode(status), out


@pytest.fixture(scope="module")
def sim():
    sc = load_scenario("core/oom-metrics")
    with running_simulator(sc.world, delay_ms=150) as s:
        yield s, sc


def _creds(s) -> dict:
    return {"RUNAI_BASE_URL": s.url, "RUNAI_CLIENT_ID": s.client_id, "RUNAI_CLIENT_SECRET": s.client_secret}


def invoke(args: list[str], env: dict | None = None):
    """The real product app in-process (click's runner): for what does not depend on a terminal."""
    from typer.testing import CliRunner

    from workload_diagnose.agent.entrypoints.cli import app

    return CliRunner().invoke(app, args, prog_name="workload-diagnose", env={"COLUMNS": "120", **(env or {})})


def test_version_and_short_help():
    from importlib.metadata import version

    r = run(["--version"])  # once as a real process: the console entry point's own name
    assert r.returncode == 0 and r.stdout.strip() == f"workload-diagnose {version('workload-diagnose')}"
    for args in (["-h"], ["failed", "-h"], ["lifecycle", "-h"], ["simulate", "-h"]):
        r = invoke(args)
        assert r.exit_code == 0 and "Usage: workload-diagnose" in r.output and "-h" in r.output, args
    assert invoke(["failed", "-h"]).output == invoke(["failed", "--help"]).output


def test_help_shows_flags_as_flags_and_intent_as_a_choice():
    for cmd in ("failed", "lifecycle"):
        out = invoke([cmd, "--help"]).output
        assert "<bool>" not in out, out
        for line in out.splitlines():
            if re.match(r"^\W*--(json|no-kube|verbose|help|watch|run-profile)\s", line):
                assert not re.search(r"<\w+>", line), line
    out = invoke(["failed", "--help"]).output
    assert re.search(r"--intent\s+\[terminal\|active\]", out), out
    assert re.search(r"--verbose\s+-v", out)
    root = invoke(["--help"]).output
    assert "<bool>" not in root and "--version" in root and "--install-completion" in root


def test_a_bad_intent_is_the_same_one_line_error():
    r = run(["failed", "--intent", "maybe", "--cluster-id", "3f2c7a1e-8d4b-4c1e-9a57-2b6e0d9c4f11"])
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.strip().splitlines() == ["workload-diagnose: error: --intent must be 'terminal' or 'active', "
                                             "not 'maybe'"]


def test_shell_completion_script_and_choices():
    r = invoke(["--show-completion", "bash"])
    assert r.exit_code == 0 and "_workload_diagnose_completion" in r.output and "complete " in r.output
    env = {"_WORKLOAD_DIAGNOSE_COMPLETE": "complete_bash", "COMP_WORDS": "workload-diagnose failed --intent ",
           "COMP_CWORD": "3"}
    r = subprocess.run(EXE, capture_output=True, text=True, env=_env(env), timeout=60)  # as the shell calls it
    assert r.stdout.split() == ["terminal", "active"], r.stdout + r.stderr
    r = invoke([], {**env, "COMP_WORDS": "workload-diagnose fa", "COMP_CWORD": "1"})
    assert r.output.split() == ["failed"]


def test_verbose_prints_each_request_from_the_invocations_the_result_cites(sim):
    s, sc = sim
    r = run(["failed", *sc.cli_args(), "--no-kube", "--json", "-v"], _creds(s))
    assert r.returncode == 0, r.stderr
    calls = json.loads(r.stdout)["tool_calls"]  # stdout is still exactly one JSON object
    lines = r.stderr.strip().splitlines()
    parsed = [REQUEST_LINE.match(ln) for ln in lines]
    assert all(parsed), lines
    assert sorted(m.group(1) for m in parsed) == sorted(c["request"] for c in calls)
    assert all(int(m.group(2)) == 200 for m in parsed)
    assert all(int(m.group(3)) >= 100 for m in parsed)  # the simulator delays every answer by 150 ms
    assert s.client_secret not in r.stderr and "Bearer" not in r.stderr


def test_verbose_lines_are_redacted(sim):
    from workload_diagnose.agent.entrypoints.terminal import request_printer
    from workload_diagnose.tools.base import Invocation

    got: list[str] = []
    request_printer(got.append)(Invocation(tool="list_workloads", request="GET /api/v1/workloads?"
                                           "filterBy=name==x&token=ghp_" + "a1B2" * 9, status_code=None), 3.2)
    assert got and "ghp_a1B2" not in got[0] and "-> no answer in 3 ms" in got[0]


def test_terminal_report_is_styled_never_wraps_the_workload_line_and_the_spinner_counts(sim):
    s, sc = sim
    code, out = run_in_pty(["failed", *sc.cli_args(), "--no-kube"], _creds(s), cols=80)
    assert code == 0, out[-2000:]
    assert ANSI.search(out)  # a terminal without NO_COLOR gets the bold headings (the test below can fail)
    text = re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]", b"", out).decode()
    workload = next(ln for ln in text.replace("\r\n", "\n").split("\n") if ln.startswith("Workload: "))
    assert len(workload) > 80 and workload.rstrip().endswith(f"ID: {sc.args.workload_id}"), workload
    times = [float(t) for t in re.findall(rb"\xe2\x80\xa6 (\d+\.\d)s", out)]  # "running get_…… 0.4s"
    assert times and max(times) >= 0.3, out[:1500]  # at least two 150 ms round trips were waited for
    assert times == sorted(times)


def test_no_color_means_no_escape_sequence_at_all(sim):
    s, sc = sim
    code, out = run_in_pty(["failed", *sc.cli_args(), "--no-kube"], {**_creds(s), "NO_COLOR": "1"}, cols=80)
    assert code == 0 and b"Category: OOM_KILLED" in out and not ANSI.search(out), out[:400]
    assert re.search(rb"workload-diagnose: running \w+\S* \(\d+\.\ds\)", out), out[:600]
    code, out = run_in_pty(["failed", "--help"], {"NO_COLOR": "1"}, cols=80)  # typer's rich help: bold otherwise
    assert code == 0 and b"--intent" in out and not ANSI.search(out), out[:400]


def test_lifecycle_verbose_prints_each_request_it_made(tmp_path):
    """`lifecycle -v`: the same request lines, one per read of the refresh (against a recorded apiserver)."""
    import yaml

    from tests.lifecycle import recording
    from tests.lifecycle.replay_server import ReplayServer
    from workload_diagnose.tools.kube import kubeconfig_for

    server = ReplayServer(recording.CASSETTES / "kueue-quota.yaml")
    try:
        kc = tmp_path / "kc"
        kc.write_text(yaml.safe_dump(kubeconfig_for(server.url, "replay-token")))
        m = recording.meta("kueue-quota")
        r = run(["lifecycle", m["name"], "-n", m["namespace"], "--kubeconfig", str(kc), "--json", "-v"])
    finally:
        server.close()
    assert r.returncode == 0, r.stderr
    calls = json.loads(r.stdout)["tool_calls"]
    lines = r.stderr.strip().splitlines()
    got = [re.match(r"^workload-diagnose: (GET /\S+) -> (\d{3}) in \d+ ms$", ln) for ln in lines]
    assert all(got) and [g.group(1) for g in got] == [c["request"] for c in calls], (lines, calls)
    assert "replay-token" not in r.stderr


def test_lifecycle_watch_under_no_color_writes_no_escape_sequence(tmp_path):
    """--watch refreshes in place with an escape sequence on a terminal (tests/lifecycle/test_watch.py); under
    NO_COLOR it prints each refresh below the last instead."""
    import yaml

    from tests.lifecycle import recording
    from tests.lifecycle.replay_server import ReplayServer
    from workload_diagnose.tools.kube import kubeconfig_for

    server = ReplayServer(recording.CASSETTES / "kueue-quota.yaml")
    try:
        kc = tmp_path / "kc"
        kc.write_text(yaml.safe_dump(kubeconfig_for(server.url, "replay-token")))
        m = recording.meta("kueue-quota")
        code, out = run_in_pty(["lifecycle", m["name"], "-n", m["namespace"], "--kubeconfig", str(kc), "--watch",
                                "--interval", "0.1s", "--max-iterations", "2"], {"NO_COLOR": "1"})
    finally:
        server.close()
    assert code == 0 and b"# refresh 2," in out and b"# refresh 1," in out, out[-1500:]
    assert not ANSI.search(out), out[:600]


def _all_commands() -> list[str]:
    import click

    from workload_diagnose.agent.entrypoints.cli import app

    group = __import__("typer").main.get_command(app)
    return group.list_commands(click.Context(group))


def test_every_help_has_examples_and_plain_words():
    """Every command's --help ends with an Examples section of real command lines; no help speaks of the
    skill's 'Option A / Option B'."""
    names = _all_commands()
    assert {"failed", "triage", "lifecycle", "chat", "ask", "serve", "mcp", "simulate"} <= set(names)
    for cmd in [*names, None]:
        out = invoke([cmd, "--help"] if cmd else ["--help"]).output
        assert "Option A" not in out and "Option B" not in out, cmd
        if cmd in ("demo", "eval", "record", "guardrails-report", "bench"):
            continue  # developer commands of the evals plugin, not the product's
        section = out.split("Examples:", 1)
        assert len(section) == 2, f"{cmd or 'the root'} --help has no Examples section"
        assert "workload-diagnose " + (cmd or "") in section[1], cmd


def test_short_flags_and_output_formats_everywhere():
    for cmd, flags in {"failed": ("-p", "-o", "-v"), "triage": ("-p", "-o", "-v"), "lifecycle": ("-o", "-v"),
                       "ask": ("-o", "-v"), "chat": ("-v",)}.items():
        out = invoke([cmd, "--help"]).output
        for flag in flags:
            assert re.search(rf"(^|\s){flag}(\s|$)", out, re.M), (cmd, flag)
    r = run(["failed", "-o", "xml", "--cluster-id", "c"])
    assert r.returncode == 2 and r.stderr.strip() == ("workload-diagnose: error: -o/--output must be text, json or "
                                                      "yaml, not 'xml'")
    r = run(["failed", "--json", "-o", "yaml", "--cluster-id", "c"])
    assert r.returncode == 2 and "--json and -o yaml cannot be used together" in r.stderr


def test_a_cluster_name_is_resolved_as_the_chat_resolves_it(sim):
    """``--cluster-id NAME`` (and ``--cluster``) reads the cluster list and diagnoses exactly as with the UUID;
    an unknown name is one line listing the clusters there are, before any workload read."""
    s, sc = sim
    by_id = run(["failed", *sc.cli_args(), "--no-kube", "--json"], _creds(s))
    args = sc.cli_args()
    named = [*args[:args.index("--cluster-id")], "--cluster", "gpu-3f2c7a1e", *args[args.index("--cluster-id") + 2:]]
    by_name = run(["failed", *named, "--no-kube", "--json", "-v"], _creds(s))
    assert by_name.returncode == 0 and by_name.stdout == by_id.stdout, by_name.stderr
    assert "workload-diagnose: GET /api/v1/clusters -> 200" in by_name.stderr
    unknown = run(["failed", "--cluster-id", "gpu-nope", "--workload-id", sc.args.workload_id, "--no-kube"],
                  _creds(s))
    assert unknown.returncode == 2 and unknown.stdout == ""
    assert unknown.stderr == ("workload-diagnose: error: no cluster is named exactly 'gpu-nope' (clusters you can "
                              "see: gpu-3f2c7a1e)\n")


def test_missing_credentials_name_the_variables(sim):
    s, sc = sim
    r = run(["failed", *sc.cli_args(), "--no-kube"], {"RUNAI_BASE_URL": s.url})
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.startswith("workload-diagnose: error: RUNAI_CLIENT_ID / RUNAI_CLIENT_SECRET are not set: ")
    r = run(["failed", *sc.cli_args(), "--no-kube"], {"RUNAI_BASE_URL": s.url, "RUNAI_CLIENT_ID": "x"})
    assert r.returncode == 2 and "RUNAI_CLIENT_SECRET is not set" in r.stderr
    r = run(["ask", f"why did workload {sc.args.workload_id} fail on cluster {sc.args.cluster_id}?", "--no-kube"],
            {"RUNAI_BASE_URL": s.url, "XDG_STATE_HOME": "/tmp/wd-no-credentials-state"})
    assert r.returncode == 2 and "RUNAI_CLIENT_ID / RUNAI_CLIENT_SECRET are not set" in r.stderr


def test_ask_verbose_and_yaml(sim, tmp_path):
    import yaml

    s, sc = sim
    r = run(["ask", f"why did workload {sc.args.workload_id} fail on cluster {sc.args.cluster_id}?", "--no-kube",
             "--now", sc.args.now, "-v", "-o", "yaml"], {**_creds(s), "XDG_STATE_HOME": str(tmp_path)})
    assert r.returncode == 0, r.stderr
    assert yaml.safe_load(r.stdout)["diagnosis"]["category"] == "OOM_KILLED"
    shown = [x for x in r.stderr.splitlines() if x.startswith("workload-diagnose: GET ")]
    assert shown and all(REQUEST_LINE.match(x) for x in shown), r.stderr


def test_a_cluster_name_two_clusters_share_is_one_line_naming_both_never_a_guess():
    """Two clusters with the same exact name: ``failed`` and ``triage`` stop in one line (exit 2) that names both
    UUIDs, after the cluster list and before any workload read."""
    from tests.chat.worlds import CL, NEW, OTHER_CL, chat_world

    world = chat_world(clusters=[{"uuid": CL, "name": "gpu-east"}, {"uuid": OTHER_CL, "name": "gpu-east"}])
    with running_simulator(world) as s:
        for args in (["failed", "--cluster-id", "gpu-east", "--workload-id", NEW, "--no-kube"],
                     ["triage", "--cluster-id", "gpu-east", "--no-kube", "--json"]):
            r = run(args, _creds(s))
            assert r.returncode == 2 and r.stdout == "", (args, r.stdout, r.stderr)
            assert r.stderr == (f"workload-diagnose: error: 2 clusters are named 'gpu-east' ({CL}, {OTHER_CL}): "
                                "give the cluster's UUID\n"), args
        assert [p for _, p in s.requests if p != "/api/v1/token"] == ["/api/v1/clusters", "/api/v1/clusters"]


def test_the_commands_the_docs_say_have_verbose_are_exactly_those_that_have_it():
    """docs/commands.md names the commands with -v/--verbose; each has it, and every other product command is a
    server or the simulator (serve logs each request in its access log)."""
    from pathlib import Path

    text = " ".join((Path(__file__).resolve().parents[1] / "docs" / "commands.md").read_text().split())
    m = re.search(r"Every command that answers a question \(([^)]+)\) has `-v`/`--verbose`", text)
    assert m, "the Conventions sentence on -v changed: update this test"
    named = re.findall(r"`([a-z-]+)`", m.group(1))
    has_v = {c for c in _all_commands() if re.search(r"(^|\s)-v(\s|,|$)", invoke([c, "--help"]).output, re.M)}
    assert set(named) <= has_v, set(named) - has_v
    developer = {"demo", "eval", "record", "guardrails-report", "bench"}
    assert set(_all_commands()) - set(named) - developer == {"serve", "mcp", "simulate"}
