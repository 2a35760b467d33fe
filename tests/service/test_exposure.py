"""What reaches the service from outside its callers, over real HTTP on 127.0.0.1: a DNS-rebinding web page
(``Host``/``Origin`` of another name: 421/403 before anything is read), and clients that open connections and never
finish a request (``serve`` keeps answering ``/healthz``, bounded in time and connections, without a traceback)."""
from __future__ import annotations

import os
import subprocess
import socket
import sys
import time
from urllib.parse import urlsplit

import httpx
import pytest

from tests.service.conftest import body_of, clear, reads
from tests.service.live import config_for, free_port, live_service, tokens


def _as(url: str, host: str) -> dict:
    return {"Host": f"{host}:{urlsplit(url).port}"}


@pytest.fixture(scope="module")
def diagnosis(scenarios):
    return next(sc for sc in scenarios.values() if sc.args.workload_id)


def test_a_rebound_host_name_is_421_and_reads_nothing(service, sim, diagnosis):
    clear(sim)
    for host in ("attacker.example", "127.0.0.1.attacker.example", "localhost.attacker.example"):
        r = httpx.post(f"{service}/v1/diagnoses", json=body_of(diagnosis), headers=_as(service, host), timeout=30)
        assert r.status_code == 421, (host, r.text)
        assert r.json() == {"detail": "this service does not answer to that host name (Host header)"}
        assert diagnosis.args.workload_id not in r.text
        r = httpx.post(f"{service}/v1/chat/t/messages", json={"message": "hi"}, headers=_as(service, host))
        assert r.status_code == 421
    assert httpx.get(f"{service}/openapi.json", headers=_as(service, "attacker.example")).status_code == 421
    assert reads(sim) == []


def test_loopback_names_with_any_port_are_answered(service):
    for host in ("127.0.0.1", "localhost", "LOCALHOST", "[::1]"):
        for h in (host, f"{host}:{urlsplit(service).port}", f"{host}:1"):
            r = httpx.get(f"{service}/healthz", headers={"Host": h})
            assert r.status_code == 200, h


def test_a_foreign_browser_origin_is_403_and_reads_nothing(service, sim, diagnosis):
    clear(sim)
    for origin in ("http://attacker.example", "https://attacker.example:8443", "null", "file://"):
        r = httpx.post(f"{service}/v1/diagnoses", json=body_of(diagnosis), headers={"Origin": origin}, timeout=30)
        assert r.status_code == 403, origin
        assert r.json() == {"detail": "requests from that web origin are not allowed (Origin header)"}
    assert reads(sim) == []
    r = httpx.post(f"{service}/v1/diagnoses", json=body_of(diagnosis), headers={"Origin": "http://localhost:3000"},
                   timeout=30)
    assert r.status_code == 200 and r.json()["workload"]["id"] == diagnosis.args.workload_id


def test_configured_hosts_are_answered_and_only_they(sim):
    with live_service(config_for(sim, allowed_hosts=("diag.example.com",))) as url:
        assert httpx.get(f"{url}/healthz", headers=_as(url, "diag.example.com")).status_code == 200
        ok = httpx.get(f"{url}/healthz", headers={**_as(url, "diag.example.com"), "Origin": "https://diag.example.com"})
        assert ok.status_code == 200
        assert httpx.get(f"{url}/healthz", headers=_as(url, "evil.example.com")).status_code == 421
        assert httpx.get(f"{url}/healthz", headers=_as(url, "diag.example.com.evil")).status_code == 421


def test_with_api_tokens_and_no_configured_hosts_any_host_is_answered(sim):
    """A probe or a load balancer reaches a replica by its IP; a rebinding page has no API token."""
    _, parsed = tokens(bot=(["*"], ["*"]))
    with live_service(config_for(sim, auth="tokens", tokens=parsed)) as url:
        assert httpx.get(f"{url}/healthz", headers={"Host": "10.1.2.3:8080"}).status_code == 200
    with live_service(config_for(sim, auth="tokens", tokens=parsed, allowed_hosts=("diag.internal",))) as url:
        assert httpx.get(f"{url}/healthz", headers={"Host": "10.1.2.3:8080"}).status_code == 421
        assert httpx.get(f"{url}/healthz", headers={"Host": "diag.internal"}).status_code == 200


def test_serve_takes_allowed_hosts_from_the_flag_and_the_environment_and_refuses_bad_ones():
    from workload_diagnose.agent.service.config import ConfigError, ServiceConfig

    cfg = ServiceConfig.from_env({"WD_ALLOWED_HOSTS": "Diag.Example.com, 10.0.0.5,[fe80::1]"})
    assert cfg.allowed_hosts == ("diag.example.com", "10.0.0.5", "fe80::1") and cfg.checks_host
    for bad in ("*", "*.example.com", "http://diag.example.com", "diag.example.com:8080", "a/b"):
        with pytest.raises(ConfigError, match="is not a host name or IP address"):
            ServiceConfig.from_env({"WD_ALLOWED_HOSTS": bad})
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WD_", "RUNAI_"))}
    p = subprocess.run([sys.executable, "-m", "workload_diagnose.agent.entrypoints.cli", "serve", "--port", str(free_port()),
                        "--allowed-host", "https://diag.example.com"], env=env, capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and "Traceback" not in p.stderr
    assert "--allowed-host: 'https://diag.example.com' is not a host name" in p.stderr


# ------------------------------------------------------------------------------------------ slow clients
def _closed_by_server(sock: socket.socket) -> bool:
    """Whether the server closed ``sock`` (what it sent before is read and dropped)."""
    sock.setblocking(False)
    try:
        while sock.recv(65536):
            pass
        return True
    except BlockingIOError:
        return False
    except OSError:  # reset
        return True


def _limited_files() -> None:  # the serve process: 256 open files, no way to raise them
    import resource

    resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))


