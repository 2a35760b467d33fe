"""``workload-diagnose preempted`` end to end: the compiled graph over real HTTP against the Run:ai simulator (reads,
reason, owner, preemptor, quota), the route ``failed`` hands over (``next``) answered for every scenario that
routes there, a source without the ``projects`` capability, a preemptor outside the caller's scope, and the
surfaces the spec derives (CLI, HTTP, MCP)."""
from __future__ import annotations

import copy
import json
from typing import Any

import httpx
import pytest

from tests.conftest import CL, NOW, WID, world, workload
from workload_diagnose.agent.api import run_procedure
from workload_diagnose.evals.simulator import running_simulator
from workload_diagnose.tools.runai import ApiAuthError

PRIO = "Pod runai-team/job-a-0-0 was preempted by higher priority workload runai-team/urgent"
RECLAIM = ("Pod runai-team/job-a-0-0 was preempted by workload runai-serving/llm-serve.\n"
           "team uses <GPU: 12, CPU: 0 (cores), memory: 0 (GB)> with a quota of <GPU: 8, CPU: 0 (cores), memory: 0 "
           "(GB)>, "
           "fair-share of <GPU: 8, CPU: 0 (cores), memory: 0 (GB)> and queue priority of <100>.\n"
           "serving uses <GPU: 1, CPU: 0 (cores), memory: 0 (GB)> with a quota of <GPU: 6, CPU: 0 (cores), memory: 0 "
           "(GB)>, fair-share of <GPU: 6, CPU: 0 (cores), memory: 0 (GB)> and queue priority of <100>.")
PROJECT = {"id": "17", "name": "team", "clusterId": CL,
           "resources": [{"nodePool": {"id": "3", "name": "a100"}, "gpu": {"deserved": 8, "limit": -1,
                                                                         "overQuotaWeight": 2}}],
           "status": {"nodePoolQuotaStatuses": [{"nodePoolName": "a100", "nodePoolId": "3", "allocated": {"gpu": 12},
                                                 "allocatedNonPreemptible": {"gpu": 4}}]}}


def evict(msg: str, at: str = "2026-11-20T09:30:00Z") -> dict:
    return {"createdAt": at, "type": "Normal", "reason": "Evict", "message": msg, "source": "runai-scheduler",
            "involvedObject": {"kind": "PodGroup", "name": "pg-job-a"}}


def preemptor(name: str, project: str, typ: str = "Training") -> dict:
    return {"id": "11111111-2222-4333-8444-5555555555" + str(len(name) + 10), "name": name, "projectName": project,
            "clusterId": CL, "type": typ, "phase": "Running", "priorityClassName": "high", "priority": 125}


def preempted_world(msg: str = PRIO, who: dict | None = None) -> dict:
    w = workload(phase="Pending", priorityClassName="train", priority=50, preemptible=True,
                 requestedNodePools=["a100"])
    e = evict(msg)
    wd = world(w, events=[e], history=[{"spec": {"event": e}}],
               spec={"spec": {"priorityClass": "train", "preemptibility": "preemptible",
                              "terminateAfterPreemption": False}}, projects=[PROJECT])
    wd["workloads"].append(who or preemptor("urgent", "team"))
    return wd


def run(wd: dict, procedure: str = "preempted", source: Any = None, **kw) -> tuple[Any, list]:
    args = {"cluster_id": CL, "workload_id": WID, "now": NOW, "use_kube": False}
    args.update(kw)
    with running_simulator(copy.deepcopy(wd)) as sim:
        src = source(sim) if source is not None else None
        try:
            res = run_procedure(procedure, runai_url=sim.url, client_id=sim.client_id,
                                client_secret=sim.client_secret, retry_sleep=lambda s: None, source=src, **args)
        finally:
            if src is not None:
                src.close()
        return res, list(sim.requests)


