"""One malformed item keeps the good ones (item 5): every list is parsed item by item, the bad item counted and its
field named in one line; wrong types in the workload's own fields are left out and named, never exit 3."""
from __future__ import annotations

from tests.hostile.conftest import WID, cli_args, cli_env, diagnose_at, run_cli
from workload_diagnose.evals.hostile import hostile, mutate


def _lims(res) -> str:
    return "\n".join(res.limitations)


def _first_event_type_is_a_number(body):
    body["events"][0]["type"] = 5


def test_one_bad_event_keeps_the_others(oom_world):
    n = len(oom_world["events"][WID])
    with hostile(oom_world, [("GET", r"/events$", mutate(_first_event_type_is_a_number))]) as (srv, sim):
        res = diagnose_at(srv.url, sim)
    assert f"get_workload_status: 1 of {n} events skipped: field 'type' is not a string" in res.limitations
    assert "Recent events could not be fetched" not in _lims(res)
    assert "validation error" not in res.report and "pydantic" not in res.report
    assert res.category == "OOM_KILLED"


def test_one_bad_pod_keeps_the_others(oom_world):
    good = dict(oom_world["pods"][WID][0])

    def add_bad_pods(body):
        body["pods"].append({"name": ["not", "a", "name"]})
        body["pods"].append("not an object")

    with hostile(oom_world, [("GET", r"/pods$", mutate(add_bad_pods))]) as (srv, sim):
        res = diagnose_at(srv.url, sim)
    note = ("get_workload_pods: 2 of 3 pods skipped: field 'name' is not a string; an item is not an object")
    assert note in res.limitations
    assert "The pods could not be read" not in _lims(res)
    assert good["name"] in res.report  # the good pod's evidence is still cited


def test_bad_history_records_and_metric_series_are_counted(oom_world):
    def bad_record(body):
        body["records"].insert(0, {"meta": {"creationTimestamp": "2026-11-20T11:00:00Z"},
                                   "spec": {"event": {"reason": {"nested": "object"}}}})

    def bad_series(body):
        body["measurements"].append({"type": 17, "values": []})

    with hostile(oom_world, [("GET", r"/history$", mutate(bad_record)),
                             ("GET", r"/metrics$", mutate(bad_series))]) as (srv, sim):
        res = diagnose_at(srv.url, sim)
    lims = _lims(res)
    assert "get_workload_history: 1 of " in lims and "history records skipped: field 'spec.event.reason' is not a " \
                                                     "string" in lims
    assert "get_workload_metrics: 1 of 4 metric series skipped: field 'type' is not a string" in lims
    assert res.category == "OOM_KILLED"


def test_wrong_types_in_the_workload_are_named_not_exit_3(oom_world):
    def damage(body):
        body["phase"] = 7
        body["conditions"] = [{"type": ["Ready"], "status": "False"}, {"type": "PodScheduled", "status": "True"}]
        body["phaseMessage"] = {"oops": 1}

    with hostile(oom_world, [("GET", rf"/workloads/{WID}$", mutate(damage))]) as (srv, sim):
        res = diagnose_at(srv.url, sim)
    lims = _lims(res)
    assert "get_workload_status: workload: field 'phase' is not a string; it was left out" in lims
    assert "get_workload_status: workload: field 'phaseMessage' is not a string; it was left out" in lims
    assert "get_workload_status: 1 of 2 workload conditions skipped: field 'type' is not a string" in lims


def test_wrong_name_type_is_exit_0_through_the_cli(oom_world):
    def damage(body):
        body["name"] = 12345
        body["conditions"] = "not a list"

    with hostile(oom_world, [("GET", rf"/workloads/{WID}$", mutate(damage))]) as (srv, sim):
        run = run_cli(cli_args(srv.url), cli_env(sim))
    assert run.code == 0, run.stderr
    lims = "\n".join(run.json["limitations"])
    assert "workload: field 'name' is not a string; it was left out" in lims
    assert "workload: field 'conditions' is not a list; it was left out" in lims


def test_a_bad_listed_workload_does_not_hide_the_good_one(oom_world):
    w = oom_world["workloads"][0]
    bad = dict(w, id="0b4e7c2a-1f3d-4e5a-8b6c-9d0e1f2a3b4d", phaseUpdatedAt=["x"])

    def add_bad(body):
        body["workloads"].insert(0, bad)

    with hostile(oom_world, [("GET", r"/workloads$", mutate(add_bad))]) as (srv, sim):
        res = diagnose_at(srv.url, sim, workload_id=None, workload_name=w["name"], project=w["projectName"])
    assert res.workload.id == w["id"] and res.category == "OOM_KILLED"
    assert "list_workloads: 1 of 2 listed workloads skipped: field 'phaseUpdatedAt' is not a string" in res.limitations
