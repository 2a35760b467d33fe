"""The Run:ai client over real HTTP against the simulator: auth, retries, pagination, typed errors."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from urllib.parse import parse_qsl, unquote

from pathlib import Path
import pytest

from workload_diagnose.evals.simulator import running_simulator
from tests.conftest import CL, WID, event, workload, world
from workload_diagnose.tools.base import ErrorKind, ToolStatus
from workload_diagnose.tools.runai import OOM_METRICS, ApiAuthError, ApiUnavailable, InvalidInput, RunaiClient, RunaiSource

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=timezone.utc)


def client(sim, **kw):
    kw.setdefault("sleep", lambda s: None)
    return RunaiClient(sim.url, sim.client_id, sim.client_secret, **kw)


def test_v1_token_then_bearer_on_reads():
    with running_simulator(world()) as sim:
        st = client(sim).get_workload_status(WID)
    assert st.ok and st.data.workload.id == WID
    assert sim.requests[0] == ("POST", "/api/v1/token")
    assert st.tool == "get_workload_status"
    assert [i.request for i in st.invocations] == [f"GET /api/v1/workloads/{WID}",
                                                   f"GET /api/v1/workloads/{WID}/events?sortOrder=desc&offset=0&limit=50"]
    assert [(i.tool, i.arguments) for i in st.invocations] == [("get_workload_status", {"workloadId": WID})] * 2
    assert all(i.describe() == i.request for i in st.invocations)


def test_falls_back_to_v2_form_flow():
    with running_simulator(world(auth={"v1": False})) as sim:
        st = client(sim).get_workload_status(WID)
    assert st.ok
    assert [r for r in sim.requests if r[0] == "POST"] == [("POST", "/api/v1/token"), ("POST", "/api/v2/token")]


def test_bad_credentials_are_a_clear_fatal_error():
    with running_simulator(world()) as sim:
        rc = RunaiClient(sim.url, sim.client_id, "wrong", sleep=lambda s: None)
        with pytest.raises(ApiAuthError, match="refused the credentials"):
            rc.get_workload_status(WID)


def test_unreachable_is_a_clear_fatal_error():
    rc = RunaiClient("http://127.0.0.1:9", "a", "b", sleep=lambda s: None, timeout=0.5)
    with pytest.raises(ApiUnavailable, match="cannot reach"):
        rc.get_workload_status(WID)


def test_401_refreshes_the_token_once():
    with running_simulator(world()) as sim:
        rc = client(sim)
        rc.ensure_token()
        sim.tokens.clear()  # the server forgets the token: next read gets 401, then one refresh
        st = rc.get_workload_pods(WID)
    assert st.ok
    assert sum(1 for r in sim.requests if r[0] == "POST") == 2


def test_retries_5xx_and_429_with_retry_after():
    sleeps = []
    faults = [{"path": "/pods$", "status": 503, "times": 1},
              {"path": "/history$", "status": 429, "retry_after": "2", "times": 1}]
    with running_simulator(world(faults=faults)) as sim:
        rc = client(sim, sleep=sleeps.append)
        assert rc.get_workload_pods(WID).ok
        h = rc.get_workload_history(WID, cutoff=NOW - timedelta(days=7))
    assert h.ok and h.invocations[0].attempts == 2
    assert 2.0 in sleeps  # Retry-After honoured


def test_persistent_5xx_becomes_a_typed_error_not_a_crash():
    with running_simulator(world(faults=[{"path": "/pods$", "status": 502, "times": -1}])) as sim:
        r = client(sim, max_attempts=3).get_workload_pods(WID)
        served = sum(1 for m, p in sim.requests if p.startswith(f"/api/v1/workloads/{WID}/pods"))
    assert r.status == ToolStatus.ERROR and r.error.kind == ErrorKind.SERVER_ERROR
    assert served == 3  # bounded


def test_malformed_json_is_a_typed_error():
    with running_simulator(world(faults=[{"path": "/pods$", "kind": "malformed", "times": -1}])) as sim:
        r = client(sim).get_workload_pods(WID)
    assert r.status == ToolStatus.ERROR and r.error.kind == ErrorKind.MALFORMED


def test_timeout_is_retried_then_typed():
    with running_simulator(world(faults=[{"path": "/pods$", "kind": "timeout", "seconds": 1.0, "times": -1}])) as sim:
        r = client(sim, timeout=0.3, max_attempts=2).get_workload_pods(WID)
    assert r.status == ToolStatus.ERROR and r.error.kind == ErrorKind.TIMEOUT


@pytest.mark.parametrize("bad", ["a,projectName==x", "a==b", "job;rm", "x y", "", "../etc", "name=@x", "a\nb"])
def test_filter_values_cannot_change_the_filter(bad):
    rc = RunaiClient("http://127.0.0.1:9", "a", "b")
    with pytest.raises(InvalidInput):
        rc.list_workloads(name=bad, cluster_id=CL, project="team")
    with pytest.raises(InvalidInput):
        rc.list_workloads(name="job", cluster_id=CL, project=bad)


def test_list_workloads_filters_sorts_and_follows_next():
    ws = [workload(id=f"00000000-0000-4000-8000-{i:012d}", name="job-a", phaseUpdatedAt=f"2026-11-{10 + i:02d}T00:00:00Z")
          for i in range(7)]
    ws.append(workload(id="00000000-0000-4000-8000-999999999999", name="job-b"))
    ws.append(workload(id="00000000-0000-4000-8000-888888888888", name="job-a", projectName="other"))
    with running_simulator({"workloads": ws}) as sim:
        rc = client(sim, page_limit=3)
        r = rc.list_workloads(name="job-a", cluster_id=CL, project="team")
    assert r.ok and len(r.data) == 7 and len(r.invocations) == 3
    assert [w.phaseUpdatedAt for w in r.data] == sorted((w.phaseUpdatedAt for w in r.data), reverse=True)
    q = parse_qsl(r.invocations[0].request.split("?", 1)[1])
    assert r.invocations[0].arguments == {"name": "job-a", "clusterId": CL, "project": "team"}
    assert ("filterBy", "name==job-a") in q and ("filterBy", f"clusterId=={CL}") in q
    assert ("filterBy", "projectName==team") in q and ("sortBy", "phaseUpdatedAt") in q and ("sortOrder", "desc") in q


def test_history_stops_at_the_lookback_cutoff():
    recs = []
    for i in range(200):  # one record per hour going back 200 hours
        at = (NOW - timedelta(hours=i + 1)).strftime("%Y-%m-%dT%H:%M:%SZ")
        recs.append({"meta": {"creationTimestamp": at, "type": "PhaseUpdate"},
                     "spec": {"phaseUpdate": {"phase": "Running", "phaseMessage": ""}}})
    with running_simulator(world(history=recs)) as sim:
        h = client(sim).get_workload_history(WID, cutoff=NOW - timedelta(hours=60))
    assert h.ok
    assert len(h.data.records) == 59 or len(h.data.records) == 60
    assert h.data.reached_cutoff and h.data.pages == 2  # 50 + 50: the second page crosses the cutoff
    assert h.invocations[1].request == f"GET /api/v1/workloads/{WID}/history?offset=50&limit=50"
    assert h.invocations[1].arguments == {"workloadId": WID, "cutoff": "2026-11-18T00:00:00Z"}


def test_history_next_that_does_not_advance_is_stopped():
    class Loop:
        pass

    recs = [{"meta": {"creationTimestamp": "2026-11-20T11:00:00Z", "type": "PhaseUpdate"},
             "spec": {"phaseUpdate": {"phase": "Failed", "phaseMessage": ""}}}]
    # a server whose "next" points back at the same page forever
    from workload_diagnose.evals import simulator

    orig = simulator.Handler._page

    def looping(self, body, key, q):
        out = orig(self, body, key, q)
        if key == "records":
            out["next"] = int(q.get("offset", ["0"])[0])
        return out

    simulator.Handler._page = looping
    try:
        with running_simulator(world(history=recs)) as sim:
            h = client(sim).get_workload_history(WID, cutoff=NOW - timedelta(days=7))
    finally:
        simulator.Handler._page = orig
    assert h.ok and h.data.pages == 1 and any("pagination stopped" in n for n in h.notes)


def test_metrics_params_and_string_values():
    series = {"CPU_MEMORY_USAGE_BYTES": [{"value": "1073741824", "timestamp": "2026-11-20T10:00:00Z"},
                                         {"value": "n/a", "timestamp": "2026-11-20T10:01:00Z"},
                                         {"value": "2147483648", "timestamp": "2026-11-20T10:02:00Z"}]}
    with running_simulator(world(metrics=series)) as sim:
        m = client(sim).get_workload_metrics(WID, start=NOW - timedelta(days=7), end=NOW)
    assert m.ok
    q = parse_qsl(m.invocations[0].request.split("?", 1)[1])
    assert m.invocations[0].arguments == {"workloadId": WID, "start": "2026-11-13T12:00:00Z",
                                          "end": "2026-11-20T12:00:00Z", "metricTypes": list(OOM_METRICS)}
    assert [v for k, v in q if k == "metricType"] == ["CPU_MEMORY_USAGE_BYTES", "CPU_MEMORY_LIMIT_BYTES",
                                                      "CPU_MEMORY_REQUEST_BYTES"]
    assert ("start", "2026-11-13T12:00:00Z") in q and ("end", "2026-11-20T12:00:00Z") in q
    usage = next(s for s in m.data if s.type == "CPU_MEMORY_USAGE_BYTES")
    assert [s.value for s in usage.samples] == [1073741824.0, 2147483648.0] and usage.unparsable == 1
    limit = next(s for s in m.data if s.type == "CPU_MEMORY_LIMIT_BYTES")
    assert limit.samples == []  # empty is "no sample", never zero


def test_events_failure_is_null_not_empty():
    with running_simulator(world(events=None)) as sim:
        st = client(sim).get_workload_status(WID)
    assert st.ok and st.data.events is None and "500" in st.data.events_error


def test_spec_absent_for_unknown_kind_and_404():
    with running_simulator(world(workload(type="SomeThirdPartyKind"))) as sim:
        rc = client(sim)
        r = rc.get_workload_spec(WID, "SomeThirdPartyKind")
        assert r.status == ToolStatus.ABSENT and not r.invocations
        r2 = rc.get_workload_spec(WID, "Training")  # endpoint exists, the spec does not
        assert r2.status == ToolStatus.ABSENT and r2.invocations[0].status_code == 404


def test_rest_client_is_a_runai_source():
    import inspect

    rc = RunaiClient("http://127.0.0.1:9", "id", "secret")
    assert isinstance(rc, RunaiSource)
    for name in ("list_workloads", "get_workload_status", "get_workload_spec", "get_workload_pods",
                 "get_workload_history", "get_workload_metrics", "close"):
        proto = inspect.signature(getattr(RunaiSource, name))
        impl = inspect.signature(getattr(RunaiClient, name))
        assert list(proto.parameters.values()) == list(impl.parameters.values()), name
        assert str(proto.return_annotation) == str(impl.return_annotation), name
    rc.close()


def test_invocation_request_is_exactly_what_the_server_received():
    with running_simulator(world(history=[])) as sim:
        rc = client(sim)
        results = [rc.list_workloads(name="job-a", cluster_id=CL, project="team"),
                   rc.get_workload_status(WID), rc.get_workload_spec(WID, "Training"), rc.get_workload_pods(WID),
                   rc.get_workload_history(WID, cutoff=NOW - timedelta(days=7)),
                   rc.get_workload_metrics(WID, start=NOW - timedelta(days=1), end=NOW)]
        received = sorted(f"{m} {unquote(p)}" for m, p in sim.requests if m == "GET")
    sent = sorted(i.request for r in results for i in r.invocations)
    assert sent == received and len(sent) == 7
    assert all(i.tool == r.tool and i.arguments for r in results for i in r.invocations)


def test_one_time_parser_for_the_whole_project():
    import workload_diagnose.tools.runai
    from workload_diagnose.tools import timeutil

    assert (workload_diagnose.tools.runai.parse_time is timeutil.parse_time
            and workload_diagnose.tools.runai.iso is timeutil.iso)
    assert timeutil.parse_time("2026-11-20T12:00:00Z") == NOW
    assert timeutil.parse_time("2026-11-20 12:00:00") == NOW  # naive and space-separated: UTC
    assert timeutil.parse_time("2026-11-20T13:00:00+01:00") == NOW
    assert timeutil.parse_time("yesterday") is None and timeutil.parse_time("") is None
    assert timeutil.parse_time(1700000000) is None
    assert timeutil.as_utc(datetime(2026, 11, 20, 12, 0)) == NOW and timeutil.as_utc(None) is None
    assert timeutil.iso(datetime(2026, 11, 20, 13, 0, 7, 999, tzinfo=timezone(timedelta(hours=1)))) == \
        "2026-11-20T12:00:07Z"


def test_a_failed_candidate_probe_is_named_by_its_workload_id():
    """An unreadable Option B candidate is named by the id the node asked for (no path parsing); the read itself
    records that id as its invocation's argument."""
    from workload_diagnose.agent.procedures.runai_failed.nodes import _probe_notes

    other = "00000000-0000-4000-8000-777777777777"
    with running_simulator(world()) as sim:
        probe = client(sim).get_workload_status(other)
    assert not probe.ok and probe.invocations[0].arguments == {"workloadId": other}
    assert probe.invocations[0].request == f"GET /api/v1/workloads/{other}"
    lims = _probe_notes(other, probe)
    assert any(ln.startswith(f"The status of candidate {other} could not be read (get_workload_status: ")
               for ln in lims), lims


