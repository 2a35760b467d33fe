"""The command's contract (exit codes, one-line errors, --json object) and 0 writes proved at the transport."""
from __future__ import annotations

import json
import socket
import threading
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from tests.lifecycle import recording
from tests.lifecycle.cases import check


def _kubeconfig(tmp_path: Path, server: str, token: str = "replay-token") -> str:
    from workload_diagnose.tools.kube import kubeconfig_for

    p = tmp_path / "kubeconfig"
    p.write_text(yaml.safe_dump(kubeconfig_for(server, token, insecure=server.startswith("https"))))
    return str(p)


def _cli(args):
    from workload_diagnose.agent.entrypoints.cli import app

    return CliRunner().invoke(app, args)


@pytest.mark.parametrize("name", ["image-pull-backoff", "not-found", "rayjob-failed"])
def test_cli_json_replayed(name, tmp_path):
    m = recording.meta(name)
    if name == "dra-unallocated":  # pragma: no cover - the CLI has no pinned clock
        pytest.skip()
    kc = _kubeconfig(tmp_path, recording.REPLAY_SERVER)
    res = recording.replay(name, lambda: _cli(["lifecycle", m["name"], "--namespace", m["namespace"],
                                               "--kubeconfig", kc, "--json"]))
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert list(data)[:9] == ["run", "phases", "first_incomplete", "layer", "notes", "run_profile", "limitations",
                              "report", "tool_calls"]
    assert data["run_profile"] is None
    check(name, data)


def test_cli_text_report_first_line(tmp_path):
    m = recording.meta("crashloop")
    kc = _kubeconfig(tmp_path, recording.REPLAY_SERVER)
    res = recording.replay("crashloop", lambda: _cli(["lifecycle", m["name"], "-n", m["namespace"],
                                                      "--kubeconfig", kc]))
    assert res.exit_code == 0
    assert res.stdout.splitlines()[0].startswith("First incomplete layer: Container start (warning) — owner "
                                                 "researcher")


@pytest.mark.parametrize("args,needle", [
    (["lifecycle", "Bad_Name", "-n", "ns"], "not a Kubernetes object name"),
    (["lifecycle", "ok", "-n", "NS!"], "namespace"),
    (["lifecycle", "ok", "-n", "ns", "--kind", "deployment"], "--kind"),
    (["lifecycle", "ok", "-n", "ns", "--watch", "--interval", "0"], "greater than 0"),
    (["lifecycle", "ok", "-n", "ns", "--watch", "--interval", "-1s"], "not a duration"),
    (["lifecycle", "ok", "-n", "ns", "--watch", "--max-iterations", "0"], "at least 1"),
    (["lifecycle", "ok", "-n", "ns", "--kubeconfig", "/nonexistent/kc"], "no kubeconfig"),
])
def test_bad_input_exit_2_one_line(args, needle):
    res = _cli(args)
    assert res.exit_code == 2, res.output
    err = res.stderr.strip()
    assert needle in err and len(err.splitlines()) == 1 and "Traceback" not in res.output


def _closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def test_unreachable_exit_3(tmp_path):
    kc = _kubeconfig(tmp_path, f"https://127.0.0.1:{_closed_port()}")
    res = _cli(["lifecycle", "train", "-n", "ns", "--kubeconfig", kc, "--json"])
    assert res.exit_code == 3, res.output
    assert "could not be reached" in res.stderr and len(res.stderr.strip().splitlines()) == 1


class _Listener:
    """A TCP server that counts every byte it receives and answers each request with ``status``."""

    def __init__(self, status: int = 404):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.bytes = 0
        self.requests: list[str] = []
        self.status = status
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                data = b""
                conn.settimeout(2)
                try:
                    while b"\r\n\r\n" not in data:
                        chunk = conn.recv(65536)
                        if not chunk:
                            break
                        data += chunk
                except OSError:
                    pass
                self.bytes += len(data)
                self.requests.append(data.split(b"\r\n", 1)[0].decode(errors="replace"))
                body = json.dumps({"kind": "Status", "code": self.status, "message": "answer"}).encode()
                conn.sendall(f"HTTP/1.1 {self.status} X\r\nContent-Type: application/json\r\nContent-Length: "
                             f"{len(body)}\r\nConnection: close\r\n\r\n".encode() + body)

    def close(self):
        self.sock.close()


def test_credentials_refused_exit_4(tmp_path):
    srv = _Listener(status=401)
    try:
        kc = _kubeconfig(tmp_path, f"http://127.0.0.1:{srv.port}")
        res = _cli(["lifecycle", "train", "-n", "ns", "--kubeconfig", kc])
        assert res.exit_code == 4, res.output
        assert "refused the credentials" in res.stderr
    finally:
        srv.close()


def test_no_write_leaves_the_process(tmp_path):
    """The lifecycle reads go through the guarded client: GETs reach the server; any other method is refused
    before a connection is opened (0 bytes received), at the ApiClient, REST client and pool manager layers."""
    from workload_diagnose.tools.kube import KubeWriteRefused
    from workload_diagnose.tools.kube.lifecycle import LifecycleReader

    srv = _Listener(status=404)
    try:
        r = LifecycleReader.from_kubeconfig(_kubeconfig(tmp_path, f"http://127.0.0.1:{srv.port}"))
        assert r.job("ns", "train") is None  # a real GET round trip (404: not found)
        assert srv.requests == ["GET /apis/batch/v1/namespaces/ns/jobs/train HTTP/1.1"]
        got = srv.bytes
        url = f"http://127.0.0.1:{srv.port}/apis/batch/v1/namespaces/ns/jobs/train"
        ac = r.api_client
        attempts = [
            lambda: ac.call_api("DELETE", url),
            lambda: ac.call_api("POST", url, body={}),
            lambda: ac.rest_client.request("PATCH", url, body={}),
            lambda: ac.rest_client.pool_manager.request("PUT", url, body=b"{}"),
            lambda: ac.call_api("GET", f"http://127.0.0.1:{srv.port}/api/v1/namespaces/ns/pods/p/exec"),
        ]
        for attempt in attempts:
            with pytest.raises(KubeWriteRefused):
                attempt()
        with pytest.raises(KubeWriteRefused):
            r.get_json("/api/v1/namespaces/ns/secrets/x")
        assert srv.bytes == got and len(srv.requests) == 1
        r.close()
    finally:
        srv.close()
