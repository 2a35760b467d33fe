"""Acceptance: a triage of a simulated fleet gives exactly the per-workload verdicts of one-by-one diagnosis, with
fewer requests in total (both counted by the simulator and printed)."""
from __future__ import annotations

from workload_diagnose.agent.triage.report import verdict_of
from workload_diagnose.evals.fleet import NOW, expected
from tests.triage.fleetrun import one_by_one, run_triage, small_fleet
from workload_diagnose.tools.timeutil import parse_time


def _in_window(w: dict, hours: int = 24) -> bool:
    t = parse_time(w["phaseUpdatedAt"])
    now = parse_time(NOW)
    return (now - t).total_seconds() <= hours * 3600


def test_triage_equals_one_by_one_with_fewer_requests(capsys):
    world = small_fleet(48, old_every=9)  # every template at least once; every 9th copy 3 days old
    exp = expected(world)
    res, triage_requests, stats = run_triage(world)
    by_id = {w["id"]: w for w in world["workloads"]}
    terminal = [wid for wid, w in by_id.items() if w["phase"] in ("Failed", "Stopped") and _in_window(w)]
    active = [wid for wid, w in by_id.items() if w["phase"] in ("Running", "Pending")]
    old = [wid for wid, w in by_id.items() if w["phase"] in ("Failed", "Stopped") and not _in_window(w)]
    assert old, "the fleet must have terminal failures outside the window"

    singles, single_requests = one_by_one(world, terminal + active)
    want = {wid: verdict_of(r) for wid, r in singles.items()
            if wid in terminal or r.outcome == "diagnosed"}  # a healthy/waiting active workload is no failure
    got = {v.workload.id: v for v in res.workloads}
    assert set(got) == set(want)
    assert not set(got) & set(old)
    for wid, v in want.items():
        assert got[wid].model_dump() == v.model_dump(), wid
        e = exp[wid]  # and the verdict is the one the source scenario is known to give
        assert (v.outcome, v.category, v.route) == (e["outcome"], e.get("category"), e.get("route")), e["scenario"]
    # routed/stopped active candidates were diagnosed but are not failures: they are said to be left out
    assert any("Running/Pending workload(s) were checked" in x for x in res.limitations)
    assert sum(res.counts.values()) + sum(res.routed.values()) == len(res.workloads)

    assert len(triage_requests) < single_requests
    assert sum(1 for m, _ in triage_requests if m == "POST") == 1  # the token, once
    assert stats["stood_in"] == len(terminal)  # every listed terminal workload: no second read of itself
    with capsys.disabled():
        print(f"\n[triage] {len(got)} workloads: triage {len(triage_requests)} requests, one-by-one "
              f"{single_requests} requests ({len(terminal) + len(active)} diagnoses)")


def test_listed_workload_is_the_single_read():
    """The stand-in is sound only if the list item IS the object ``GET /api/v1/workloads/{id}`` returns."""
    import httpx

    from workload_diagnose.evals.simulator import running_simulator

    world = small_fleet(12)
    with running_simulator(world) as sim:
        tok = httpx.post(f"{sim.url}/api/v1/token", json={"grantType": "client_credentials",
                                                         "clientID": sim.client_id,
                                                         "clientSecret": sim.client_secret}).json()["accessToken"]
        h = {"Authorization": f"Bearer {tok}"}
        listed = httpx.get(f"{sim.url}/api/v1/workloads", params={"limit": "500"}, headers=h).json()["workloads"]
        for w in listed:
            single = httpx.get(f"{sim.url}/api/v1/workloads/{w['id']}", headers=h).json()
            single.pop("pendingSchedulingMessages", None)  # the single read's only extra field (runai-api.md)
            assert single == w


def test_worker_processes_give_the_same_triage():
    """``--processes 2``: the same result as one process (verdicts, patterns, actions), the token still once."""
    import json

    world = small_fleet(20)
    one, _, _ = run_triage(world)
    two, reqs, stats = run_triage(world, processes=2)
    a, b = one.model_dump(mode="json"), two.model_dump(mode="json")
    assert {k: v for k, v in a.items() if k != "tool_calls"} == {k: v for k, v in b.items() if k != "tool_calls"}
    assert sorted(map(json.dumps, a["tool_calls"])) == sorted(map(json.dumps, b["tool_calls"]))
    assert sum(1 for m, _ in reqs if m == "POST") == 1 and stats["sent"] == len(reqs)


def test_processes_auto_adds_a_worker_only_for_a_large_fleet(monkeypatch):
    """``processes=None`` (the CLI's default): a second process on 2+ cores from AUTO_PROCESSES_FROM workloads (here
    lowered to 10), one below it; the parent diagnoses its share either way, the result is the same."""
    import workload_diagnose.agent.triage as T
    import workload_diagnose.agent.triage.procs as P

    calls: list[int] = []
    real = P.diagnose_in_processes

    def spy(items, req, **kw):
        calls.append(kw["processes"])
        return real(items, req, **kw)

    monkeypatch.setattr(P, "diagnose_in_processes", spy)
    monkeypatch.setattr(T.os, "cpu_count", lambda: 2)
    world = small_fleet(20)
    one, _, _ = run_triage(world, processes=1)
    monkeypatch.setattr(T, "AUTO_PROCESSES_FROM", 1000)
    small, _, _ = run_triage(world, processes=None)
    assert calls == []
    monkeypatch.setattr(T, "AUTO_PROCESSES_FROM", 10)
    big, _, _ = run_triage(world, processes=None)
    assert calls == [2]
    strip = lambda r: {k: v for k, v in r.model_dump(mode="json").items() if k != "tool_calls"}  # noqa: E731
    assert strip(one) == strip(small) == strip(big)
