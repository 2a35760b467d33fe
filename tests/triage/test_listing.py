"""Listing through the Run:ai API: server-side filters, sort and pages; exact matches only; 429 Retry-After."""
from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

import pytest

from workload_diagnose.agent.triage.listing import build_triage_request
from workload_diagnose.evals.fleet import PROJECTS
from workload_diagnose.evals.simulator import running_simulator
from tests.triage.fleetrun import run_triage, small_fleet
from workload_diagnose.tools.runai import InvalidInput, RunaiClient
from workload_diagnose.tools.timeutil import parse_time


def _lists(requests):
    return [parse_qsl(urlsplit(p).query) for m, p in requests if m == "GET" and urlsplit(p).path == "/api/v1/workloads"]


def test_list_calls_carry_the_filters_and_max_page_size():
    world = small_fleet(20)
    res, reqs, _ = run_triage(world, project="vision")
    lists = _lists(reqs)
    assert len(lists) == 4  # one page for each of Failed, Stopped, Running, Pending
    cid = world["fleet"]["cluster_id"]
    for q in lists:
        f = [v for k, v in q if k == "filterBy"]
        assert f"clusterId=={cid}" in f and "projectName==vision" in f
        assert dict(q)["limit"] == "500" and dict(q)["sortBy"] == "phaseUpdatedAt" and dict(q)["sortOrder"] == "desc"
    terminal = [q for q in lists if ("filterBy", "phase==Failed") in q or ("filterBy", "phase==Stopped") in q]
    assert len(terminal) == 2
    for q in terminal:
        assert ("filterBy", "phaseUpdatedAt>=2026-11-19T12:00:00Z") in q
        assert ("filterBy", "phaseUpdatedAt<=2026-11-20T12:00:00Z") in q
    assert res.workloads and {v.workload.project for v in res.workloads} == {"vision"}


def test_department_filter_and_window():
    world = small_fleet(30, old_every=5)
    res, reqs, _ = run_triage(world, department="product", since="7d")
    assert all(("filterBy", "departmentName==product") in q for q in _lists(reqs))
    projects = {p for p, d in PROJECTS.items() if d == "product"}
    assert res.workloads and {v.workload.project for v in res.workloads} <= projects
    assert res.window == {"since": "2026-11-13T12:00:00Z", "until": "2026-11-20T12:00:00Z", "duration": "7d"}
    old = {w["id"] for w in world["workloads"] if w["phaseUpdatedAt"] < "2026-11-18"}
    assert old & {v.workload.id for v in res.workloads}  # 7d includes the 3-day-old copies


def test_pages_are_followed_and_deduplicated():
    world = small_fleet(25)
    cid = world["fleet"]["cluster_id"]
    with running_simulator(world) as sim:
        c = RunaiClient(sim.url, sim.client_id, sim.client_secret)
        try:
            r = c.list_phase(cluster_id=cid, phase="Failed", limit=4)
        finally:
            c.close()
    failed = [w for w in world["workloads"] if w["phase"] == "Failed"]
    assert r.ok and len(r.data) == len(failed) and len({w.id for w in r.data}) == len(failed)
    assert len(r.invocations) == -(-len(failed) // 4)  # ceil: one call per page, no more
    times = [parse_time(w.phaseUpdatedAt) for w in r.data]
    assert times == sorted(times, reverse=True)


class _IgnoresFilters:
    """A transport in front of the simulator that drops every ``filterBy``: a server that ignores the filters."""

    def __init__(self):
        import httpx

        self._inner = httpx.HTTPTransport(retries=0)

    def handle_request(self, request):
        request.url = request.url.copy_remove_param("filterBy")
        return self._inner.handle_request(request)

    def close(self):
        self._inner.close()


def test_a_server_that_ignores_the_filters_cannot_widen_the_triage():
    world = small_fleet(20, old_every=4)
    stray = dict(world["workloads"][0], id="00000000-0000-4000-8000-000000000001", clusterId="other")
    world["workloads"].append(stray)
    with running_simulator(world) as sim:
        c = RunaiClient(sim.url, sim.client_id, sim.client_secret, transport=_IgnoresFilters())
        try:
            r = c.list_phase(cluster_id=world["fleet"]["cluster_id"], phase="Failed", project="nlp",
                               since=parse_time("2026-11-19T12:00:00Z"), until=parse_time("2026-11-20T12:00:00Z"))
        finally:
            c.close()
    want = {w["id"] for w in world["workloads"] if w["phase"] == "Failed" and w["projectName"] == "nlp"
            and w["clusterId"] == world["fleet"]["cluster_id"] and w["phaseUpdatedAt"] >= "2026-11-19T12"}
    assert {w.id for w in r.data} == want and stray["id"] not in want
    assert any("did not match the requested filters" in n for n in r.notes)


def test_429_retry_after_pauses_the_whole_fleet():
    world = small_fleet(16)
    world["faults"] = [{"path": "/pods$", "status": 429, "retry_after": "2", "times": 1}]
    sleeps: list[float] = []
    res, reqs, stats = run_triage(world, retry_sleep=sleeps.append)
    assert stats["rate_limited"] == 1
    assert 2.0 in sleeps  # the request's own retry waited the server's Retry-After ...
    assert stats["paused_s"] > 0 and any(0 < s < 2.0 for s in sleeps)  # ... and the rest of the fleet held off
    assert not any("could not be diagnosed" in x for x in res.limitations)
    assert res.workloads


@pytest.mark.parametrize("kw, msg", [
    ({"cluster_id": None}, "--cluster-id is required"),
    ({"cluster_id": "not a uuid"}, "cluster id"),
    ({"project": "a", "department": "b"}, "not both"),
    ({"project": "x,phase==Running"}, "project"),  # a value cannot add a filter
    ({"since": "yesterday"}, "--since"),
    ({"now": "soon"}, "ISO 8601"),
])
def test_bad_input_is_one_line_before_any_read(kw, msg):
    args = {"cluster_id": "7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f", **kw}
    with pytest.raises(InvalidInput, match=msg.replace("(", r"\(")):
        build_triage_request(**args)
