"""The REST client over the event loop's transport (``tools.runai.rest.aio``, the service's): the same results as
over the synchronous transport, reads started ahead overlap and are each taken once, the body cap holds, and what
was started but not used is said and let go."""
from __future__ import annotations

import asyncio
import threading
import time
from datetime import datetime, timedelta, timezone

import httpx
import pytest

from tests.conftest import WID, event, world
from workload_diagnose.evals.simulator import dependent_depth, running_simulator
from workload_diagnose.tools.base import ErrorKind
from workload_diagnose.tools.runai import RunaiClient
from workload_diagnose.tools.runai.rest.aio import LoopPool

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=timezone.utc)
CUTOFF = NOW - timedelta(days=7)
WL = f"/api/v1/workloads/{WID}"


@pytest.fixture
def pool():
    loop = asyncio.new_event_loop()
    t = threading.Thread(target=loop.run_forever, name="test-loop", daemon=True)
    t.start()
    p = LoopPool(loop, httpx.Limits(max_connections=20), shards=2)
    yield p
    asyncio.run_coroutine_threadsafe(p.aclose(), loop).result(5)
    loop.call_soon_threadsafe(loop.stop)
    t.join(5)


def on_loop(sim, pool, cap: int = 16 << 20):
    reads = pool.reads(max_body_bytes=cap, read_total=30.0)
    c = RunaiClient(sim.url, sim.client_id, sim.client_secret, sleep=lambda s: None, max_body_bytes=cap,
                    transport=reads, concurrent_reads=False)
    c.ensure_token()
    return c, reads


def plain(sim, cap: int = 16 << 20):
    return RunaiClient(sim.url, sim.client_id, sim.client_secret, sleep=lambda s: None, max_body_bytes=cap)


READS = [("get_workload_spec", (WID, "Training"), {}), ("get_workload_pods", (WID,), {}),
         ("get_workload_history", (WID,), {"cutoff": CUTOFF}),
         ("get_workload_metrics", (WID,), {"start": CUTOFF, "end": NOW})]


def oom_world():
    return world(events=[event("OOMKilled", "Container trainer was OOM killed")],
                 pods=[{"name": "job-a-0-0", "phase": "Failed"}],
                 history=[{"meta": {"creationTimestamp": "2026-11-20T09:58:00Z"}, "spec": {"phase": "Failed"}}],
                 metrics={"CPU_MEMORY_USAGE_BYTES": []}, spec={"spec": {"image": "x"}})


def test_reads_started_ahead_overlap_are_taken_once_and_equal_the_synchronous_reads(pool):
    with running_simulator(oom_world(), delay_ms=250) as sim:
        want = {tool: getattr(plain(sim), tool)(*a, **kw).model_dump() for tool, a, kw in READS}
        c, reads = on_loop(sim, pool)
        with sim.lock:
            sim.requests.clear()
            sim.timeline.clear()
            sim.max_inflight = 0
        assert all(c.prefetch(tool, *a, **kw) for tool, a, kw in READS)
        assert not c.prefetch("get_workload_pods", WID)  # the same request already under way: not sent again
        got = {tool: getattr(c, tool)(*a, **kw).model_dump() for tool, a, kw in READS}
        requests, depth, inflight = list(sim.requests), dependent_depth(sim.timeline), sim.max_inflight
    assert got == want  # the same results, invocations included
    assert len(requests) == len(set(requests)) == 4 and depth == 1 and inflight == 4
    assert (reads.started, reads.used, reads.unused()) == (4, 4, [])


def test_the_status_reads_its_events_beside_the_workload_on_the_loop(pool):
    with running_simulator(oom_world(), delay_ms=250) as sim:
        want = plain(sim).get_workload_status(WID).model_dump()
        c, _ = on_loop(sim, pool)
        with sim.lock:
            sim.requests.clear()
            sim.timeline.clear()
        got = c.get_workload_status(WID).model_dump()
        paths, depth = [p for _m, p in sim.requests], dependent_depth(sim.timeline)
    assert got == want and depth == 1
    assert sorted(paths) == [WL, f"{WL}/events?sortOrder=desc&offset=0&limit=50"]


