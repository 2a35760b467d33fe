"""Read-only is enforced at the transport: a write never leaves the process, whoever sends it."""
from __future__ import annotations

import socket
import threading

import httpx
import pytest

from workload_diagnose.tools.base import WriteRefused
from workload_diagnose.tools.runai import RunaiClient
from workload_diagnose.tools.transport import classify_request, make_client


class ByteCounter:
    """A TCP listener that counts every byte any client sends to it."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.bytes = 0
        self.connections = 0
        self._stop = False
        self.t = threading.Thread(target=self._loop, daemon=True)
        self.t.start()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}"

    def _loop(self):
        while not self._stop:
            try:
                c, _ = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            c.settimeout(0.2)
            try:
                while True:
                    b = c.recv(65536)
                    if not b:
                        break
                    self.bytes += len(b)
            except OSError:
                pass
            c.close()

    def close(self):
        self._stop = True
        self.t.join(1)
        self.sock.close()


@pytest.fixture
def counter():
    c = ByteCounter()
    yield c
    c.close()


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT", "PROPFIND"])
def test_write_methods_raise_before_any_byte(counter, method):
    client = make_client(counter.url, timeout=1)
    with pytest.raises(WriteRefused):
        client.request(method, "/api/v1/workloads/abc", json={"desiredPhase": "Stopped"})
    client.close()
    assert counter.connections == 0 and counter.bytes == 0


def test_the_runai_client_cannot_be_made_to_write(counter):
    rc = RunaiClient(counter.url, "id", "secret", max_attempts=1)
    for m in ("POST", "PUT", "PATCH", "DELETE"):
        with pytest.raises(WriteRefused):
            rc._http.request(m, "/api/v1/workloads/trainings/abc")
        with pytest.raises(WriteRefused):
            rc._http.send(httpx.Request(m, counter.url + "/api/v1/workloads"))
    # even a POST that looks like the token path but is not exactly it
    with pytest.raises(WriteRefused):
        rc._http.post("/api/v1/token/../workloads/abc/stop")
    with pytest.raises(WriteRefused):
        rc._http.post("/api/v1/workloads/abc/suspend")
    rc.close()
    assert counter.bytes == 0


def test_transport_itself_refuses_when_send_is_bypassed(counter):
    from workload_diagnose.tools.transport import ReadOnlyTransport

    t = ReadOnlyTransport()
    with pytest.raises(WriteRefused):
        t.handle_request(httpx.Request("DELETE", counter.url + "/api/v1/workloads/x"))
    assert counter.bytes == 0


def test_classification_table():
    assert classify_request("GET", "/api/v1/workloads") == "read"
    assert classify_request("get", "/anything") == "read"
    assert classify_request("POST", "/api/v1/token") == "token"
    assert classify_request("POST", "/api/v2/token") == "token"
    assert classify_request("POST", "/api/v1/workloads") == "write"
    assert classify_request("POST", "/api/v1/token/x") == "write"
    assert classify_request("BREW", "/") == "write"  # unknown = refuse
