"""A diagnosis in the service makes its independent Run:ai reads at once on the worker's event loop: as many
dependent round trips as the procedure has (the simulator counts them), each read once, the answer exactly the
``failed --json`` object; with ``WD_SPECULATIVE_READS=on`` the reads that need only the workload id go beside the
status, and one the procedure does not make is listed in ``tool_calls`` as unused."""
from __future__ import annotations

import httpx
import pytest

from tests.service.conftest import body_of
from tests.service.live import config_for, live_service, tokens
from tests.service.test_http import cli_object
from workload_diagnose.agent.service.config import ConfigError, ServiceConfig
from workload_diagnose.evals.bench_serve import merged_world
from workload_diagnose.evals.simulator import dependent_depth, running_simulator


def _diagnose(url: str, sim, sc, headers: dict | None = None) -> tuple[dict, int, list]:
    with sim.lock:
        sim.requests.clear()
        sim.timeline.clear()
    r = httpx.post(f"{url}/v1/diagnoses", json=body_of(sc), headers=headers or {}, timeout=30)
    assert r.status_code == 200, r.text
    with sim.lock:
        return r.json(), dependent_depth(sim.timeline), list(sim.requests)


@pytest.fixture(scope="module")
def world(scenarios):
    return merged_world([scenarios[s] for s in ("core/oom-metrics", "core/route-preempted")])


def test_a_diagnosis_reads_in_its_dependent_round_trips_each_read_once(scenarios, world):
    sc = scenarios["core/oom-metrics"]
    with running_simulator(world, delay_ms=200) as sim, live_service(config_for(sim)) as url:
        _diagnose(url, sim, sc)  # (the service account's token is exchanged once, at the first)
        got, depth, requests = _diagnose(url, sim, sc)
        want = cli_object(sc, sim)
    assert got == want
    # the status (the workload beside its events), then spec, pods, history and metrics together
    assert depth == 2 and len(requests) == len(set(requests)) == 6


def test_speculative_reads_go_beside_the_status_and_an_unneeded_one_is_listed_unused(scenarios, world):
    oom, preempted = scenarios["core/oom-metrics"], scenarios["core/route-preempted"]
    with running_simulator(world, delay_ms=200) as sim, \
            live_service(config_for(sim, speculative_reads=True)) as url:
        _diagnose(url, sim, oom)
        got, depth, requests = _diagnose(url, sim, oom)
        assert got == cli_object(oom, sim) and depth == 2 and len(requests) == len(set(requests)) == 6
        got, depth, requests = _diagnose(url, sim, preempted)  # preempted: the status ends the procedure
        want = cli_object(preempted, sim)
    unused = [c for c in got["tool_calls"] if "unused" in c]
    assert {c["tool"] for c in unused} == {"get_workload_pods", "get_workload_history", "get_workload_metrics"}
    assert all(c["status"] == 200 and "not used as evidence" in c["unused"] for c in unused)
    assert {**got, "tool_calls": [c for c in got["tool_calls"] if "unused" not in c]} == want
    assert depth == 1 and len(requests) == len(set(requests)) == 5  # workload, events + the three, at once


def test_no_speculative_read_for_a_token_whose_scope_is_checked_on_the_status(scenarios, world):
    sc = scenarios["core/route-preempted"]
    texts, parsed = tokens(scoped=([sc.args.cluster_id], ["*"]))
    with running_simulator(world) as sim, \
            live_service(config_for(sim, auth="tokens", tokens=parsed, speculative_reads=True)) as url:
        got, _depth, requests = _diagnose(url, sim, sc, {"Authorization": f"Bearer {texts['scoped']}"})
    assert not any("unused" in c for c in got["tool_calls"])
    assert all("/pods" not in p and "/history" not in p and "/metrics" not in p for _m, p in requests)


def test_speculative_reads_are_off_unless_set_on():
    assert not ServiceConfig.from_env({}).speculative_reads
    assert ServiceConfig.from_env({"WD_SPECULATIVE_READS": "on"}).speculative_reads
    with pytest.raises(ConfigError, match="WD_SPECULATIVE_READS must be on or off"):
        ServiceConfig.from_env({"WD_SPECULATIVE_READS": "yes"})
