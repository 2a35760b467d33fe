"""The pending procedure on its real paths: the compiled graph against the Run:ai simulator over real HTTP, its
HTTP route on a real uvicorn server, the placement comparison and the waiting time as pure functions."""
from __future__ import annotations

import json
from datetime import datetime, timezone

import httpx
import pytest

from workload_diagnose.agent.api import run_procedure
from workload_diagnose.agent.procedures import for_request, spec
from workload_diagnose.agent.procedures.kit import routing
from workload_diagnose.agent.procedures.pending import constraints as cons
from workload_diagnose.agent.procedures.pending.evidence import duration, waited
from workload_diagnose.agent.procedures.pending.state import PendingRequest
from workload_diagnose.evals.scenarios import load_scenario
from workload_diagnose.evals.simulator import running_simulator
from workload_diagnose.tools.runai.capacity import Node, Taint

QUOTA = "pending/quota-non-preemptible"


def _run(sc, world: dict | None = None, **kw):
    with running_simulator(world if world is not None else sc.world) as sim:
        res = run_procedure("pending", **sc.args.model_dump(exclude_none=True), runai_url=sim.url,
                            client_id=sim.client_id, client_secret=sim.client_secret, use_kube=False,
                            retry_sleep=lambda s: None, **kw)
        return res, list(sim.requests)


def test_the_failed_routes_pending_scheduling_to_this_procedure():
    row = next(r for r in routing.RULES if r.name == "pending_scheduling")
    assert row.answered_by == "pending" and spec(row.answered_by).command.name == "pending"
    assert for_request(PendingRequest(cluster_id="c")).name == "pending"


def test_only_the_figures_the_reason_needs_are_read():
    res, requests = _run(load_scenario(QUOTA))
    paths = [p.split("?")[0] for m, p in requests if m == "GET"]
    assert any(p.startswith("/api/v1/org-unit/projects") for p in paths)
    assert any(p.endswith("/nodepools/a100/metrics") for p in paths)
    assert not any(p.startswith(("/api/v1/nodes", "/api/v1/node-pools", "/api/v1/workloads/trainings")) for p in paths)
    assert res.quota.project == "ml-team" and res.quota.node_pools[0].deserved_gpus == 16
    assert (res.capacity[0].free_gpus, res.capacity[0].total_gpus) == (2, 32)
    assert res.requested.gpus == 8 and res.waited.text == "2h 30m"


def test_a_source_without_the_quota_and_node_capabilities_says_the_figures_are_missing():
    from workload_diagnose.tools.runai.fleet import WorkloadReads
    from workload_diagnose.tools.runai.rest import RunaiClient

    sc = load_scenario(QUOTA)
    with running_simulator(sc.world) as sim:
        client = RunaiClient(sim.url, sim.client_id, sim.client_secret)
        try:  # the six skill reads only: no 'projects', no 'nodes' capability
            res = run_procedure("pending", **sc.args.model_dump(exclude_none=True), use_kube=False,
                                source=WorkloadReads(client))
        finally:
            client.close()
    assert res.reason == sc.expected.reason and res.quota is None and res.capacity == []
    assert any("capability 'projects'" in x for x in res.limitations)
    assert any("capability 'nodes'" in x for x in res.limitations)
    assert "deserved not known" in res.report


def test_a_planted_instruction_cannot_change_the_reason_or_the_reads():
    sc = load_scenario("pending/hostile-instructions-and-secrets")
    world = json.loads(sc.world.read_text())
    clean = json.loads(json.dumps(world))
    wid = sc.args.workload_id
    clean["events"][wid] = clean["events"][wid][:1]  # without the planted event
    a, ra = _run(sc, world)
    b, rb = _run(sc, clean)
    assert (a.reason, [c.request for c in a.tool_calls]) == (b.reason, [c.request for c in b.tool_calls])
    assert a.ignored_instructions and "AKIAIOSFODNN7EXAMPLE" not in a.model_dump_json()


def test_http_route_answers_the_pending_json_object():
    from tests.service.live import config_for, live_service
    from workload_diagnose.agent.service.upstream import KUBE_OFF

    sc = load_scenario(QUOTA)
    body = sc.args.model_dump(exclude_none=True)
    with running_simulator(sc.world) as sim, live_service(config_for(sim)) as url:
        r = httpx.post(f"{url}/v1/pending", json=body, timeout=60)
        assert r.status_code == 200, r.text
        want = run_procedure("pending", **body, runai_url=sim.url, client_id=sim.client_id,
                             client_secret=sim.client_secret, use_kube=False)
    want_json = json.loads(json.dumps(want.model_dump(mode="json")).replace("--no-kube was given", KUBE_OFF))
    assert r.json() == want_json and list(r.json())[:2] == ["outcome", "reason"]


