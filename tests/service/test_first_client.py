"""The service as its first client meets it: ``workload-diagnose serve`` started as a user starts it (a process, API
tokens from the environment, the simulator as Run:ai), the curl commands of docs/service.md run as written (only the port is
the test's), one access-log line per request naming the token and never its text, a taken port refused in one line
before anything says "listening on"."""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from workload_diagnose.agent.service import workers as procs
from workload_diagnose.evals.scenarios import load_scenario
from workload_diagnose.evals.simulator import running_simulator
from tests.service.live import free_port

ROOT = Path(__file__).resolve().parents[2]
BOT_TOKEN = "wd-readme-" + hashlib.sha256(b"readme").hexdigest()[:24]
CURL = shutil.which("curl")


def readme_curls() -> list[str]:
    """Every curl command of the first section of the service's page (docs/service.md), continuation lines joined."""
    text = (ROOT / "docs" / "service.md").read_text()
    start = text.index("## Start it and send a first request")
    section = text[start:text.index("\n## ", start + 5)]
    out: list[str] = []
    for block in re.findall(r"```bash\n(.*?)```", section, re.S):
        joined = re.sub(r"\\\n\s*", " ", block)
        out += [line.strip() for line in joined.splitlines() if line.strip().startswith("curl ")]
    return out


class Serve:
    """``workload-diagnose serve`` in its own process; stderr collected line by line."""

    def __init__(self, *args: str, env: dict):
        self.lines: list[str] = []
        self.p = subprocess.Popen([sys.executable, "-m", "workload_diagnose.agent.entrypoints.cli", "serve", *args],
                                  env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self._t = threading.Thread(target=self._read, daemon=True)
        self._t.start()

    def _read(self) -> None:
        for line in self.p.stderr:
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, word: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while not any(word in ln for ln in self.lines):
            assert self.p.poll() is None or any(word in ln for ln in self.lines), "\n".join(self.lines)
            assert time.monotonic() < deadline, f"no {word!r} in:\n" + "\n".join(self.lines)
            time.sleep(0.05)

    def stop(self) -> int:
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
        rc = self.p.wait(60)
        self._t.join(10)
        return rc


def _env(**extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WD_", "RUNAI_"))}
    return {**env, "WD_KUBE": "off", **extra}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """serve (tokens auth, one token named readme-bot) on the simulator world the curl commands' ids come from."""
    sc = load_scenario("core/option-b-terminal")
    tokens = {"tokens": [{"name": "readme-bot", "sha256": hashlib.sha256(BOT_TOKEN.encode()).hexdigest(),
                          "clusters": ["*"], "projects": ["*"]}]}
    with running_simulator(json.loads(sc.world.read_text())) as sim:
        port = free_port()
        env = _env(RUNAI_BASE_URL=sim.url, RUNAI_CLIENT_ID=sim.client_id, RUNAI_CLIENT_SECRET=sim.client_secret,
                   WD_API_TOKENS=json.dumps(tokens), WD_CHAT_STORE=str(tmp_path_factory.mktemp("s") / "c.sqlite"))
        s = Serve("--port", str(port), env=env)
        try:
            s.wait_for("listening on")
            yield port, s
        finally:
            assert s.stop() == 0


def _curl(command: str, port: int) -> subprocess.CompletedProcess:
    assert "localhost:8080" in command
    return subprocess.run(["bash", "-c", command.replace("localhost:8080", f"localhost:{port}")],
                          env={**os.environ, "BOT_TOKEN": BOT_TOKEN}, capture_output=True, text=True, timeout=60)


@pytest.mark.skipif(CURL is None, reason="curl is not installed")
def test_the_readmes_curl_commands_work_as_written(served):
    port, s = served
    commands = readme_curls()
    assert any("/v1/diagnoses" in c for c in commands) and any("/readyz" in c for c in commands), commands
    for command in commands:
        p = _curl(command, port)
        assert p.returncode == 0, p.stderr
        out = json.loads(p.stdout)
        if "/v1/diagnoses" in command:
            assert out["workload"]["name"] == "nightly-train" and out["workload"]["project"] == "ml-team", out
            assert {"outcome", "category", "evidence", "report"} <= set(out)
        if "/readyz" in command:
            assert out["status"] == "ok" and out["runai"] == "reachable"


@pytest.mark.skipif(CURL is None, reason="curl is not installed")
def test_curl_without_the_json_header_gets_one_line_that_says_the_fix(served):
    port, _ = served
    p = subprocess.run([CURL, "-s", "-w", "\n%{http_code}", f"localhost:{port}/v1/diagnoses", "-H",
                        f"Authorization: Bearer {BOT_TOKEN}", "-d", '{"cluster_id": "c1", "workload_id": "w1"}'],
                       capture_output=True, text=True, timeout=60)
    body, status = p.stdout.rsplit("\n", 1)
    assert status == "415" and "\n" not in body
    assert json.loads(body)["detail"].endswith("(curl: -H 'Content-Type: application/json')")


def test_one_access_log_line_per_request_names_the_token_never_its_text(served):
    import httpx

    port, s = served
    url = f"http://127.0.0.1:{port}"
    before = len(s.lines)
    wrong = "wd-not-a-token-" + "9" * 20
    httpx.get(f"{url}/healthz")
    httpx.post(f"{url}/v1/diagnoses", json={"cluster_id": "c1", "workload_id": "w1"},
               headers={"Authorization": f"Bearer {wrong}"})
    httpx.post(f"{url}/v1/diagnoses", json={"cluster_id": "c1", "workload_id": "w1", "x": 1},
               headers={"Authorization": f"Bearer {BOT_TOKEN}"})
    httpx.get(f"{url}/no/such/path%0d%0aaccess%20method=FORGED", headers={"Authorization": f"Bearer {BOT_TOKEN}"})
    def mine() -> list[str]:  # from this test's first request on (an earlier test's line may arrive late)
        got = [ln for ln in s.lines[before:] if ln.startswith("access ")]
        first = next((i for i, ln in enumerate(got) if " path=/healthz " in ln), len(got))
        return got[first:]

    deadline = time.monotonic() + 10
    while len(mine()) < 4:
        assert time.monotonic() < deadline, s.lines[before:]
        time.sleep(0.05)
    lines = mine()
    pattern = re.compile(r"^access method=(\S+) path=(\S+) status=(\d+) ms=\d+ token=(\S+) client=127\.0\.0\.1$")
    parsed = [pattern.match(ln).groups() for ln in lines]
    assert parsed == [("GET", "/healthz", "200", "-"), ("POST", "/v1/diagnoses", "401", "-"),
                      ("POST", "/v1/diagnoses", "422", "readme-bot"),
                      ("GET", "/no/such/path%0d%0aaccess%20method%3DFORGED", "404", "-")], lines
    everything = "\n".join(s.lines)
    assert BOT_TOKEN not in everything and wrong not in everything
    assert hashlib.sha256(BOT_TOKEN.encode()).hexdigest() not in everything


def _serve_on(port: int, workers: int) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "workload_diagnose.agent.entrypoints.cli", "serve", "--port",
                           str(port), "--workers", str(workers)], env=_env(), capture_output=True, text=True,
                          timeout=60)


