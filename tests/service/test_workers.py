"""``serve --workers N`` as a real process tree: every worker takes connections (a burst of keep-alive
connections is spread over them, not all accepted by the first to wake), a worker that dies is replaced, a port
that is taken is a one-line error, SIGTERM stops every worker."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from workload_diagnose.agent.service import workers as procs
from tests.service.live import free_port

pytestmark = pytest.mark.skipif(not procs.available(), reason="no SO_REUSEPORT on this platform")


def _env() -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WD_", "RUNAI_"))}
    return {**env, "WD_KUBE": "off"}


def _serve(port: int, workers: int = 2) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "workload_diagnose.agent.entrypoints.cli", "serve", "--port", str(port),
                             "--workers", str(workers)], env=_env(), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)


def _children(pid: int) -> list[int]:
    kids: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            kids += [int(k) for k in (task / "children").read_text().split()]
        except OSError:
            pass
    return kids


def _workers(parent: int, n: int, timeout: float = 60.0) -> list[int]:
    """The worker processes once ``n`` of them listen (the resource tracker of multiprocessing is not one)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = [k for k in _children(parent) if _listening(k)]
        if len(found) >= n:
            return found
        time.sleep(0.1)
    raise AssertionError(f"{n} workers did not start listening")


def _socket_inodes(pid: int) -> set[str]:
    out = set()
    try:
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target.startswith("socket:["):
                out.add(target[8:-1])
    except OSError:
        pass
    return out


def _tcp_states() -> dict[str, str]:
    """inode → TCP state (hex: 0A listen, 01 established) of every IPv4 TCP socket."""
    out = {}
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        f = line.split()
        out[f[9]] = f[3]
    return out


def _listening(pid: int) -> bool:
    states = _tcp_states()
    return any(states.get(i) == "0A" for i in _socket_inodes(pid))


def _established(pid: int) -> int:
    states = _tcp_states()
    return sum(1 for i in _socket_inodes(pid) if states.get(i) == "01")


def _stop(p: subprocess.Popen) -> None:
    if p.poll() is None:
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(5)


def test_a_burst_of_keepalive_connections_reaches_every_worker():
    port = free_port()
    p = _serve(port)
    try:
        ws = _workers(p.pid, 2)
        before = {w: _established(w) for w in ws}
        conns = [socket.create_connection(("127.0.0.1", port)) for _ in range(32)]  # all at once, kept open
        try:
            for c in conns:
                c.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            for c in conns:
                c.settimeout(30)
                assert c.recv(4096).startswith(b"HTTP/1.1 200")
            gained = {w: _established(w) - before[w] for w in ws}
        finally:
            for c in conns:
                c.close()
        assert sum(gained.values()) == 32 and all(n > 0 for n in gained.values()), gained
    finally:
        _stop(p)
    assert p.returncode == 0


def test_a_worker_that_dies_is_replaced_and_sigterm_stops_them_all():
    port = free_port()
    p = _serve(port)
    try:
        first = _workers(p.pid, 2)
        os.kill(first[0], signal.SIGKILL)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            now = [k for k in _children(p.pid) if _listening(k)]
            if len(now) == 2 and first[0] not in now:
                break
            time.sleep(0.2)
        else:
            raise AssertionError("the dead worker was not replaced")
        assert httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=10).status_code == 200
        p.send_signal(signal.SIGTERM)
        _, err = p.communicate(timeout=60)
    finally:
        _stop(p)
    assert p.returncode == 0 and "Traceback" not in err
    assert "starting another" in err
    for w in now:
        assert not Path(f"/proc/{w}").exists() or "Z" in Path(f"/proc/{w}/stat").read_text().split()[2]


def test_a_port_in_use_is_one_line_and_no_worker_starts():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        p = _serve(taken.getsockname()[1])
        _, err = p.communicate(timeout=60)
    assert p.returncode == 1 and "cannot listen on 127.0.0.1" in err and "Traceback" not in err
    lines = err.strip().splitlines()
    assert lines[-1].startswith("workload-diagnose: error:") and sum("error" in ln for ln in lines) == 1


def _counter(text: str, name: str, **labels: str) -> float:
    want = ",".join(f'{k}="{v}"' for k, v in labels.items())
    for line in text.splitlines():
        if line.startswith(f"{name}{{") and want in line:
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def test_every_worker_answers_metrics_for_the_whole_service():
    """Refusals counted by whichever worker took each connection; any scrape, on any connection, sees them all
    (a fresh connection per scrape: the kernel picks the worker)."""
    port = free_port()
    p = _serve(port)
    try:
        ws = _workers(p.pid, 2)
        conns = [socket.create_connection(("127.0.0.1", port)) for _ in range(24)]
        body = b'{"cluster_id": "c", "workload_id": "w", "bogus": 1}'  # an unknown field: 422, no Run:ai read
        try:
            for c in conns:
                c.sendall(b"POST /v1/diagnoses HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                          b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
            for c in conns:
                c.settimeout(30)
                assert c.recv(4096).startswith(b"HTTP/1.1 422")
            assert all(_established(w) > 0 for w in ws)  # both workers counted some of them
        finally:
            for c in conns:
                c.close()
        seen = set()
        for _ in range(8):
            with httpx.Client() as fresh:
                text = fresh.get(f"http://127.0.0.1:{port}/metrics", timeout=10).text
            seen.add(_counter(text, "workload_diagnose_rejected_total", reason="invalid"))
        assert seen == {24.0}
    finally:
        _stop(p)
    assert p.returncode == 0
