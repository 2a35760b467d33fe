"""--watch: refreshes in place in a real pseudo-terminal and stops cleanly on Ctrl-C; stops by itself when the
first incomplete phase fails or after --max-iterations."""
from __future__ import annotations

import json
import os
import pty
import select
import signal
import sys
import time
from pathlib import Path

import pytest
import yaml

from tests.lifecycle import recording
from tests.lifecycle.replay_server import ReplayServer

REPO = Path(__file__).resolve().parents[2]


def _kc(tmp_path: Path, url: str) -> str:
    from workload_diagnose.tools.kube import kubeconfig_for

    p = tmp_path / "kc"
    p.write_text(yaml.safe_dump(kubeconfig_for(url, "replay-token")))
    return str(p)


@pytest.fixture
def quota_server():
    s = ReplayServer(recording.CASSETTES / "kueue-quota.yaml")
    yield s
    s.close()


def _read_until(fd: int, needle: bytes, timeout: float) -> bytes:
    out = b""
    end = time.monotonic() + timeout
    while needle not in out and time.monotonic() < end:
        r, _, _ = select.select([fd], [], [], 0.2)
        if r:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
    return out


def test_watch_in_a_pty_stops_on_ctrl_c(tmp_path, quota_server):
    m = recording.meta("kueue-quota")
    argv = [sys.executable, "-c", "from workload_diagnose.agent.entrypoints.cli import main; main()", "lifecycle", m["name"], "-n", m["namespace"],
            "--kubeconfig", _kc(tmp_path, quota_server.url), "--watch", "--interval", "0.3s"]
    pid, fd = pty.fork()
    if pid == 0:  # the child: a session leader whose controlling terminal is the pty
        os.chdir(REPO)
        os.execv(sys.executable, argv)
    try:
        out = _read_until(fd, b"# refresh 3,", 60)
        assert b"# refresh 3," in out, out[-2000:]
        assert b"\x1b[H\x1b[2J" in out  # refreshed in place
        assert b"First incomplete layer: Kueue admission (active)" in out
        os.write(fd, b"\x03")  # Ctrl-C typed at the terminal: the line discipline sends SIGINT
        out += _read_until(fd, b"watch stopped", 20)
        _, status = os.waitpid(pid, 0)
        pid = 0
    finally:
        if pid:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        os.close(fd)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
    assert b"watch stopped (Ctrl-C)" in out and b"Traceback" not in out
    assert all(r.startswith("GET ") for r in quota_server.requests)


def test_watch_max_iterations_json_lines(tmp_path, quota_server):
    from typer.testing import CliRunner

    from workload_diagnose.agent.entrypoints.cli import app

    m = recording.meta("kueue-quota")
    res = CliRunner().invoke(app, ["lifecycle", m["name"], "-n", m["namespace"], "--kubeconfig",
                                   _kc(tmp_path, quota_server.url), "--watch", "--interval", "10ms",
                                   "--max-iterations", "3", "--json"])
    assert res.exit_code == 0, res.output
    lines = [json.loads(x) for x in res.stdout.splitlines() if x.strip()]
    assert len(lines) == 3 and all(d["first_incomplete"] == "Kueue admission" for d in lines)
    # Kueue's served version is discovered once per run, not per refresh: three refreshes, one discovery GET
    assert quota_server.requests.count("GET /apis/kueue.x-k8s.io") == 1, quota_server.requests
    assert sum("/apis/kueue.x-k8s.io/v1beta2/" in r for r in quota_server.requests) == 3


def test_watch_stops_when_first_incomplete_fails(tmp_path):
    from typer.testing import CliRunner

    from workload_diagnose.agent.entrypoints.cli import app

    srv = ReplayServer(recording.CASSETTES / "crashloop.yaml")
    try:
        m = recording.meta("crashloop")
        res = CliRunner().invoke(app, ["lifecycle", m["name"], "-n", m["namespace"], "--kubeconfig",
                                       _kc(tmp_path, srv.url), "--watch", "--interval", "10ms", "--json"])
    finally:
        srv.close()
    assert res.exit_code == 0, res.output
    lines = [json.loads(x) for x in res.stdout.splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0]["layer"]["name"] == "Container start"
