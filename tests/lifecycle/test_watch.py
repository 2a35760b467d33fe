"""--watch: refreshes in place in a real pseudo-terminal and stops cleanly on Ctrl-C (exit 130); stops by itself
when the first incomplete phase fails or after --max-iterations, and says which. A Pod's name points to the Job or
RayJob that owns it."""
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
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 130, status  # interrupted, as --help documents
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


def _cli(args: list[str]):
    from typer.testing import CliRunner

    from workload_diagnose.agent.entrypoints.cli import app

    return CliRunner().invoke(app, args)


def test_watch_says_why_it_stopped(tmp_path, quota_server):
    m = recording.meta("kueue-quota")
    res = _cli(["lifecycle", m["name"], "-n", m["namespace"], "--kubeconfig", _kc(tmp_path, quota_server.url),
                "--watch", "--interval", "10ms", "--max-iterations", "2"])
    assert res.exit_code == 0, res.output
    assert res.stderr.strip().splitlines()[-1] == "workload-diagnose: watch stopped: 2 refresh(es) done " \
                                                  "(--max-iterations)"
    srv = ReplayServer(recording.CASSETTES / "crashloop.yaml")
    try:
        c = recording.meta("crashloop")
        res = _cli(["lifecycle", c["name"], "-n", c["namespace"], "--kubeconfig", _kc(tmp_path, srv.url), "--watch",
                    "--interval", "10ms", "-o", "yaml"])
    finally:
        srv.close()
    assert res.exit_code == 0 and yaml.safe_load(res.stdout)["layer"]["name"] == "Container start"
    assert res.stderr.startswith("workload-diagnose: watch stopped: Container start failed (")


def _pod_routes(ns: str, objects: dict[str, dict]):
    """Answer a GET of each object's path with it (the cassettes hold no single-object pod reads)."""
    def routes(path: str):
        for p, obj in objects.items():
            if path == p:
                return 200, json.dumps(obj).encode(), "application/json"
        return None
    return routes


def test_a_pod_name_points_to_its_job(tmp_path):
    c = recording.meta("crashloop")
    ns = c["namespace"]
    doc = yaml.safe_load((recording.CASSETTES / "crashloop.yaml").read_text())
    pods = next(json.loads(i["response"]["body"]["string"]) for i in doc["interactions"]
                if "/pods?" in i["request"]["uri"])
    pod = pods["items"][0]  # train-c1: the Job controller's job-name label names its Job
    name = pod["metadata"]["name"]
    srv = ReplayServer(recording.CASSETTES / "crashloop.yaml",
                       routes=_pod_routes(ns, {f"/api/v1/namespaces/{ns}/pods/{name}": pod}))
    try:
        res = _cli(["lifecycle", name, "-n", ns, "--kubeconfig", _kc(tmp_path, srv.url)])
        as_json = _cli(["lifecycle", name, "-n", ns, "--kubeconfig", _kc(tmp_path, srv.url), "--json"])
    finally:
        srv.close()
    assert res.exit_code == 0, res.output
    assert res.stdout.startswith("First incomplete layer: Submitted (pending)")  # no Job or RayJob of that name
    assert f"{name} is a Pod of Job train: workload-diagnose lifecycle train -n {ns}" in res.stdout
    assert json.loads(as_json.stdout)["run"]["kind"] is None  # the JSON object is the result, as it was
    assert f"{name} is a Pod of Job train" in as_json.stderr


def test_a_ray_pod_points_to_its_rayjob(tmp_path):
    c = recording.meta("crashloop")
    ns = c["namespace"]
    pod = {"kind": "Pod", "metadata": {"name": "ray-ft-raycluster-head-x1", "namespace": ns, "ownerReferences": [
        {"apiVersion": "ray.io/v1", "kind": "RayCluster", "name": "ray-ft-raycluster", "uid": "u1",
         "controller": True}]}}
    rc = {"kind": "RayCluster", "metadata": {"name": "ray-ft-raycluster", "namespace": ns, "ownerReferences": [
        {"apiVersion": "ray.io/v1", "kind": "RayJob", "name": "ray-ft", "uid": "u2", "controller": True}]}}
    srv = ReplayServer(recording.CASSETTES / "crashloop.yaml", routes=_pod_routes(ns, {
        f"/api/v1/namespaces/{ns}/pods/ray-ft-raycluster-head-x1": pod,
        f"/apis/ray.io/v1/namespaces/{ns}/rayclusters/ray-ft-raycluster": rc}))
    try:
        res = _cli(["lifecycle", "ray-ft-raycluster-head-x1", "-n", ns, "--kubeconfig", _kc(tmp_path, srv.url), "-v"])
    finally:
        srv.close()
    assert res.exit_code == 0, res.output
    assert (f"ray-ft-raycluster-head-x1 is a Pod of RayJob ray-ft: workload-diagnose lifecycle ray-ft -n {ns} "
            "--kind rayjob") in res.stdout
    assert f"GET /api/v1/namespaces/{ns}/pods/ray-ft-raycluster-head-x1" in res.stderr  # -v shows the reads
    assert all(r.startswith("GET ") for r in srv.requests)
