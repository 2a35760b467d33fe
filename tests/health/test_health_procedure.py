"""The health snapshot on its real paths: the attention rules' samples through their interpreter, the state's
definition, the compiled graph against the Run:ai simulator over real HTTP, its command, its HTTP route on a real
uvicorn server and its MCP tool through the official SDK's client (a real subprocess)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import timedelta

import anyio
import httpx
import pytest

from workload_diagnose.agent.api import run_procedure
from workload_diagnose.agent.evidence import attention as att
from workload_diagnose.agent.model.time import parse_time
from workload_diagnose.agent.procedures import for_request, spec
from workload_diagnose.agent.procedures.health.state import HealthRequest, health_request
from workload_diagnose.agent.taxonomy.attention_registry import RULES
from workload_diagnose.agent.taxonomy.health_states import NAMES, state_of
from workload_diagnose.evals.scenarios import load_scenario
from workload_diagnose.evals.simulator import running_simulator
from workload_diagnose.tools.runai import InvalidInput
from workload_diagnose.tools.runai.models import Workload

MIXED = "health/mixed-every-rule"
SAMPLES = [(r, s, want) for r in RULES for want, ss in ((True, r.true), (False, r.false)) for s in ss]


@pytest.mark.parametrize("rule,sample,want", SAMPLES,
                         ids=[f"{r.name}-{'true' if w else 'false'}-{i}" for i, (r, s, w) in enumerate(SAMPLES)])
def test_each_attention_rule_holds_for_its_true_samples_only(rule, sample, want):
    w = Workload.model_validate({"id": "w1", **sample.workload})
    now = parse_time(sample.now)
    got = att.holds(rule, w, now, now - timedelta(days=7)) and att.confirmed(rule, sample.count)
    assert got is want


def test_every_rule_is_answered_by_a_registered_procedure_or_names_an_action():
    for r in RULES:
        assert (r.answered_by in {"runai_failed", "pending", "preempted"}) or (r.answered_by is None and r.action)
        if r.answered_by:
            assert spec(r.answered_by).command is not None


def test_the_state_follows_from_the_items_and_the_listing_alone():
    assert state_of(["attention", "failing"], False).name == "DEGRADED"
    assert state_of(["attention"], True).name == "NEEDS_ATTENTION"
    assert state_of([], True).name == "HEALTHY"
    assert state_of([], False).name == "UNDETERMINED"  # never "healthy" on a partial listing
    assert set(NAMES) == {"DEGRADED", "NEEDS_ATTENTION", "UNDETERMINED", "HEALTHY"}


def test_the_request_takes_a_scope_and_refuses_bad_input_in_one_line():
    assert for_request(HealthRequest(cluster_id="c", project="p")).name == "health"
    assert health_request(cluster_id="c1", department="research").complete
    with pytest.raises(InvalidInput, match="not both"):
        health_request(cluster_id="c1", project="p", department="d")
    with pytest.raises(InvalidInput, match="max diagnoses"):
        health_request(cluster_id="c1", project="p", max_diagnoses=99)
    with pytest.raises(InvalidInput):
        health_request(cluster_id="c1", project="a,b==c")


def _run(sc, world=None, **kw):
    with running_simulator(world if world is not None else sc.world) as sim:
        extra = {"extra": {"department": sc.args.department}} if sc.args.department else {}
        res = run_procedure("health", cluster_id=sc.args.cluster_id, project=sc.args.project,
                            lookback=sc.args.lookback, now=sc.args.now, runai_url=sim.url, client_id=sim.client_id,
                            client_secret=sim.client_secret, use_kube=False, retry_sleep=lambda s: None,
                            **extra, **kw)
        return res, list(sim.requests)


def test_the_graph_over_the_simulator_lists_once_and_reads_only():
    res, requests = _run(load_scenario(MIXED))
    assert res.state == "DEGRADED"
    assert {i.rule for i in res.attention} == {r.name for r in RULES}
    assert all(m in ("GET", "POST") for m, _ in requests)
    assert [p for m, p in requests if m == "POST"] == ["/api/v1/token"]
    scope = [p for m, p in requests if p.startswith("/api/v1/workloads?") and "name%3D%3D" not in p]
    assert len(scope) == 1 and "filterBy=projectName%3D%3Dml-team" in scope[0]  # one listing, filtered server-side
    failed = next(i for i in res.attention if i.rule == "FAILED_RECENTLY")
    assert failed.verdict.procedure == "runai_failed" and failed.verdict.outcome == "diagnosed"
    assert res.failures.diagnosed == 2 and sum(res.failures.by_category.values()) == 2  # failed + crash loop
    pend = next(i for i in res.attention if i.rule == "PENDING_LONG")
    assert pend.verdict is None and pend.next.startswith("workload-diagnose pending --cluster-id ")
    assert res.quota.node_pools[0].over_quota is True
    assert res.report.startswith("State: DEGRADED (")


def test_a_planted_instruction_cannot_change_the_state_or_the_reads():
    sc = load_scenario("health/hostile-injection")
    world = json.loads(sc.world.read_text())
    clean = json.loads(json.dumps(world))
    for w in clean["workloads"]:
        w["phaseMessage"] = "Workload failed" if w["phase"] == "Failed" else w.get("phaseMessage")
    for h in clean["history"].values():
        for r in h:
            if "phaseUpdate" in r["spec"]:
                r["spec"]["phaseUpdate"]["phaseMessage"] = "Workload failed"
    a, _ = _run(sc, world)
    b, _ = _run(sc, clean)
    assert (a.state, [c.request for c in a.tool_calls]) == (b.state, [c.request for c in b.tool_calls])
    assert len(a.ignored_instructions) > len(b.ignored_instructions)  # the planted message is listed as ignored


def test_a_limit_of_zero_diagnoses_reads_only_the_listing_and_the_quota():
    sc = load_scenario(MIXED)
    res, requests = _run(sc, extra={"department": None, "max_diagnoses": 0})
    assert {c.tool for c in res.tool_calls} == {"list_workloads", "find_project"}
    assert res.failures is None and "PREEMPTED_REPEATEDLY" not in {i.rule for i in res.attention}
    assert any("limited to 0" in x for x in res.limitations)
    assert any("how many times it was preempted is not known" in x for x in res.limitations)


def _cli(*args: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "workload_diagnose.agent.entrypoints.cli", "health", *args],
                          capture_output=True, text=True, env=env, timeout=120)


def test_the_command_prints_the_snapshot_and_says_what_is_missing_in_one_line():
    sc = load_scenario("health/attention-pending-long")
    with running_simulator(sc.world) as sim:
        env = {**{k: v for k, v in os.environ.items() if not k.startswith(("RUNAI_", "WD_"))},
               "RUNAI_BASE_URL": sim.url, "RUNAI_CLIENT_ID": sim.client_id, "RUNAI_CLIENT_SECRET": sim.client_secret}
        ok = _cli("--cluster-id", sc.args.cluster_id, "-p", "ml-team", "--now", sc.args.now, "--json", env=env)
        assert ok.returncode == 0, ok.stderr
        got = json.loads(ok.stdout)
        assert got["state"] == "NEEDS_ATTENTION" and list(got)[:2] == ["outcome", "state"]
        missing = _cli("--cluster-id", sc.args.cluster_id, env=env)
        assert missing.returncode == 5 and "--project or --department" in missing.stderr
        both = _cli("--cluster-id", sc.args.cluster_id, "-p", "a", "--department", "b", env=env)
        assert both.returncode == 2 and "not both" in both.stderr and "Traceback" not in both.stderr


def test_http_route_answers_the_health_json_object_and_refuses_other_fields():
    from tests.service.live import config_for, live_service

    sc = load_scenario("health/degraded-failed-recently")
    body = {"cluster_id": sc.args.cluster_id, "project": "ml-team", "now": sc.args.now}
    with running_simulator(sc.world) as sim, live_service(config_for(sim)) as url:
        r = httpx.post(f"{url}/v1/health", json=body, timeout=60)
        assert r.status_code == 200, r.text
        want = run_procedure("health", **body, runai_url=sim.url, client_id=sim.client_id,
                             client_secret=sim.client_secret, use_kube=False)
        assert r.json() == want.model_dump(mode="json") and r.json()["state"] == "DEGRADED"
        bad = httpx.post(f"{url}/v1/health", json={**body, "workload_id": "x"}, timeout=30)
        assert bad.status_code == 422
        both = httpx.post(f"{url}/v1/health", json={**body, "department": "d"}, timeout=30)
        assert both.status_code == 422 and "not both" in both.text  # bad input, one line


def test_mcp_tool_takes_the_scope_and_returns_the_same_object():
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    sc = load_scenario("health/attention-idle-gpus")
    with running_simulator(sc.world) as sim:
        env = {**{k: v for k, v in os.environ.items() if not k.startswith(("RUNAI_", "WD_", "KUBECONFIG"))},
               "RUNAI_BASE_URL": sim.url, "RUNAI_CLIENT_ID": sim.client_id, "RUNAI_CLIENT_SECRET": sim.client_secret,
               "WD_KUBE": "off", "KUBECONFIG": "/nonexistent/kubeconfig"}
        params = StdioServerParameters(command=sys.executable,
                                       args=["-m", "workload_diagnose.agent.entrypoints.cli", "mcp"], env=env)
        args = {"cluster_id": sc.args.cluster_id, "project": "ml-team", "now": sc.args.now}

        async def main() -> dict:
            with open(os.devnull, "w") as errlog:
                async with stdio_client(params, errlog=errlog) as (r, w):
                    async with ClientSession(r, w) as session:
                        await session.initialize()
                        tools = {t.name: t for t in (await session.list_tools()).tools}
                        tool = tools[spec("health").tool.name]
                        assert set(tool.input_schema["properties"]) == {
                            "cluster_id", "project", "department", "lookback", "now", "max_diagnoses"}
                        assert tool.annotations.read_only_hint is True
                        res = await session.call_tool(tool.name, args)
                        assert not res.is_error, res.content
                        return res.structured_content

        got = anyio.run(main)
        want = run_procedure("health", **args, runai_url=sim.url, client_id=sim.client_id,
                             client_secret=sim.client_secret, use_kube=False)
    assert got == want.model_dump(mode="json") and got["state"] == "NEEDS_ATTENTION"