def _assert_refused(p: subprocess.CompletedProcess, port: int) -> None:
    assert p.returncode == 1, p.stderr
    lines = p.stderr.strip().splitlines()
    assert lines == [f"workload-diagnose: error: cannot listen on 127.0.0.1:{port}: Address already in use"], lines
    assert "listening on" not in p.stderr and "Traceback" not in p.stderr


@pytest.mark.parametrize("workers", [1, 2])
def test_a_port_another_process_listens_on_is_one_line_exit_1_before_listening(workers):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        _assert_refused(_serve_on(port, workers), port)


@pytest.mark.skipif(not procs.available(), reason="no SO_REUSEPORT on this platform")
@pytest.mark.parametrize("workers", [1, 2])
def test_a_port_shared_through_so_reuseport_by_another_process_is_refused_too(workers):
    """Another process of the same user listening with SO_REUSEPORT could have the kernel share the port with
    the workers' sockets: the check binds without it, so the port is refused."""
    helper = subprocess.Popen([sys.executable, "-c", (
        "import socket, sys, time\n"
        "s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)\n"
        "s.bind(('127.0.0.1', 0)); s.listen(8); print(s.getsockname()[1], flush=True); time.sleep(120)\n")],
        stdout=subprocess.PIPE, text=True)
    try:
        port = int(helper.stdout.readline())
        _assert_refused(_serve_on(port, workers), port)
    finally:
        helper.kill()
        helper.wait(10)


@pytest.mark.skipif(not procs.available(), reason="no SO_REUSEPORT on this platform")
def test_a_socket_that_joined_the_ports_group_after_the_check_is_found():
    """A process of the same user that joins the port's group after the check: the kernel's socket table shows a
    listener on the service's address that is not one of its sockets (the supervisor looks every few seconds)."""
    port = free_port()
    socks = procs.group_sockets(2, "127.0.0.1", port)
    try:
        assert not procs.shared_with_another(port, socks)
        intruder = procs.bound_socket("127.0.0.1", port)
        intruder.listen(1)
        try:
            assert procs.shared_with_another(port, socks)
        finally:
            intruder.close()
        assert not procs.shared_with_another(port, socks)
    finally:
        for s in socks:
            s.close()


@pytest.mark.skipif(not procs.available(), reason="no SO_REUSEPORT on this platform")
def test_workers_stop_when_another_process_joins_their_port_while_they_serve():
    import httpx

    port = free_port()
    s = Serve("--port", str(port), "--workers", "2", env=_env())
    try:
        s.wait_for("listening on")
        deadline = time.monotonic() + 60
        while True:  # serving
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline
            time.sleep(0.2)
        intruder = procs.bound_socket("127.0.0.1", port)  # same user, SO_REUSEPORT: the kernel would share
        intruder.listen(1)
        try:
            rc = s.p.wait(30)
        finally:
            intruder.close()
    finally:
        rc = s.stop()
    assert rc == 1
    errors = [ln for ln in s.lines if "error" in ln]
    assert errors == [f"workload-diagnose: error: cannot listen on 127.0.0.1:{port}: another process listens on "
                      "that port too (SO_REUSEPORT)"], s.lines
    assert not any("Traceback" in ln for ln in s.lines)
