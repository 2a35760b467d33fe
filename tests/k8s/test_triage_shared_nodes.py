"""Fleet triage with Tier 2 against the REAL kube-apiserver: node descriptions, node events and GPU health (and
namespace checks) are read once for all the workloads that need them, and every verdict is still the one-by-one diagnosis's (issue 15)."""
from __future__ import annotations

import pytest

from workload_diagnose.agent.triage.report import verdict_of
from workload_diagnose.evals.fleet import fleet_world
from workload_diagnose.evals.simulator import running_simulator

from . import builders

pytestmark = pytest.mark.k8s
NODE_TEMPLATES = (("core/node-notready", 1, "bad"), ("node/evicted-memory-pressure", 1, "bad"))


def _created(fn, *a, **kw):
    from kubernetes.client.exceptions import ApiException

    try:
        fn(*a, **kw)
    except ApiException as e:
        if e.status != 409:  # already there (namespaces cannot be deleted on this server)
            raise


@pytest.fixture(scope="module")
def fleet(admin_core, kubelet):
    world = fleet_world(10, nodes=4, bad_nodes=2, seed=1515, templates=NODE_TEMPLATES)
    for i, node in enumerate(world["fleet"]["bad_nodes"]):
        _created(builders.make_node, admin_core, node, kubelet_port=kubelet.port, ready=False if i else "Unknown")
    from workload_diagnose.evals.simulator import complete_workload

    for w in world["workloads"]:
        ns = complete_workload(w).get("namespace") or f"runai-{w['projectName']}"  # where Tier 2 looks first
        _created(admin_core.create_namespace, {"metadata": {"name": ns}})
        for p in world["pods"].get(w["id"], []):
            names = [c["name"] for c in p.get("containers") or []] or ["main"]
            builders.make_pod(admin_core, ns, p["name"], node=p["nodeName"],
                              containers=[builders.container(n) for n in names],
                              status=builders.pod_status("Failed", containers=[
                                  builders.cstatus(n, state=builders.terminated("Error", 137)) for n in names]))
            # Run:ai reports the pod's Kubernetes UID: Tier 2 uses a pod only when it is the workload's own
            p["id"] = admin_core.read_namespaced_pod(p["name"], ns).metadata.uid
    return world


def test_node_descriptions_are_read_once_per_node(fleet, kube_apiserver):
    from workload_diagnose.agent.api import diagnose
    from workload_diagnose.agent.triage import triage
    from workload_diagnose.tools.kube import KubeReader

    world = fleet
    cid, now = world["fleet"]["cluster_id"], world["fleet"]["now"]
    stats: dict = {}
    with running_simulator(world) as sim:
        creds = dict(runai_url=sim.url, client_id=sim.client_id, client_secret=sim.client_secret)
        reader = KubeReader.from_kubeconfig(kube_apiserver.kubeconfig)
        try:
            res = triage(cluster_id=cid, now=now, kube_reader=reader, stats=stats, **creds)
        finally:
            reader.close()
        singles = {}
        for w in world["workloads"]:
            r1 = KubeReader.from_kubeconfig(kube_apiserver.kubeconfig)
            try:
                singles[w["id"]] = diagnose(cluster_id=cid, workload_id=w["id"], now=now, kube_reader=r1, **creds)
            finally:
                r1.close()
    got = {v.workload.id: v.model_dump() for v in res.workloads}
    assert got == {wid: verdict_of(r).model_dump() for wid, r in singles.items()}
    described = [c.request for r in singles.values() for c in r.tool_calls
                 if c.request.startswith("kubectl describe node")]
    nodes = {c.split()[-1] for c in described}
    assert nodes == set(world["fleet"]["bad_nodes"]) and len(described) == len(world["workloads"])
    shared = [c.request for c in res.tool_calls if c.request.startswith("kubectl describe node")]
    assert sorted(shared) == sorted(f"kubectl describe node {n}" for n in nodes)  # once per node
    namespaces = {w["projectName"] for w in world["workloads"]}
    # per node: its description, its events and its GPU health (each workload's pods ran on one GPU node)
    assert stats["kube_reads"] == 3 * len(nodes) + len(namespaces)  # every other ask was answered by an earlier read
    assert stats["kube_saved"] == 4 * len(world["workloads"]) - stats["kube_reads"]
    assert any(c["kind"] == "node" for c in res.clusters)