def test_a_priority_preemption_is_explained_with_the_minimum_reads():
    res, reqs = run(preempted_world())
    assert (res.outcome, res.reason, res.owner, res.route) == ("diagnosed", "PRIORITY_PREEMPTION", "researcher", None)
    assert res.report.startswith("Reason: PRIORITY_PREEMPTION — ")
    [p] = res.preemptions
    assert (p.preemptor, p.preemptor_project, p.preemptor_type, p.preemptor_priority) == (
        "runai-team/urgent", "team", "Training", "high (125)")
    assert (res.scheduling.priority_class, res.scheduling.preemptible, res.scheduling.terminate_after_preemption) == (
        "train", True, False)
    pool = res.quota.pools[0]
    assert (res.quota.workload_pool, pool.deserved_gpus, pool.allocated_gpus, pool.allocated_non_preemptible_gpus,
            pool.over_quota) == ("a100", 8, 12, 4, True)
    assert res.recurrence.count == 1 and not res.recurrence.recurring
    # read-only, and exactly the reads the steps need: status (+ events), history, spec, project, the preemptor
    assert {m for m, _ in reqs} == {"GET", "POST"} and [p for m, p in reqs if m == "POST"] == ["/api/v1/token"]
    paths = sorted(p.split("?")[0] for m, p in reqs if m == "GET")
    assert paths == sorted([f"/api/v1/workloads/{WID}", f"/api/v1/workloads/{WID}/events",
                            f"/api/v1/workloads/{WID}/history", f"/api/v1/workloads/trainings/{WID}",
                            "/api/v1/org-unit/projects", "/api/v1/workloads"])
    assert [c.tool for c in res.tool_calls].count("list_workloads") == 1  # the preemptor, by exact name and project


def test_a_reclaim_states_the_figures_and_a_quota_request():
    res, _ = run(preempted_world(RECLAIM, preemptor("llm-serve", "serving", "Inference")))
    assert (res.reason, res.owner) == ("OVER_QUOTA_RECLAIM", "project admin")
    text = " ".join(res.recommendations)
    assert "12 GPUs allocated in node pool a100 against 8 deserved" in text
    assert res.preemptions[0].preemptor_type == "Inference"


def test_failed_hands_a_preemption_over_by_name_and_the_key_is_absent_otherwise():
    res, _ = run(preempted_world(), procedure="runai_failed")
    data = res.model_dump(mode="json")
    assert (data["outcome"], data["route"], data["next"]) == ("routed", "preempted", "preempted")
    assert list(data)[:5] == ["outcome", "category", "route", "next", "workload"]
    assert "workload-diagnose preempted" in res.report
    oom = world(workload(phase="Failed", k8sPhase="OOMKilled"), events=[])
    res, _ = run(oom, procedure="runai_failed")
    assert res.outcome == "diagnosed" and "next" not in res.model_dump(mode="json")
    res, _ = run(oom)  # and the preemption diagnosis hands a workload that was not preempted back to failed
    assert (res.outcome, res.route, res.next, res.reason) == ("routed", "not_preempted", "failed", None)


def test_every_scenario_failed_routes_as_preempted_is_answered_by_the_preemption_diagnosis():
    from workload_diagnose.evals.runner import live
    from workload_diagnose.evals.scenarios import all_scenarios

    routed = [sc for sc in all_scenarios() if sc.expected.route == "preempted" and not sc.tier2]
    assert len(routed) >= 3
    for sc in routed:
        res, _ = live(sc.model_copy(update={"procedure": "preempted"}))
        assert res.outcome == "diagnosed" and res.reason, (sc.id, res.outcome, res.route)


class _SixReads:
    """A source with the six skill reads and nothing else (no ``projects`` capability)."""

    def __init__(self, inner):
        self._inner = inner
        for name in ("list_workloads", "get_workload_status", "get_workload_spec", "get_workload_pods",
                     "get_workload_history", "get_workload_metrics", "close"):
            setattr(self, name, getattr(inner, name))

    @property
    def injections(self):
        return self._inner.injections


def _client(sim):
    from workload_diagnose.tools.runai import RunaiClient

    return RunaiClient(sim.url, sim.client_id, sim.client_secret, sleep=lambda s: None)


