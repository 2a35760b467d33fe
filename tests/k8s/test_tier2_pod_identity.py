"""Tier 2 reads the workload's own pod (issue 10 item 10), against the real kube-apiserver.

Two pods share a name: a stale one in ``runai-<project>`` (OOMKilled: it would decide the verdict if it were read)
and the real one in the namespace the workload reports (exit 1, a traceback in its previous log). The Run:ai world
carries the UID the apiserver assigned to the real pod, as Run:ai reports it. The apiserver sets creation times
itself, so "weeks earlier" is made by dating the workload weeks after the pods were created.
"""
from __future__ import annotations

import copy
import json
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from workload_diagnose.evals import kubeworld

pytestmark = pytest.mark.k8s
BASE = Path(__file__).resolve().parents[2] / "evals" / "scenarios" / "tier2" / "trainer-b"
WID = "7b0c55a2-4c61-4f0e-9d1a-3e2f1a6b9c01"
POD, STALE_NS, REAL_NS = "idtrain-0-0", "runai-idp", "team-ns"
_T0 = datetime(2026, 11, 20, 9, 0, tzinfo=timezone.utc)  # the base world's submission time
_ISO = re.compile(r"^2026-11-20T\d\d:\d\d:\d\dZ$")


def _pod(ns: str, stale: bool) -> dict:
    base = kubeworld.load(BASE / "kube.json")["pods"][0]
    p = copy.deepcopy(base)
    p["metadata"] = {"name": POD, "namespace": ns, "labels": {"workloadName": "idtrain"}}
    if stale:  # an old run of the same name that was OOM killed
        cs = p["status"]["containerStatuses"][0]
        cs["lastState"]["terminated"].update({"reason": "OOMKilled", "exitCode": 137})
    return p


@pytest.fixture(scope="module")
def pods(kube_apiserver, admin_core, kubelet):
    log = kubeworld.load(BASE / "kube.json")["logs"][0]["text"]
    kube = {"nodes": [{"name": "t2-gpu-ready", "ready": True, "gpus": 8}],
            "pods": [_pod(STALE_NS, stale=True), _pod(REAL_NS, stale=False)]}
    uids = kubeworld.apply(kube, admin_core, kubelet_port=kubelet.port,
                           add_log=lambda ns, pod, c, text, prev: kubelet.add_log(ns, pod, c, text, previous=prev))
    kubelet.add_log(REAL_NS, POD, "main", log, previous=True)  # by namespace: the two pods share a name
    kubelet.add_log(STALE_NS, POD, "main", "Killed\n", previous=True)
    created = admin_core.read_namespaced_pod(POD, STALE_NS).metadata.creation_timestamp
    return uids, created.astimezone(timezone.utc).replace(microsecond=0)


def _shift(v, delta: timedelta):
    if isinstance(v, dict):
        return {k: _shift(x, delta) for k, x in v.items()}
    if isinstance(v, list):
        return [_shift(x, delta) for x in v]
    if isinstance(v, str) and _ISO.match(v):
        t = datetime.strptime(v, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc) + delta
        return t.strftime("%Y-%m-%dT%H:%M:%SZ")
    return v


def _world(submitted: datetime, *, namespace: str | None, pod_id: str | None) -> dict:
    """trainer-b's world as workload 'idtrain' of project 'idp', submitted at ``submitted``."""
    w = json.loads((BASE / "world.json").read_text())
    old = w["workloads"][0]["id"]
    w = _shift(w, submitted - _T0)
    wl = w["workloads"][0]
    wl.update(id=WID, name="idtrain", projectName="idp", namespace=namespace)
    for key in ("events", "pods", "history", "specs"):
        w[key] = {WID: w[key][old]}
    w["pods"][WID][0].update(name=POD, id=pod_id)
    return w


def _diagnose(kube_apiserver, world: dict, now: datetime):
    from workload_diagnose.agent.api import diagnose
    from workload_diagnose.evals.simulator import running_simulator
    from workload_diagnose.tools.kube import KubeReader

    with running_simulator(world) as sim:
        return diagnose(cluster_id=world["workloads"][0]["clusterId"], workload_id=WID,
                        now=now.strftime("%Y-%m-%dT%H:%M:%SZ"), runai_url=sim.url, client_id=sim.client_id,
                        client_secret=sim.client_secret, kube_reader=KubeReader.from_kubeconfig(
                            kube_apiserver.kubeconfig), retry_sleep=lambda s: None)


def _kube_sources(res) -> list[str]:
    return [c.request for c in res.tool_calls if c.tool == "kubernetes"] + \
        [e.source for e in res.evidence if e.source.startswith("kubectl")]


def test_the_namespace_the_workload_reports_wins_over_a_stale_same_name_pod(kube_apiserver, pods):
    uids, created = pods
    submitted = created - timedelta(minutes=10)
    res = _diagnose(kube_apiserver, _world(submitted, namespace=REAL_NS, pod_id=uids[(REAL_NS, POD)]),
                    created + timedelta(hours=1))
    assert "KeyError: 'CONFIG_PATH'" in res.report, (res.report, res.limitations, res.tool_calls)
    assert res.category == "CRASH_APP_ERROR", res.report
    sources = _kube_sources(res)
    assert any(f"-n {REAL_NS}" in s for s in sources) and not any(STALE_NS in s for s in sources), sources
    assert not any("not the workload's pod" in x for x in res.limitations)


def test_runai_project_namespace_is_only_a_stated_fallback_and_a_foreign_uid_is_refused(kube_apiserver, pods):
    uids, created = pods
    res = _diagnose(kube_apiserver, _world(created - timedelta(minutes=10), namespace=None,
                                           pod_id=uids[(REAL_NS, POD)]), created + timedelta(hours=1))
    assert any(e.text.startswith(f"The workload reports no namespace; used {STALE_NS}") for e in res.evidence)
    lim = next(x for x in res.limitations if "not the workload's pod" in x)
    assert lim == (f"Pod {POD} in namespace {STALE_NS} is not the workload's pod: its UID {uids[(STALE_NS, POD)]} "
                   f"is not the UID Run:ai reports for it ({uids[(REAL_NS, POD)]}); its Kubernetes evidence was "
                   "not used.")
    assert res.category == "UNKNOWN", res.report  # the stale pod's OOMKilled decides nothing
    assert not any("logs" in c.request for c in res.tool_calls if c.tool == "kubernetes")


def test_without_a_runai_pod_id_a_pod_created_before_the_workload_is_not_its_pod(kube_apiserver, pods):
    _, created = pods
    submitted = created + timedelta(days=21)  # the stale pod is three weeks older than the workload
    res = _diagnose(kube_apiserver, _world(submitted, namespace=None, pod_id=None),
                    submitted + timedelta(hours=3))
    want = (f"Pod {POD} in namespace {STALE_NS} is not the workload's pod: created "
            f"{created.strftime('%Y-%m-%dT%H:%M:%SZ')}, before the workload was submitted "
            f"{submitted.strftime('%Y-%m-%dT%H:%M:%SZ')}; its Kubernetes evidence was not used.")
    assert want in res.limitations, res.limitations
    assert res.category == "UNKNOWN"


def test_without_a_runai_pod_id_a_pod_created_within_the_workloads_lifetime_is_used(kube_apiserver, pods):
    _, created = pods
    res = _diagnose(kube_apiserver, _world(created - timedelta(minutes=5), namespace=REAL_NS, pod_id=None),
                    created + timedelta(hours=1))
    assert res.category == "CRASH_APP_ERROR", res.report
    assert not any("not the workload's pod" in x for x in res.limitations)