@pytest.mark.parametrize("ahead", [False, True])
def test_the_body_cap_holds_on_the_loop_as_on_a_socket(pool, ahead):
    wd = oom_world()
    wd["pods"][WID] = [{"name": f"job-a-{i}", "phase": "Failed", "padding": "x" * 2000} for i in range(40)]
    with running_simulator(wd) as sim:
        want = plain(sim, cap=64 * 1024).get_workload_pods(WID)
        c, _ = on_loop(sim, pool, cap=64 * 1024)
        if ahead:
            assert c.prefetch("get_workload_pods", WID)
        got = c.get_workload_pods(WID)
    assert got.error is not None and got.error.kind == ErrorKind.TOO_LARGE
    assert got.model_dump() == want.model_dump()


def test_a_read_started_but_never_made_is_said_with_its_status_and_let_go(pool):
    with running_simulator(oom_world()) as sim:
        c, reads = on_loop(sim, pool)
        assert c.prefetch("get_workload_metrics", WID, start=CUTOFF, end=NOW)
        time.sleep(0.5)
        (tag, status), = reads.unused()
        assert reads.unused() == []  # said once
    assert tag[0] == "get_workload_metrics" and tag[1].startswith(f"GET {WL}/metrics?metricType=")
    assert status == 200


def test_nothing_is_started_for_a_transport_that_cannot_or_a_read_that_sends_nothing(pool):
    with running_simulator(oom_world()) as sim:
        sync = plain(sim)
        sync.ensure_token()
        c, reads = on_loop(sim, pool)
        with sim.lock:
            sim.requests.clear()
        assert not sync.prefetch("get_workload_pods", WID)  # the synchronous transport sends when read
        assert not c.prefetch("get_workload_spec", WID, "NoSuchKind")  # no spec endpoint: no request
        assert not c.prefetch("get_workload_pods", "not a valid id/..")  # bad input: the read will say so
        assert not c.prefetch("list_workloads", name="a", cluster_id="b", project="c")  # not one to start ahead
        time.sleep(0.2)
        assert sim.requests == [] and reads.started == 0


def test_tls_on_the_loop_is_verified(oom_tls):
    """A server whose certificate the pool's TLS context does not trust is refused (certificate verify failed); one
    it trusts is read, over TLS, on the loop."""
    import ssl

    from workload_diagnose.evals.hostile import hostile

    certs, server_ctx = oom_tls
    for trusted in (False, True):
        loop = asyncio.new_event_loop()
        t = threading.Thread(target=loop.run_forever, daemon=True)
        t.start()
        verify = ssl.create_default_context(cafile=str(certs / "server.pem")) if trusted else True
        pool = LoopPool(loop, httpx.Limits(max_connections=4), shards=1, verify=verify)
        try:
            with hostile(oom_world(), [], tls=server_ctx) as (srv, sim):
                assert srv.url.startswith("https://")
                reads = pool.reads(max_body_bytes=1 << 20, read_total=10.0)
                c = RunaiClient(srv.url, sim.client_id, sim.client_secret, sleep=lambda s: None, transport=reads,
                                max_attempts=1)
                if trusted:
                    assert c.get_workload_status(WID).ok
                else:
                    from workload_diagnose.tools.runai import ApiUnavailable

                    with pytest.raises(ApiUnavailable, match="CERTIFICATE_VERIFY_FAILED|certificate verify failed"):
                        c.get_workload_status(WID)
        finally:
            asyncio.run_coroutine_threadsafe(pool.aclose(), loop).result(5)
            loop.call_soon_threadsafe(loop.stop)
            t.join(5)


@pytest.fixture(scope="module")
def oom_tls(tmp_path_factory):
    import shutil
    import ssl
    import subprocess

    if shutil.which("openssl") is None:
        pytest.skip("openssl is needed to make a private CA (.ci/run installs it)")
    d = tmp_path_factory.mktemp("ca")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
                    "/CN=workload-diagnose test server", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(d / "server.key"), "-out", str(d / "server.pem")], check=True, capture_output=True)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(d / "server.pem", d / "server.key")
    return d, ctx