def test_a_source_without_the_projects_capability_says_the_quota_was_not_read():
    res, reqs = run(preempted_world(), source=lambda sim: _SixReads(_client(sim)))
    assert res.reason == "PRIORITY_PREEMPTION" and res.quota is None
    assert any("does not read projects" in x for x in res.limitations)
    assert "Quota: not read" in res.report and not any("org-unit" in p for _, p in reqs)


class _ScopedToTeam:
    """Refuses a list of another project, as the service's scoped tokens do (before anything is sent)."""

    def __init__(self, inner):
        self._inner = inner

    def list_workloads(self, *, name, cluster_id, project):
        if project != "team":
            raise ApiAuthError("the caller's token does not allow project " + project)
        return self._inner.list_workloads(name=name, cluster_id=cluster_id, project=project)

    def __getattr__(self, name):
        return getattr(self._inner, name)


def test_a_preemptor_outside_the_callers_scope_is_a_limitation_not_a_refusal():
    res, reqs = run(preempted_world(RECLAIM, preemptor("llm-serve", "serving")),
                    source=lambda sim: _ScopedToTeam(_client(sim)))
    assert res.reason == "OVER_QUOTA_RECLAIM" and res.preemptions[0].preemptor_type is None
    assert any("which these credentials may not read" in x for x in res.limitations)
    assert not any(p.startswith("/api/v1/workloads?") for _, p in reqs)


def test_the_command_the_route_and_the_tool_come_from_the_spec():
    from typer.testing import CliRunner

    from workload_diagnose.agent.entrypoints.cli import app
    from workload_diagnose.agent.service.config import ServiceConfig
    from tests.service.live import live_service

    wd = preempted_world()
    with running_simulator(copy.deepcopy(wd)) as sim:
        env = {"RUNAI_BASE_URL": sim.url, "RUNAI_CLIENT_ID": sim.client_id, "RUNAI_CLIENT_SECRET": sim.client_secret}
        out = CliRunner().invoke(app, ["preempted", "--cluster-id", CL, "--workload-id", WID, "--now", NOW,
                                       "--no-kube", "--json"], env=env)
        assert out.exit_code == 0, out.output
        cli = json.loads(out.output)
        assert (cli["reason"], cli["owner"]) == ("PRIORITY_PREEMPTION", "researcher")
        cfg = ServiceConfig(runai_url=sim.url, client_id=sim.client_id, client_secret=sim.client_secret, kube="off")
        with live_service(cfg) as url:
            r = httpx.post(f"{url}/v1/preemptions", json={"cluster_id": CL, "workload_id": WID, "now": NOW},
                           timeout=30)
            assert r.status_code == 200, r.text
            got = r.json()
            doc = httpx.get(f"{url}/openapi.json").json()
    assert got["reason"] == cli["reason"] and list(got) == list(cli)
    assert "/v1/preemptions" in doc["paths"]


@pytest.mark.parametrize("tool", ["diagnose_preempted_workload"])
def test_the_mcp_tool_takes_the_runai_parameters(tool):
    import asyncio

    from workload_diagnose.agent.service.mcp import build_server

    tools = {t.name: t for t in asyncio.run(build_server().list_tools())}
    assert set(tools[tool].input_schema["properties"]) == {"cluster_id", "workload_id", "workload_name", "project",
                                                           "intent", "lookback", "now"}
    assert tools[tool].annotations.read_only_hint and not tools[tool].annotations.destructive_hint


def test_the_scenario_suite_covers_every_reason_both_options_missing_and_hostile_evidence():
    from workload_diagnose.agent.taxonomy.preemption import NAMES
    from workload_diagnose.evals.scenarios import all_scenarios

    scs = all_scenarios(["preempted"])
    assert len(scs) >= 25
    assert all(sc.procedure == "preempted" and sc.about for sc in scs)
    assert {sc.expected.reason for sc in scs if sc.expected.outcome == "diagnosed"} == set(NAMES)
    assert any(sc.args.workload_id for sc in scs) and any(sc.args.workload_name and sc.args.project for sc in scs)
    assert sum("missing-evidence" in sc.tags for sc in scs) >= 5 and sum("hostile" in sc.tags for sc in scs) >= 3
