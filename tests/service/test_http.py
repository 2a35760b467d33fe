"""POST /v1/diagnoses over real HTTP (uvicorn) against the Run:ai simulator: the failed --json object exactly,
SSE progress, field errors, body limit, concurrency limit, upstream failures, readiness, metrics."""
from __future__ import annotations

import json
import threading
import time

import httpx
import pytest

from workload_diagnose.agent.api import diagnose
from workload_diagnose.evals.simulator import running_simulator
from tests.service.conftest import body_of, clear, reads
from tests.service.live import config_for, free_port, live_service
from workload_diagnose.agent.service.config import ServiceConfig
from workload_diagnose.agent.service.upstream import KUBE_OFF

SCENARIOS = ["core/oom-metrics", "core/option-b-terminal", "core/image-pull-manifest", "core/route-preempted",
             "core/option-b-active-crashloop", "core/route-no-match"]


def cli_object(sc, sim) -> dict:
    """What ``workload-diagnose failed --no-kube --json`` prints for this scenario (the CLI prints exactly this
    dump); the one difference is the reason Tier 2 is unavailable, which names the service's setting."""
    res = diagnose(**body_of(sc), runai_url=sim.url, client_id=sim.client_id, client_secret=sim.client_secret,
                   use_kube=False)
    return json.loads(json.dumps(res.model_dump(mode="json")).replace("--no-kube was given", KUBE_OFF))


@pytest.mark.parametrize("sid", SCENARIOS)
def test_diagnosis_is_exactly_the_failed_json_object(service, sim, scenarios, sid):
    sc = scenarios[sid]
    r = httpx.post(f"{service}/v1/diagnoses", json=body_of(sc), timeout=30)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("application/json")
    got = r.json()
    assert (got["outcome"], got["category"], got["route"]) == sc.expected.verdict()
    want = cli_object(sc, sim)
    assert got == want and list(got) == list(want)  # same fields, same values, same order


def _events(resp: httpx.Response) -> list[tuple[str, dict]]:
    out, event = [], None
    for line in resp.iter_lines():
        if line.startswith("event: "):
            event = line[len("event: "):]
        elif line.startswith("data: "):
            out.append((event, json.loads(line[len("data: "):])))
    return out


@pytest.mark.parametrize("sid", ["core/oom-metrics", "core/option-b-active-crashloop"])
def test_sse_streams_one_progress_event_per_tool_call_then_the_result(service, sim, scenarios, sid):
    sc = scenarios[sid]
    with httpx.stream("POST", f"{service}/v1/diagnoses", json=body_of(sc), timeout=30,
                      headers={"Accept": "text/event-stream"}) as r:
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/event-stream")
        events = _events(r)
    kinds = [k for k, _ in events]
    assert kinds[-1] == "result" and set(kinds[:-1]) == {"progress"}
    result = events[-1][1]
    assert result == cli_object(sc, sim)
    progress = sorted(json.dumps(d, sort_keys=True) for _, d in events[:-1])
    assert progress == sorted(json.dumps(c, sort_keys=True) for c in result["tool_calls"])
    assert len(progress) == len(result["tool_calls"]) >= 4


BAD = [
    ({}, "cluster_id"),
    ({"cluster_id": "3f2c7a1e-8d4b-4c1e-9a57-2b6e0d9c4f11"}, "workload_id"),
    ({"cluster_id": "3f2c7a1e-8d4b-4c1e-9a57-2b6e0d9c4f11", "workload_name": "x"}, "project"),
    ({"cluster_id": "c1", "workload_id": "w1", "colour": "red"}, "colour"),
    ({"cluster_id": "c1", "workload_name": "a,projectName==x", "project": "p"}, "workload_name"),
    ({"cluster_id": "c1", "workload_name": "ok", "project": "../x"}, "project"),
    ({"cluster_id": "c1/../x", "workload_id": "w1"}, "cluster_id"),
    ({"cluster_id": "c1", "workload_id": "w1", "lookback": "7 fortnights"}, "lookback"),
    ({"cluster_id": "c1", "workload_id": "w1", "now": "yesterday"}, "now"),
    ({"cluster_id": "c1", "workload_id": "w1", "now": "0001-01-01T00:00:00Z"}, "now"),
    ({"cluster_id": "c1", "workload_id": "w1", "lookback": "0d"}, "lookback"),
    ({"cluster_id": "c1", "workload_id": "w1", "intent": "maybe"}, "intent"),
    ({"cluster_id": "c1", "workload_id": "w1", "workload_name": "n", "project": "p"}, "not both"),
]


@pytest.mark.parametrize("body,field", BAD)
def test_bad_input_is_422_with_field_errors_and_no_read(service, sim, body, field):
    clear(sim)
    r = httpx.post(f"{service}/v1/diagnoses", json=body, timeout=10)
    assert r.status_code == 422, r.text
    detail = r.json()["detail"]
    assert isinstance(detail, list) and detail
    assert all(set(e) == {"loc", "msg", "type"} for e in detail)
    assert any(field in e["loc"] or field in e["msg"] for e in detail), detail
    assert reads(sim) == []  # nothing was read


