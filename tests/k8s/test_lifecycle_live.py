"""The lifecycle view against the REAL kube-apiserver: one scenario per phase being the first incomplete one.

The CRDs (Kueue Workload, KubeRay RayJob/RayCluster) come from shared/k8s/crds; the ResourceClaim CRD is our own.
Pod DRA fields the 1.20 server prunes are restored by a small read-only proxy (tests/lifecycle/proxy.py).
``WD_RECORD_LIFECYCLE=1`` re-records the cassettes the fast suite replays (tests/lifecycle/cassettes).
"""
from __future__ import annotations

import os

import pytest

from evals.kubeapi import shared_k8s_dir
from tests.lifecycle import recording, world
from tests.lifecycle.cases import CASES, check
from tests.lifecycle.proxy import FieldProxy

pytestmark = pytest.mark.k8s


@pytest.fixture(scope="session")
def lc_admin(kube_apiserver, k8s_env):
    from kubernetes import client, config

    api_client = config.new_client_from_config(config_file=str(kube_apiserver.kubeconfig))
    world.load_crds(api_client, shared_k8s_dir())
    try:
        yield world.Admin(core=client.CoreV1Api(api_client), batch=client.BatchV1Api(api_client),
                          custom=client.CustomObjectsApi(api_client), node=k8s_env.node)
    finally:
        api_client.close()


@pytest.fixture(scope="session")
def field_proxy(kube_apiserver):
    p = FieldProxy(kube_apiserver.server).start()
    try:
        yield p
    finally:
        p.stop()


def _reader(kube_apiserver, proxy: FieldProxy | None):
    from tools.kube import kubeconfig_for
    from tools.kube_lifecycle import LifecycleReader

    if proxy is None:
        return LifecycleReader.from_kubeconfig(str(kube_apiserver.kubeconfig))
    return LifecycleReader.from_kubeconfig(kubeconfig_for(proxy.url, kube_apiserver.token))


@pytest.mark.parametrize("name", sorted(CASES))
def test_scenario_live(name, lc_admin, kube_apiserver, field_proxy):
    from agent.procedures.lifecycle.api import LifecycleRequest, refresh

    built = world.BUILDERS[name](lc_admin)
    now = recording.now_plus(built.now_offset_s)
    req = LifecycleRequest(name=built.name, namespace=built.ns, now=now)
    reader = _reader(kube_apiserver, field_proxy if built.via_proxy else None)
    try:
        if os.environ.get("WD_RECORD_LIFECYCLE"):
            result = recording.record(name, lambda: refresh(req, reader),
                                      {"name": built.name, "namespace": built.ns, "now": now.isoformat()},
                                      skip_server=kube_apiserver.server if built.via_proxy else None)
        else:
            result = refresh(req, reader)
    finally:
        reader.close()
    check(name, result.model_dump(mode="json"))
    if built.via_proxy:
        assert set(field_proxy.methods) == {"GET"}