@pytest.mark.serial
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_NOFILE on a child process (Linux)")
def test_connections_that_never_finish_a_request_do_not_starve_healthz(tmp_path):
    """300 connections that send half a request line (more than the process has files for), one that trickles a
    byte at a time: /healthz answers at once, the worker holds at most WD_MAX_CONNECTIONS of them, each is
    closed WD_HEADER_TIMEOUT_S after it started, an idle keep-alive connection after WD_KEEPALIVE_S."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WD_", "RUNAI_"))}
    env.update(WD_KUBE="off", WD_HEADER_TIMEOUT_S="2", WD_KEEPALIVE_S="1", WD_MAX_CONNECTIONS="100")
    log = tmp_path / "serve.log"
    with open(log, "w") as err:
        p = subprocess.Popen([sys.executable, "-m", "workload_diagnose.agent.entrypoints.cli", "serve", "--port", str(port)],
                             env=env, stdout=subprocess.DEVNULL, stderr=err, preexec_fn=_limited_files)
    url = f"http://127.0.0.1:{port}"
    slow: list[socket.socket] = []
    try:
        t_end = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"{url}/healthz", timeout=2)
                break
            except httpx.HTTPError:
                assert p.poll() is None and time.monotonic() < t_end, log.read_text()
                time.sleep(0.2)
        for _ in range(300):
            s = socket.create_connection(("127.0.0.1", port), timeout=10)
            s.sendall(b"GET /healthz HT")
            slow.append(s)
        last = time.monotonic()
        t0 = time.monotonic()
        r = httpx.get(f"{url}/healthz", timeout=5)
        assert r.status_code == 200 and time.monotonic() - t0 < 3.0
        assert sum(not _closed_by_server(s) for s in slow) <= 100  # the cap: the longest-waiting ones went
        idle = socket.create_connection(("127.0.0.1", port))
        idle.sendall(f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        assert b" 200 " in idle.recv(4096)
        trickle = socket.create_connection(("127.0.0.1", port))
        started, sent = time.monotonic(), 0
        while not _closed_by_server(trickle) and time.monotonic() - started < 6:
            try:
                trickle.sendall(b"GET /healthz HTTP/1.1\r\n"[sent % 25:sent % 25 + 1])
            except OSError:
                break
            sent += 1
            time.sleep(0.2)
        took = time.monotonic() - started
        assert 1.5 < took < 3.5 and sent > 5, f"a trickling request head kept its connection {took:.1f} s"
        assert _closed_by_server(idle)  # idle keep-alive: closed after 1 s (the trickle took longer)
        open_ = [s for s in slow if not _closed_by_server(s)]
        while open_ and time.monotonic() < last + 6.0:  # each closed 2 s after it started (a loaded machine: 6)
            time.sleep(0.2)
            open_ = [s for s in open_ if not _closed_by_server(s)]
        assert not open_, f"{len(open_)} connections outlived the header timeout"
        assert httpx.get(f"{url}/healthz", timeout=5).status_code == 200
    finally:
        for s in slow:
            s.close()
        p.terminate()
        p.wait(15)
    text = log.read_text()
    assert "Traceback" not in text and "Too many open files" not in text and "out of file descriptors" not in text, text


@pytest.mark.serial
def test_a_body_held_back_is_408_in_bounded_time_and_reads_nothing(sim):
    """Headers sent, the body never finished: 408 once WD_HEADER_TIMEOUT_S has passed since the app asked for it;
    nothing is read from Run:ai."""
    with live_service(config_for(sim, header_timeout_s=1.5)) as url:
        clear(sim)
        port = urlsplit(url).port
        with socket.create_connection(("127.0.0.1", port), timeout=10) as c:
            c.sendall(b"POST /v1/diagnoses HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                      b"Content-Length: 100\r\n\r\n{\"cluster_id\":")
            t0 = time.monotonic()
            answer = c.recv(65536)
            took = time.monotonic() - t0
            while chunk := c.recv(65536):  # the rest, until the server closes (Connection: close)
                answer += chunk
        assert answer.startswith(b"HTTP/1.1 408") and b"did not arrive within 1.5 s" in answer, answer
        assert 1.0 < took < 4.0
        assert reads(sim) == []
        metrics = httpx.get(f"{url}/metrics").text
        assert 'workload_diagnose_rejected_total{reason="body_too_slow"} 1.0' in metrics