def test_not_json_is_422_saying_where(service, sim):
    clear(sim)
    r = httpx.post(f"{service}/v1/diagnoses", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 422 and reads(sim) == []
    (err,) = r.json()["detail"]
    assert err["type"] == "json_invalid" and err["msg"].startswith("the request body is not valid JSON: ")
    assert "(at character 1)" in err["msg"] and "\n" not in r.text


@pytest.mark.parametrize("headers", [{}, {"content-type": "application/x-www-form-urlencoded"},
                                     {"content-type": "text/plain"}])
def test_a_body_not_sent_as_json_is_415_in_one_line(service, sim, scenarios, headers):
    """curl -d without -H 'Content-Type: application/json' sends a form: one line that says the fix."""
    clear(sim)
    body = json.dumps(body_of(scenarios["core/oom-metrics"])).encode()
    r = httpx.post(f"{service}/v1/diagnoses", content=body, headers=headers, timeout=10)
    assert r.status_code == 415, r.text
    assert r.json() == {"detail": "the request body must be JSON sent with the header Content-Type: "
                                  "application/json (curl: -H 'Content-Type: application/json')"}
    assert reads(sim) == []
    ok = httpx.post(f"{service}/v1/diagnoses", content=body, timeout=30,
                    headers={"content-type": "application/json; charset=utf-8"})
    assert ok.status_code == 200  # the same bytes, declared as JSON


def test_body_over_64_kib_is_413_without_a_read(service, sim, scenarios):
    clear(sim)
    big = {**body_of(scenarios["core/oom-metrics"]), "pad": "x" * (64 * 1024)}
    r = httpx.post(f"{service}/v1/diagnoses", json=big, timeout=10)
    assert r.status_code == 413 and "64 KiB" in r.json()["detail"]

    def chunks():  # no Content-Length: counted as it streams
        yield b'{"cluster_id": "c1", "workload_id": "w1", "pad": "'
        for _ in range(80):
            yield b"y" * 1024
        yield b'"}'

    r = httpx.post(f"{service}/v1/diagnoses", content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413
    assert reads(sim) == []


def test_full_concurrency_limit_is_429_with_retry_after_and_no_read(scenarios):
    sc = scenarios["core/oom-metrics"]
    from workload_diagnose.evals.bench_serve import merged_world

    with running_simulator(merged_world([sc]), delay_ms=300) as slow:
        with live_service(config_for(slow, max_concurrent=1)) as url:
            first: dict = {}
            t = threading.Thread(target=lambda: first.update(r=httpx.post(f"{url}/v1/diagnoses", json=body_of(sc),
                                                                           timeout=30)))
            t.start()
            deadline = time.monotonic() + 10
            while not reads(slow) and time.monotonic() < deadline:  # the first diagnosis holds the slot
                time.sleep(0.01)
            r = httpx.post(f"{url}/v1/diagnoses", json=body_of(sc), timeout=10)
            assert r.status_code == 429
            assert r.headers["retry-after"] == "1"
            t.join(30)
            assert first["r"].status_code == 200
            arrived = reads(slow)
            # every read belongs to the one admitted diagnosis: no request path was read twice
            gets = [p for m, p in arrived if m == "GET"]
            assert len(gets) == len(set(gets)) == len(first["r"].json()["tool_calls"])
            r = httpx.get(f"{url}/metrics")
            assert 'workload_diagnose_rejected_total{reason="busy"} 1.0' in r.text


def test_unreachable_run_ai_is_502_and_a_timeout_504_one_line_no_traceback(scenarios):
    sc = scenarios["core/oom-metrics"]
    closed = f"http://127.0.0.1:{free_port()}"
    with live_service(ServiceConfig(runai_url=closed, client_id="c", client_secret="s", kube="off")) as url:
        r = httpx.post(f"{url}/v1/diagnoses", json=body_of(sc), timeout=30)
        assert r.status_code == 502, r.text
        assert set(r.json()) == {"detail"} and "\n" not in r.text and "Traceback" not in r.text
        # an upstream outage is reported, not a reason to leave the Service (readiness would empty it on every
        # replica at once, and callers would lose the one-line 502)
        ready = httpx.get(f"{url}/readyz")
        assert ready.status_code == 200 and ready.json()["runai"] == "unreachable", ready.text
        assert "cannot reach" in ready.json()["detail"] or "Run:ai" in ready.json()["detail"]
        text = httpx.get(f"{url}/metrics").text
        assert "workload_diagnose_failures_total{status=\"502\"} 1.0" in text
        assert "workload_diagnose_runai_up 0.0" in text
    from workload_diagnose.evals.bench_serve import merged_world

    world = {**merged_world([sc]), "faults": [{"path": "/api/v1/workloads/[^/]+$", "kind": "timeout",
                                               "seconds": 1.5, "times": -1}]}
    with running_simulator(world) as hanging:
        cfg = config_for(hanging, upstream_timeout_s=0.3)
        with live_service(cfg) as url:
            r = httpx.post(f"{url}/v1/diagnoses", json=body_of(sc), timeout=30)
            assert r.status_code == 504, r.text
            assert "timed out" in r.json()["detail"] and "Traceback" not in r.text
            text = httpx.get(f"{url}/metrics").text
            assert 'workload_diagnose_upstream_errors_total{kind="timeout"}' in text


def test_a_diagnosis_over_its_deadline_is_504_and_frees_its_slot_when_done(scenarios):
    sc = scenarios["core/oom-metrics"]
    from workload_diagnose.evals.bench_serve import merged_world

    with running_simulator(merged_world([sc]), delay_ms=250) as slow:
        with live_service(config_for(slow, deadline_s=0.4, max_concurrent=1)) as url:
            r = httpx.post(f"{url}/v1/diagnoses", json=body_of(sc), timeout=30)
            assert r.status_code == 504 and "the diagnosis timed out (over 0.4 s)" in r.json()["detail"]
            deadline = time.monotonic() + 10
            while 'workload_diagnose_in_flight 0.0' not in httpx.get(f"{url}/metrics").text:
                assert time.monotonic() < deadline, "the slot was never freed"
                time.sleep(0.05)
            # the diagnosis stopped reading at its deadline too: the token and the status, none of the later steps
            read = [path.split("?")[0] for _method, path in slow.requests]
            assert len(read) <= 3 and not any(p.endswith(("/pods", "/history")) for p in read), read


def test_service_account_credentials_refused_is_502_not_the_callers_401(sim, scenarios):
    with live_service(ServiceConfig(runai_url=sim.url, client_id=sim.client_id, client_secret="wrong",
                                    kube="off")) as url:
        r = httpx.post(f"{url}/v1/diagnoses", json=body_of(scenarios["core/oom-metrics"]), timeout=30)
        assert r.status_code == 502 and "service account" in r.json()["detail"]
        ready = httpx.get(f"{url}/readyz")
        assert ready.status_code == 200 and ready.json()["runai"] == "unreachable"
        assert "refused the service account's credentials" in ready.json()["detail"]


def test_readyz_is_503_only_for_a_source_that_is_not_configured():
    with live_service(ServiceConfig(runai_url=None, kube="off")) as url:
        r = httpx.get(f"{url}/readyz")
        assert r.status_code == 503 and r.json()["status"] == "unavailable"
        assert r.json()["detail"] == "RUNAI_BASE_URL is not set"


def test_readyz_checks_run_ai_for_real_and_caches_briefly(service, sim):
    clear(sim)
    a = httpx.get(f"{service}/readyz")
    b = httpx.get(f"{service}/readyz")
    assert a.status_code == b.status_code == 200 and a.json()["status"] == "ok"
    assert a.json()["runai"] == "reachable" and "token exchange succeeded" in a.json()["detail"]
    assert reads(sim).count(("POST", "/api/v1/token")) == 1  # a real token exchange, then the cached answer
    assert "workload_diagnose_runai_up 1.0" in httpx.get(f"{service}/metrics").text
    assert httpx.get(f"{service}/healthz").json() == {"status": "ok", "detail": None}


def test_one_token_exchange_and_shared_pool_for_many_requests(scenarios):
    sc = scenarios["core/oom-metrics"]
    from workload_diagnose.evals.bench_serve import merged_world

    with running_simulator(merged_world([sc])) as s:
        with live_service(config_for(s)) as url:
            with httpx.Client(base_url=url, timeout=30) as c:
                for _ in range(6):
                    assert c.post("/v1/diagnoses", json=body_of(sc)).status_code == 200
            assert reads(s).count(("POST", "/api/v1/token")) == 1


def test_metrics_count_diagnoses_by_outcome_and_category(service, scenarios):
    for sid in ("core/oom-metrics", "core/route-preempted"):
        assert httpx.post(f"{service}/v1/diagnoses", json=body_of(scenarios[sid]), timeout=30).status_code == 200
    text = httpx.get(f"{service}/metrics").text
    assert 'workload_diagnose_diagnoses_total{category="OOM_KILLED",outcome="diagnosed"}' in text
    assert 'workload_diagnose_diagnoses_total{category="none",outcome="routed"}' in text
    assert "workload_diagnose_diagnosis_seconds_bucket" in text


def test_openapi_documents_the_contract(service):
    doc = httpx.get(f"{service}/openapi.json").json()
    op = doc["paths"]["/v1/diagnoses"]["post"]
    body = doc["components"]["schemas"]["DiagnosisBody"]
    assert body["additionalProperties"] is False and body["required"] == ["cluster_id"]
    assert set(body["properties"]) == {"cluster_id", "workload_id", "workload_name", "project", "intent", "lookback",
                                       "now"}
    assert {"200", "401", "403", "413", "422", "429", "502", "504"} <= set(op["responses"])
    assert {"/healthz", "/readyz", "/metrics"} <= set(doc["paths"])
