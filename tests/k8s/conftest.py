"""Session fixtures: a REAL kube-apiserver v1.20.2 + etcd (built from Debian's source package by
``shared/k8s/build-kube-apiserver.sh``), an HTTPS kubelet stand-in for pod logs, and admin/read-only clients.

* ``shared/`` is found beside the repository (``<repo>/../shared``) or at ``$WD_SHARED_DIR``.
* The binary is built once and cached (``$HOME/.cache/kube-apiserver-1.20.2``, override with
  ``$WD_KUBE_CACHE_DIR``; or point ``$KUBE_APISERVER`` at an existing binary). Builds are serialised with a file
  lock so parallel sessions never build concurrently.
* If the server cannot be built or started the k8s tests are SKIPPED with a loud reason — unless
  ``WD_REQUIRE_K8S=1`` (CI), in which case they FAIL.
* One apiserver per test session (per xdist worker) on free loopback ports; stopped at session end (SIGTERM,
  up to 15 s, then SIGKILL).
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:  # `pytest tests/k8s` without an installed package: import tools/ from the repo
    sys.path.insert(0, str(REPO_ROOT))

from . import builders  # noqa: E402
from workload_diagnose.evals.kube_standin import KubeletStandin  # noqa: E402

from workload_diagnose.evals.kubeapi import (  # noqa: E402  (the lifecycle is shared with the benchmark)
    KubeApiUnavailable,
    LiveCluster,
    stop_cluster,
)
from workload_diagnose.evals import kubeapi  # noqa: E402
from tests.services.required import unavailable  # noqa: E402


def _unavailable(reason: str):
    unavailable("REAL KUBE-APISERVER", reason, "k8s")


def build_kube_apiserver() -> Path:
    try:
        return kubeapi.build_kube_apiserver()
    except KubeApiUnavailable as e:
        _unavailable(str(e))


def start_kube_apiserver(run_dir: Path, binary: Path) -> LiveCluster:
    try:
        return kubeapi.start_kube_apiserver(run_dir, binary)
    except KubeApiUnavailable as e:
        _unavailable(str(e))


@pytest.fixture(scope="session")
def kube_apiserver(tmp_path_factory) -> LiveCluster:
    """A live kube-apiserver; yields :class:`LiveCluster` (``.kubeconfig`` is the path to use)."""
    binary = build_kube_apiserver()
    cluster = start_kube_apiserver(tmp_path_factory.mktemp("kube-apiserver"), binary)
    sys.stderr.write(f"\n[k8s] kube-apiserver {cluster.server} ready in {cluster.startup_s:.1f}s "
                     f"(KUBECONFIG={cluster.kubeconfig})\n")
    try:
        yield cluster
    finally:
        stop_cluster(cluster)


@pytest.fixture(scope="session")
def kubeconfig(kube_apiserver) -> Path:
    return kube_apiserver.kubeconfig


@pytest.fixture(scope="session")
def kubelet(tmp_path_factory):
    k = KubeletStandin(tmp_path_factory.mktemp("kubelet")).start()
    try:
        yield k
    finally:
        k.stop()


@pytest.fixture(scope="session")
def admin_core(kube_apiserver):
    """A WRITING CoreV1Api (admin token) for building fixtures. Never handed to code under test."""
    from kubernetes import client, config

    api_client = config.new_client_from_config(config_file=str(kube_apiserver.kubeconfig))
    try:
        yield client.CoreV1Api(api_client)
    finally:
        api_client.close()


@pytest.fixture(scope="session")
def k8s_env(admin_core, kubelet) -> builders.Env:
    """Admin API + kubelet stand-in + one Ready 8-GPU node (``gpu-node-1``) whose kubelet is the stand-in."""
    node = builders.make_node(admin_core, "gpu-node-1", kubelet_port=kubelet.port, ready=True, gpus=8,
                              taints=[builders.GPU_TAINT])
    return builders.Env(api=admin_core, kubelet=kubelet, node=node)


@pytest.fixture(scope="session")
def reader(kube_apiserver):
    from workload_diagnose.tools.kube import KubeReader

    r = KubeReader.from_kubeconfig(kube_apiserver.kubeconfig)
    try:
        yield r
    finally:
        r.close()