# ------------------------------------------------------------------------------------------ events paging (item 9)
def _normal_events(n: int, newest: datetime) -> list[dict]:
    return [event("Pulled", f"Successfully pulled image (#{i})", typ="Normal",
                  at=(newest - timedelta(seconds=i)).strftime("%Y-%m-%dT%H:%M:%SZ")) for i in range(n)]


def test_sixty_newer_normal_events_do_not_hide_the_oom_kill(run_world):
    """The OOMKilled event is the 61st newest: it is on the second page of events, inside the lookback."""
    evs = _normal_events(60, datetime(2026, 11, 20, 10, 0, tzinfo=timezone.utc))
    evs.append(event("OOMKilled", "Container trainer was OOM killed", at="2026-11-20T09:50:00Z"))
    res, reqs = run_world(world(workload(phaseMessage="Pod job-a-0-0 failed"), events=evs))
    assert res.category == "OOM_KILLED"
    pages = [p for m, p in reqs if m == "GET" and p.split("?")[0].endswith("/events")]
    assert len(pages) == 2 and "offset=50" in pages[1]
    assert "GET /api/v1/workloads/" + WID + "/events?sortOrder=desc&offset=50&limit=50" in [
        c.request for c in res.tool_calls]


def test_events_paging_stops_at_the_lookback():
    """A page that reaches events older than the lookback is the last one read."""
    evs = _normal_events(60, datetime(2026, 11, 20, 10, 0, tzinfo=timezone.utc))
    evs += _normal_events(60, datetime(2026, 11, 1, 10, 0, tzinfo=timezone.utc))  # 19 days before NOW
    with running_simulator(world(events=evs)) as sim:
        st = client(sim).get_workload_status(WID, cutoff=NOW - timedelta(days=7))
        # page 2 (events 51-100) reaches the old ones: page 3 is never asked for
        assert len([1 for m, p in sim.requests if "/events" in p]) == 2
    assert st.ok and len(st.data.events) == 100 and st.notes == []


