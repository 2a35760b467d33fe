"""The lifecycle view against the REAL kube-apiserver: one scenario per phase being the first incomplete one.

The CRDs (Kueue Workload, KubeRay RayJob/RayCluster) come from shared/k8s/crds; the ResourceClaim CRD is our own.
Pod DRA fields the 1.20 server prunes are restored by a small read-only proxy (tests/lifecycle/proxy.py).
``WD_RECORD_LIFECYCLE=1`` re-records the cassettes the fast suite replays (tests/lifecycle/cassettes).
"""
from __future__ import annotations

import os

import pytest

from workload_diagnose.evals.kubeapi import shared_k8s_dir
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
    from workload_diagnose.tools.kube import kubeconfig_for
    from workload_diagnose.tools.kube.lifecycle import LifecycleReader

    if proxy is None:
        return LifecycleReader.from_kubeconfig(str(kube_apiserver.kubeconfig))
    return LifecycleReader.from_kubeconfig(kubeconfig_for(proxy.url, kube_apiserver.token))


@pytest.mark.parametrize("name", sorted(CASES))
def test_scenario_live(name, lc_admin, kube_apiserver, field_proxy):
    from workload_diagnose.agent.procedures.lifecycle.api import LifecycleRequest, refresh

    built = world.BUILDERS[name](lc_admin)
    now = recording.now_plus(built.now_offset_s)
    req = LifecycleRequest(name=built.name, namespace=built.ns, now=now)
    proxy = FieldProxy(kube_apiserver.server, built.discovery).start() if built.discovery else field_proxy
    reader = _reader(kube_apiserver, proxy if built.via_proxy else None)
    try:
        if os.environ.get("WD_RECORD_LIFECYCLE"):
            result = recording.record(name, lambda: refresh(req, reader),
                                      {"name": built.name, "namespace": built.ns, "now": now.isoformat()},
                                      skip_server=kube_apiserver.server if built.via_proxy else None)
        else:
            result = refresh(req, reader)
    finally:
        reader.close()
        if proxy is not field_proxy:
            proxy.stop()
    check(name, result.model_dump(mode="json"))
    if built.via_proxy:
        assert set(proxy.methods) == {"GET"}


def test_cli_against_the_real_apiserver(lc_admin, kube_apiserver, tmp_path):
    """The command itself on the real server: --json exit 0, and a refused token exit 4 (a real 401)."""
    import json

    import yaml
    from typer.testing import CliRunner

    from workload_diagnose.agent.entrypoints.cli import app
    from workload_diagnose.tools.kube import kubeconfig_for

    built = world.BUILDERS["image-pull-backoff"](lc_admin)
    res = CliRunner().invoke(app, ["lifecycle", built.name, "-n", built.ns, "--kubeconfig",
                                   str(kube_apiserver.kubeconfig), "--kind", "job", "--json"])
    assert res.exit_code == 0, res.output
    check("image-pull-backoff", json.loads(res.stdout))
    bad = tmp_path / "bad-kubeconfig"
    bad.write_text(yaml.safe_dump(kubeconfig_for(kube_apiserver.server, "not-the-token",
                                                 ca_file=str(kube_apiserver.ca_file))))
    res = CliRunner().invoke(app, ["lifecycle", built.name, "-n", built.ns, "--kubeconfig", str(bad)])
    assert res.exit_code == 4, res.output
    assert "refused the credentials" in res.stderr and "not-the-token" not in res.output
