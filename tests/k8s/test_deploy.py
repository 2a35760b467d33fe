"""deploy/kubernetes against the real kube-apiserver (RBAC authorization on, see shared/k8s): the kustomize base
and the postgres overlay render with Debian's kubectl, apply with server-side dry-run, the namespace and RBAC are
created for real, and the ServiceAccount is proved (SelfSubjectAccessReview as that account, and ``kubectl auth
can-i --as=…``) able to read what Tier 2 and the lifecycle view read, and unable to create, update, patch or
delete anything, to exec/attach/port-forward, or to read Secrets. The run-profile overlay adds GET pods/proxy in
the exporter's namespaces and nowhere else; the no-pod-logs overlay takes pods/log away and nothing else."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.k8s
ROOT = Path(__file__).resolve().parents[2]
NS, SA = "workload-diagnose", "workload-diagnose"
AS = f"system:serviceaccount:{NS}:{SA}"
KUBECTL = shutil.which("kubectl")


def _kubectl(kubeconfig: Path, *args: str, stdin: str | None = None, check: bool = True) -> subprocess.CompletedProcess:
    env = {**os.environ, "KUBECONFIG": str(kubeconfig)}
    p = subprocess.run([KUBECTL, *args], input=stdin, env=env, capture_output=True, text=True, timeout=60)
    if check and p.returncode != 0:
        raise AssertionError(f"kubectl {' '.join(args)} → {p.returncode}: {p.stderr.strip()[:600]}")
    return p


def _render(path: str) -> list[dict]:
    p = subprocess.run([KUBECTL, "kustomize", str(ROOT / path)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return [d for d in yaml.safe_load_all(p.stdout) if d]


@pytest.fixture(scope="module")
def deployed(kube_apiserver):
    if KUBECTL is None:
        pytest.fail("kubectl is not installed (.ci/run installs kubernetes-client)")
    base = _render("deploy/kubernetes/base")
    real = [d for d in base if d["kind"] in ("Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding")]
    _kubectl(kube_apiserver.kubeconfig, "apply", "-f", "-", stdin=yaml.safe_dump_all(real))
    return kube_apiserver.kubeconfig, base


def _container(docs: list[dict]) -> dict:
    dep = next(d for d in docs if d["kind"] == "Deployment")
    return dep, dep["spec"]["template"]["spec"]["containers"][0]


def test_base_renders_the_required_deployment(deployed):
    _, base = deployed
    kinds = sorted(d["kind"] for d in base)
    assert kinds == sorted(["Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "ConfigMap",
                            "Deployment", "Service"])
    assert not [d for d in base if d["kind"] == "Secret"]  # credentials are referenced, never shipped
    dep, c = _container(base)
    pod = dep["spec"]["template"]["spec"]
    assert dep["spec"]["replicas"] >= 2 and pod["serviceAccountName"] == SA
    assert pod["securityContext"]["runAsNonRoot"] is True and c["securityContext"]["runAsNonRoot"] is True
    assert c["securityContext"]["readOnlyRootFilesystem"] is True
    assert c["securityContext"]["allowPrivilegeEscalation"] is False
    assert c["readinessProbe"]["httpGet"]["path"] == "/readyz" and c["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert {"cpu", "memory"} <= set(c["resources"]["requests"])
    tmp = next(m for m in c["volumeMounts"] if m["mountPath"] == "/tmp")
    assert "emptyDir" in next(v for v in pod["volumes"] if v["name"] == tmp["name"])
    refs = {e["name"]: e["valueFrom"]["secretKeyRef"]["name"] for e in c["env"] if "valueFrom" in e}
    assert refs["RUNAI_CLIENT_ID"] == refs["RUNAI_CLIENT_SECRET"] == "workload-diagnose-runai"


def test_postgres_overlay_adds_settings_only(deployed):
    _, base = deployed
    over = _render("deploy/kubernetes/overlays/postgres")
    assert sorted(d["kind"] for d in over) == sorted(d["kind"] for d in base)
    dep, c = _container(over)
    assert dep["spec"]["replicas"] >= 3
    env = {e["name"]: e for e in c["env"]}
    assert env["WD_CHAT_POSTGRES_DSN"]["valueFrom"]["secretKeyRef"]["name"] == "workload-diagnose-postgres"


@pytest.mark.parametrize("path", ["deploy/kubernetes/base", "deploy/kubernetes/overlays/postgres"])
def test_manifests_apply_with_server_side_dry_run(deployed, path):
    kubeconfig, _ = deployed
    docs = _render(path)
    p = _kubectl(kubeconfig, "apply", "--dry-run=server", "-f", "-", stdin=yaml.safe_dump_all(docs))
    out = p.stdout
    assert "deployment.apps/workload-diagnose" in out and "(server dry run)" in out
    got = _kubectl(kubeconfig, "get", "deployments", "-n", NS, "-o", "name").stdout  # dry run: nothing was created
    assert got.strip() == ""


def _can(kubeconfig: Path, verb: str, resource: str, *, group: str = "", sub: str = "", ns: str | None = NS,
         name: str = "", user: str = AS) -> bool:
    """A SelfSubjectAccessReview made AS the ServiceAccount (impersonated by the admin), as kubectl does."""
    from kubernetes import client, config

    api = config.new_client_from_config(config_file=str(kubeconfig))
    api.set_default_header("Impersonate-User", user)
    try:
        attrs = client.V1ResourceAttributes(verb=verb, resource=resource, group=group, subresource=sub or None,
                                            namespace=ns, name=name or None)
        body = client.V1SelfSubjectAccessReview(spec=client.V1SelfSubjectAccessReviewSpec(resource_attributes=attrs))
        res = client.AuthorizationV1Api(api).create_self_subject_access_review(body)
        return bool(res.status.allowed)
    finally:
        api.close()


READS = [("pods", ""), ("events", ""), ("nodes", ""), ("namespaces", ""), ("jobs", "batch"),
         ("workloads", "kueue.x-k8s.io"), ("rayjobs", "ray.io"), ("rayclusters", "ray.io"),
         ("resourceclaims", "resource.k8s.io")]
TARGETS = READS + [("secrets", ""), ("configmaps", ""), ("deployments", "apps"), ("serviceaccounts", ""),
                   ("clusterroles", "rbac.authorization.k8s.io"), ("rolebindings", "rbac.authorization.k8s.io"),
                   ("services", ""), ("persistentvolumeclaims", "")]


def test_service_account_reads_what_tier2_and_the_lifecycle_view_read(deployed):
    kubeconfig, _ = deployed
    for resource, group in READS:
        for verb in ("get", "list", "watch"):
            assert _can(kubeconfig, verb, resource, group=group, ns="ml-team"), (verb, resource)
    assert _can(kubeconfig, "get", "pods", sub="log", ns="ml-team")
    for ns in ("gpu-operator", "ml-team", "kube-system", None):  # pods/proxy only with the run-profile overlay
        assert not _can(kubeconfig, "get", "pods", sub="proxy", ns=ns), ns
    # control: the grants are this ClusterRole's, not the server's defaults (another account reads nothing)
    assert not _can(kubeconfig, "get", "pods", ns="ml-team", user=f"system:serviceaccount:{NS}:default")


def test_service_account_cannot_write_anything_exec_or_read_secrets(deployed):
    kubeconfig, _ = deployed
    for resource, group in TARGETS:
        for verb in ("create", "update", "patch", "delete", "deletecollection"):
            for ns in ("ml-team", NS, None):
                assert not _can(kubeconfig, verb, resource, group=group, ns=ns), (verb, resource, ns)
    for sub in ("exec", "attach", "portforward", "proxy", "eviction", "status", "binding"):
        for verb in ("create", "update", "patch"):
            assert not _can(kubeconfig, verb, "pods", sub=sub, ns="ml-team"), (verb, sub)
    for verb in ("get", "list", "watch"):
        for ns in ("ml-team", NS, "kube-system", None):
            assert not _can(kubeconfig, verb, "secrets", ns=ns), (verb, ns)
    for verb in ("get", "create"):  # port-forward / exec are GET-upgraded or POST: neither is granted
        for sub in ("exec", "attach", "portforward"):
            assert not _can(kubeconfig, verb, "pods", sub=sub, ns="ml-team"), (verb, sub)
    assert not _can(kubeconfig, "get", "services", sub="proxy", ns="ml-team")
    assert not _can(kubeconfig, "get", "nodes", sub="proxy", ns=None)
    assert not _can(kubeconfig, "*", "*", group="*", ns=None)


def test_kubectl_auth_can_i_as_the_service_account(deployed):
    kubeconfig, _ = deployed
    yes = [("get", "pods"), ("list", "jobs.batch"), ("get", "pods/log")]  # kubectl resolves types: no CRDs here
    no = [("get", "secrets"), ("list", "secrets"), ("create", "pods"), ("delete", "pods"), ("patch", "nodes"),
          ("create", "pods/exec"), ("create", "pods/portforward"), ("create", "deployments.apps"), ("*", "*")]
    for verb, res in yes + no:
        p = _kubectl(kubeconfig, "auth", "can-i", verb, res, f"--as={AS}", "-n", "ml-team", check=False)
        assert p.stdout.strip() == ("yes" if (verb, res) in yes else "no"), (verb, res, p.stdout, p.stderr)


def test_run_profile_overlay_grants_pods_proxy_in_the_exporter_namespaces_only(deployed):
    kubeconfig, base = deployed
    over = _render("deploy/kubernetes/overlays/run-profile")
    extra = [d for d in over if d["kind"] in ("Role", "RoleBinding")]
    assert sorted(d["kind"] for d in over) == sorted([d["kind"] for d in base] + ["Role", "RoleBinding"] * 2)
    assert {d["metadata"]["namespace"] for d in extra} == {"gpu-operator", "nvidia-gpu-operator"}
    for role in (d for d in extra if d["kind"] == "Role"):
        assert role["rules"] == [{"apiGroups": [""], "resources": ["pods/proxy"], "verbs": ["get"]}]
    for ns in ("gpu-operator", "nvidia-gpu-operator"):
        _kubectl(kubeconfig, "create", "namespace", ns, check=False)
    _kubectl(kubeconfig, "apply", "-f", "-", stdin=yaml.safe_dump_all(extra))
    try:
        for ns in ("gpu-operator", "nvidia-gpu-operator"):
            assert _can(kubeconfig, "get", "pods", sub="proxy", ns=ns), ns
            for verb in ("create", "update", "patch", "delete"):
                assert not _can(kubeconfig, verb, "pods", sub="proxy", ns=ns), (verb, ns)
        for ns in ("ml-team", "kube-system", NS, None):
            assert not _can(kubeconfig, "get", "pods", sub="proxy", ns=ns), ns
    finally:
        _kubectl(kubeconfig, "delete", "-f", "-", stdin=yaml.safe_dump_all(extra), check=False)


def test_the_no_pod_logs_overlay_takes_pods_log_away_and_nothing_else(deployed):
    kubeconfig, base = deployed
    over = _render("deploy/kubernetes/overlays/no-pod-logs")
    role = next(d for d in over if d["kind"] == "ClusterRole")
    base_role = next(d for d in base if d["kind"] == "ClusterRole")
    assert [d for d in over if d["kind"] != "ClusterRole"] == [d for d in base if d["kind"] != "ClusterRole"]
    granted = {(g, r) for rule in role["rules"] for g in rule["apiGroups"] for r in rule["resources"]}
    base_granted = {(g, r) for rule in base_role["rules"] for g in rule["apiGroups"] for r in rule["resources"]}
    assert base_granted - granted == {("", "pods/log")} and granted <= base_granted
    _kubectl(kubeconfig, "apply", "-f", "-", stdin=yaml.safe_dump(role))
    try:
        assert not _can(kubeconfig, "get", "pods", sub="log", ns="ml-team")
        for resource, group in READS:  # everything else Tier 2 and the lifecycle view read is still granted
            assert _can(kubeconfig, "list", resource, group=group, ns="ml-team"), resource
    finally:
        _kubectl(kubeconfig, "apply", "-f", "-", stdin=yaml.safe_dump(base_role))
    assert _can(kubeconfig, "get", "pods", sub="log", ns="ml-team")


@pytest.mark.parametrize("path", ["deploy/kubernetes/overlays/no-pod-logs", "deploy/kubernetes/overlays/run-profile"])
def test_the_overlays_apply_with_server_side_dry_run(deployed, path):
    kubeconfig, _ = deployed
    docs = [d for d in _render(path) if d["kind"] not in ("Role", "RoleBinding")]  # their namespaces may not exist
    p = _kubectl(kubeconfig, "apply", "--dry-run=server", "-f", "-", stdin=yaml.safe_dump_all(docs))
    assert "deployment.apps/workload-diagnose" in p.stdout and "(server dry run)" in p.stdout