def test_events_paging_cut_is_stated():
    evs = _normal_events(130, datetime(2026, 11, 20, 10, 0, tzinfo=timezone.utc))
    with running_simulator(world(events=evs)) as sim:
        st = client(sim, max_event_pages=2).get_workload_status(WID, cutoff=NOW - timedelta(days=7))
    assert st.ok and len(st.data.events) == 100
    assert st.notes == ["events pagination stopped after 2 pages (100 events) before the lookback was reached: "
                        "older events were not read"]


def test_events_cut_is_a_limitation_of_the_report(run_world):
    from workload_diagnose.agent.model.limits import Limits

    evs = _normal_events(1200, datetime(2026, 11, 20, 10, 0, tzinfo=timezone.utc))
    res, _ = run_world(world(events=evs), limits=Limits(max_event_pages=2))
    assert any("get_workload_status: events pagination stopped after 2 pages" in x for x in res.limitations)


def test_a_failed_token_exchange_is_not_repeated_by_the_other_thread():
    """The status read runs the workload and its events in two threads: one exchange (3 attempts), not two."""
    wd = world(faults=[{"method": "POST", "path": "/api/v1/token$", "status": 503, "times": -1}])
    with running_simulator(wd) as sim:
        with pytest.raises(ApiUnavailable) as e:
            client(sim).get_workload_status(WID)
        assert sum(1 for m, p in sim.requests if m == "POST") == 3
    assert "answered HTTP 503 after 3 attempts" in str(e.value)