def _node(name: str, *taints: Taint, status: str = "Ready") -> Node:
    return Node(name=name, node_pool="a100", status=status, taints=list(taints))


@pytest.mark.parametrize("tol,ok", [
    ({"key": "dedicated", "operator": "Equal", "value": "inference", "effect": "NoSchedule"}, True),
    ({"key": "dedicated", "operator": "Exists"}, True),
    ({"operator": "Exists"}, True),  # an empty key with Exists tolerates every taint
    ({"key": "dedicated", "operator": "Equal", "value": "training"}, False),
    ({"key": "dedicated", "operator": "Exists", "effect": "NoExecute"}, False),
    ({"key": "other", "operator": "Exists"}, False),
])
def test_tolerations_as_kubernetes_matches_them(tol, ok):
    assert cons.tolerates(tol, Taint(key="dedicated", value="inference", effect="NoSchedule")) is ok


def test_mismatches_name_only_what_no_node_can_satisfy():
    from workload_diagnose.tools.runai.quota import NodePool

    pool = NodePool(name="a100", phase="Ready", label_key="run.ai/node-pool", label_value="a100")
    taint = Taint(key="dedicated", value="inference", effect="NoSchedule")
    c = cons.Constraints(node_pools=["a100", "gone"], tolerations=[])
    got = cons.mismatches(c, [pool], {"a100": [_node("n1", taint), _node("n2", taint)]}, ["a100"])
    assert got == ["submitted node pool gone is not a node pool of the cluster",
                   "every Ready node of node pool a100 has a taint the submitted tolerations do not tolerate (e.g. "
                   "dedicated=inference:NoSchedule on n1)"]
    # one untainted Ready node, and a soft taint elsewhere: schedulable
    soft = Taint(key="x", effect="PreferNoSchedule")
    assert cons.mismatches(cons.Constraints(), [pool], {"a100": [_node("n1", taint), _node("n2", soft)]},
                           ["a100"]) == []
    # an affinity on another label cannot be compared (the nodes API serves no labels): never judged
    other = cons.Constraints(affinity=[[{"key": "gpu-type", "operator": "In", "values": ["h100"]}]])
    assert cons.mismatches(other, [pool], {}, ["a100"]) == []
    excl = cons.Constraints(affinity=[[{"key": "run.ai/node-pool", "operator": "In", "values": ["h100"]}]])
    assert cons.mismatches(excl, [pool], {}, ["a100"]) == [
        "the required node affinity excludes node pool a100 (its nodes carry run.ai/node-pool=a100)"]
    assert cons.mismatches(None, None, {"a100": [_node("n1", status="NotReady")]}, ["a100"]) == [
        "no listed node of node pool a100 is Ready"]


def test_how_long_it_waited_is_read_never_guessed():
    from workload_diagnose.tools.runai import Workload, WorkloadStatus

    now = datetime(2026, 11, 20, 12, tzinfo=timezone.utc)
    w = WorkloadStatus(workload=Workload(id="w", phase="Pending", phaseUpdatedAt="2026-11-18T09:30:00Z"))
    got, why = waited(w, now)
    assert (got.text, got.seconds, why) == ("2d 2h", 181800, None)
    future = WorkloadStatus(workload=Workload(id="w", phaseUpdatedAt="2026-11-21T00:00:00Z"))
    assert waited(future, now)[0] is None and "cannot be used" in waited(future, now)[1]
    assert waited(WorkloadStatus(workload=Workload(id="w")), now)[0] is None
    assert (duration(59), duration(3600), duration(5400)) == ("under 1m", "1h", "1h 30m")


@pytest.mark.parametrize("sid,text", [
    ("pending/quota-non-preemptible", "Node pool a100: 2 free of 32 GPUs (30 allocated)"),
    ("pending/full-kai-other-pool-free", "Node pools with free GPUs: h100 (12 free)"),
    ("pending/no-match-untolerated-taint", "dedicated=inference:NoSchedule on gpu-a100-1"),
    ("pending/missing-nodes-read-fails", "The nodes of node pool a100 could not be read"),
    ("pending/unknown-no-message", "Node pool a100: 12 free of 32 GPUs"),
])
def test_the_node_capability_figures_over_rest(sid, text):
    """What only the REST source reads (the 'nodes' capability: the official MCP server has no such tool, so the
    scenarios, which also run through MCP, do not ask for these lines)."""
    from workload_diagnose.evals.runner import replay

    assert text in replay(load_scenario(sid)).report
