"""Hostile endpoints that are not the workload itself: each is that endpoint's limitation, the diagnosis goes on
with the rest (real sockets on 127.0.0.1, the real client, the real graph), within its deadline."""
from __future__ import annotations

import time

import pytest

from tests.hostile.conftest import WID, diagnose_at
from workload_diagnose.evals.hostile import drip, endless, hang, hostile, mutate, raw, reset_mid_body

WL = f"/api/v1/workloads/{WID}"


def _lims(res) -> str:
    return "\n".join(res.limitations)


def test_endless_events_are_the_events_limitation_only(oom_world):
    with hostile(oom_world, [("GET", r"/events$", endless())]) as (srv, sim):
        res = diagnose_at(srv.url, sim, timeout=20)
        sent = srv.sent[f"{WL}/events"]
    assert "Recent events could not be fetched" in _lims(res) and "larger than the 16 MiB cap" in _lims(res)
    assert res.category == "OOM_KILLED"  # pods, history and metrics still tell
    assert sent < 48 * 1024 * 1024  # the client hung up at the cap (plus socket buffers); it did not drain


def test_announced_huge_body_is_not_read(oom_world):
    with hostile(oom_world, [("GET", r"/history$", endless(b'{"records": [', declared=4 << 30))]) as (srv, sim):
        res = diagnose_at(srv.url, sim, timeout=20)
    assert "announced a 4 GiB body, above the 16 MiB cap (Limits.max_body_bytes): not read" in _lims(res)


def test_cap_is_configurable(oom_world):
    from workload_diagnose.agent.model.limits import Limits

    with hostile(oom_world, [("GET", r"/pods$", mutate(lambda b: b.update(padding="x" * 100_000)))]) as (srv, sim):
        res = diagnose_at(srv.url, sim, limits=Limits(max_body_bytes=64 * 1024))
    assert "body, above the 64 KiB cap (Limits.max_body_bytes): not read" in _lims(res)
    assert "The pods could not be read" in _lims(res) and res.category == "OOM_KILLED"


@pytest.mark.parametrize("path", ["/pods$", "/history$"])
def test_one_byte_at_a_time_ends_at_the_deadline(oom_world, path):
    with hostile(oom_world, [("GET", path, drip(0.1))]) as (srv, sim):
        t0 = time.monotonic()
        res = diagnose_at(srv.url, sim, timeout=2)
        took = time.monotonic() - t0
    assert f"stopped after 2 s (--timeout): GET {WL}/{path[1:-1]}" in _lims(res)
    assert res.category == "OOM_KILLED"
    assert took < 2 + 1.5


def test_a_read_has_its_own_total_bound(oom_world):
    """A drip ends when the read's own time is up (Limits.read_total_seconds), not only at the diagnosis deadline."""
    from workload_diagnose.agent.model.limits import Limits

    with hostile(oom_world, [("GET", r"/pods$", drip(0.05))]) as (srv, sim):
        t0 = time.monotonic()
        res = diagnose_at(srv.url, sim, timeout=30, limits=Limits(read_total_seconds=0.5))
        took = time.monotonic() - t0
        attempts = srv.count("GET", "/pods")
    assert "The pods could not be read (get_workload_pods: GET " in _lims(res) and "after 3 attempts" in _lims(res)
    assert attempts == 3 and took < 5


def test_silent_metrics_end_at_the_deadline(oom_world):
    with hostile(oom_world, [("GET", r"/metrics$", hang)]) as (srv, sim):
        t0 = time.monotonic()
        res = diagnose_at(srv.url, sim, timeout=2)
        took = time.monotonic() - t0
    assert "stopped after 2 s (--timeout)" in _lims(res) and took < 3.5
    assert res.category == "OOM_KILLED"


@pytest.mark.parametrize("body, expected", [
    (b'{"events": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "nested too deeply"),
    (b'{"events": ' + b"[" * 150 + b"]" * 150 + b"}", "nested deeper than 100 levels"),
    (b'{"events": [{"reason": "\xff\xfe OOMKilled"}]}', "not valid UTF-8 JSON"),
    (b"<html><h1>502 Bad Gateway</h1></html>", "not valid JSON"),
    (b"42", "no 'events' list"),
    (b'"events"', "no 'events' list"),
])
def test_unparsable_events_are_the_events_limitation(oom_world, body, expected):
    with hostile(oom_world, [("GET", r"/events$", raw(200, body, "text/html" if body.startswith(b"<") else
                                                       "application/json"))]) as (srv, sim):
        res = diagnose_at(srv.url, sim)
    assert expected in _lims(res) and "Recent events could not be fetched" in _lims(res)
    assert res.outcome == "diagnosed" and res.category == "OOM_KILLED"


def test_nested_pods_and_reset_history_are_their_own_limitations(oom_world):
    nested = b'{"pods": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    with hostile(oom_world, [("GET", r"/pods$", raw(200, nested)), ("GET", r"/history$", reset_mid_body)]) as (srv, sim):
        res = diagnose_at(srv.url, sim)
        resets = srv.count("GET", "/history")
    lims = _lims(res)
    assert "The pods could not be read (get_workload_pods: GET " in lims and "nested too deeply" in lims
    assert "The history could not be read (get_workload_history: GET " in lims and "after 3 attempts" in lims
    assert resets == 3  # a reset mid-body is retried like any transport failure, boundedly
    assert res.category == "OOM_KILLED"