def test_reads_one_at_a_time_give_the_same_status_with_the_workload_first():
    """``concurrent_reads=False`` (the service and triage): the same result, the workload read before its events,
    and no thread used for the read; with the default the events are read beside the workload."""
    import threading

    evs = [event("OOMKilled", "Container trainer was OOM killed")]
    with running_simulator(world(events=evs)) as sim:
        c = client(sim)
        c.ensure_token()
        both = c.get_workload_status(WID)
        seen: list[str] = []
        serial = client(sim, concurrent_reads=False)
        serial.ensure_token()
        inner = serial._get_json

        def spy(*a, **k):
            seen.append(threading.current_thread().name)
            return inner(*a, **k)

        serial._get_json = spy
        sim.requests.clear()
        one = serial.get_workload_status(WID)
        order = [p for _m, p in sim.requests]
    assert one.model_dump() == both.model_dump()
    assert order == [f"/api/v1/workloads/{WID}", f"/api/v1/workloads/{WID}/events?sortOrder=desc&offset=0&limit=50"]
    assert set(seen) == {threading.current_thread().name}


def test_a_forked_child_reads_events_beside_the_workload_after_the_parent_did():
    """The shared read pool is per process: a child forked after the parent used it (the eval's process pool)
    gets its own threads instead of queueing work on threads that fork did not copy."""
    import multiprocessing as mp

    if "fork" not in mp.get_all_start_methods():
        pytest.skip("no fork on this platform")
    with running_simulator(world(events=[event("OOMKilled", "Container trainer was OOM killed")])) as sim:
        assert client(sim).get_workload_status(WID).ok  # the parent's pool now exists, with its threads
        ctx = mp.get_context("fork")
        q = ctx.Queue()
        p = ctx.Process(target=_status_in_child, args=(sim.url, sim.client_id, sim.client_secret, q))
        p.start()
        p.join(20)
        alive = p.is_alive()
        if alive:
            p.kill()
        assert not alive, "the forked child hung on the parent's read pool"
        assert q.get(timeout=5) == (True, 1)


def _status_in_child(url, cid, secret, q):
    st = RunaiClient(url, cid, secret, sleep=lambda s: None).get_workload_status(WID)
    q.put((st.ok, len(st.data.events or [])))


_INTERRUPTED_SUBMIT = r"""
import threading, time
from workload_diagnose.tools.runai.rest import pool

real_start = threading.Thread.start
def start_then_ctrl_c(self):  # Ctrl-C lands just after the pool's new thread runs, before the pool records it
    real_start(self)
    threading.Thread.start = real_start
    raise KeyboardInterrupt
threading.Thread.start = start_then_ctrl_c
try:
    pool.beside(time.sleep, 0.1)
except KeyboardInterrupt:
    print("interrupted")
"""


def test_ctrl_c_while_the_read_pool_starts_a_thread_does_not_hang_the_exit():
    """CI caught the chat hanging after Ctrl-C: the interrupt landed inside the pool's ``submit`` after its
    thread started but before the pool recorded it, and the interpreter's exit waited for that thread for ever."""
    import subprocess
    import sys

    try:
        done = subprocess.run([sys.executable, "-c", _INTERRUPTED_SUBMIT], capture_output=True, text=True,
                              timeout=30, cwd=str(Path(__file__).resolve().parents[1]))
    except subprocess.TimeoutExpired:
        pytest.fail("the process did not exit after Ctrl-C during the pool's thread start")
    assert done.returncode == 0 and done.stdout.strip() == "interrupted", done.stderr[-2000:]


def test_a_cookie_the_api_sets_is_never_sent_back_and_writes_stay_refused():
    """Reads go straight to the checked transport: no cookie jar (a session cookie from Run:ai is not replayed)
    and the read-only check still refuses a write before it reaches the network."""
    import httpx

    from workload_diagnose.tools.base import WriteRefused
    from workload_diagnose.tools.transport import make_client

    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"workloads": []}, headers={"Set-Cookie": "sid=abcdef0123456789; Path=/"})

    c = RunaiClient("http://runai.test", None, None, bearer_token="t0k", transport=httpx.MockTransport(answer),
                    sleep=lambda s: None)
    c.list_workloads(name="x", cluster_id=CL, project="p")
    c.list_workloads(name="y", cluster_id=CL, project="p")
    assert len(seen) == 2 and all("cookie" not in r.headers for r in seen)
    assert not c._http.cookies  # not kept either
    http = make_client("http://runai.test", timeout=5, transport=httpx.MockTransport(answer))
    with pytest.raises(WriteRefused):
        http.send_streamed(httpx.Request("DELETE", "http://runai.test/api/v1/workloads/x"))
    assert len(seen) == 2
