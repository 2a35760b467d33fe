"""--run-profile against a dcgm-exporter stand-in serving Prometheus text behind the Kubernetes API paths the
reader uses (pods list for discovery, pods/proxy for metrics): real figures, ``unavailable`` (never 0) when the
exporter, labels or samples are missing, and the request bound counted."""
from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
import yaml
from typer.testing import CliRunner

from tests.lifecycle import recording
from tests.lifecycle.replay_server import ReplayServer

EXPORTER = {"metadata": {"name": "dcgm-exporter-7xk2p", "namespace": "gpu-operator",
                         "labels": {"app.kubernetes.io/name": "dcgm-exporter"},
                         "ownerReferences": [{"apiVersion": "apps/v1", "kind": "DaemonSet",
                                              "name": "nvidia-dcgm-exporter", "controller": True}]},
            "spec": {"nodeName": "gpu-node-1", "containers": [{"name": "exporter", "ports": [
                {"name": "metrics", "containerPort": 9400}]}]},
            "status": {"phase": "Running", "podIP": "10.244.1.7"}}


def metrics_text(ns: str, pod: str, util=(30, 70), fb=(10240, 20480), labels=True) -> str:
    lines = ["# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).", "# TYPE DCGM_FI_DEV_GPU_UTIL gauge"]
    for metric, vals in (("DCGM_FI_DEV_GPU_UTIL", util), ("DCGM_FI_DEV_FB_USED", fb)):
        for i, v in enumerate(vals):
            who = (f'namespace="{ns}",pod="{pod}",container="main",' if i == 0 else
                   f'pod_namespace="{ns}",pod_name="{pod}",container_name="main",') if labels else ""
            lines.append(f'{metric}{{gpu="{i}",UUID="GPU-{i}a1b2c3d4-0000-1111-2222-33334444555{i}",'
                         f'device="nvidia{i}",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-node-1",{who}'
                         f'DCGM_FI_DRIVER_VERSION="550.54.15"}} {v}')
    # another team's pod on the same node: never attributed to this run
    lines.append(f'DCGM_FI_DEV_GPU_UTIL{{gpu="2",UUID="GPU-x",namespace="other",pod="{pod}",container="main"}} 99')
    lines.append(f'DCGM_FI_DEV_GPU_UTIL{{gpu="3",UUID="GPU-y",namespace="{ns}",pod="someone-else",container="c"}} 98')
    return "\n".join(lines) + "\n"


class Exporter:
    def __init__(self, *, exporters=(EXPORTER,), text: str | None = None, proxy_status: int = 200,
                 expected: str = "/api/v1/namespaces/gpu-operator/pods/dcgm-exporter-7xk2p:9400/proxy/metrics"):
        self.exporters, self.text, self.proxy_status = list(exporters), text, proxy_status
        self.expected = expected
        self.discovery = self.metrics = 0

    def __call__(self, path: str):
        u = urlsplit(path)
        if u.path == "/api/v1/pods":
            self.discovery += 1
            sel = parse_qs(u.query).get("labelSelector", [""])[0]
            items = [e for e in self.exporters if sel.split("=")[0] in e["metadata"]["labels"]
                     and e["metadata"]["labels"][sel.split("=")[0]] == sel.split("=")[1]]
            return 200, json.dumps({"kind": "PodList", "items": items}).encode(), "application/json"
        if u.path.endswith("/proxy/metrics"):
            self.metrics += 1
            assert u.path == self.expected, u.path
            if self.proxy_status != 200:
                return self.proxy_status, b'{"kind":"Status","reason":"Forbidden"}', "application/json"
            return 200, (self.text or "").encode(), "text/plain; version=0.0.4"
        return None


def _run(tmp_path: Path, exporter: Exporter, scenario: str = "healthy-running", env: dict | None = None) -> dict:
    from workload_diagnose.tools.kube import kubeconfig_for

    from workload_diagnose.agent.entrypoints.cli import app

    srv = ReplayServer(recording.CASSETTES / f"{scenario}.yaml", routes=exporter)
    try:
        kc = tmp_path / "kc"
        kc.write_text(yaml.safe_dump(kubeconfig_for(srv.url, "replay-token")))
        m = recording.meta(scenario)
        res = CliRunner().invoke(app, ["lifecycle", m["name"], "-n", m["namespace"], "--kubeconfig", str(kc),
                                       "--run-profile", "--json"], env=env)
    finally:
        srv.close()
    assert res.exit_code == 0, res.output
    assert all(r.startswith("GET ") for r in srv.requests)
    return json.loads(res.stdout)


def _meta():
    return recording.meta("healthy-running")


def test_observed_figures_within_the_bound(tmp_path):
    m = _meta()
    ex = Exporter(text=metrics_text(m["namespace"], "train-h1"))
    data = _run(tmp_path, ex)
    p = data["run_profile"]
    assert p["gpu_utilization"] == {"status": "observed", "avg": 50.0, "max": 70.0, "samples": 2}
    assert p["gpu_memory"] == {"status": "observed", "avg": 15.0, "max": 20.0, "samples": 2, "unit": "GiB"}
    assert p["gpu_activity"] == {"status": "observed", "value": "active"}
    devs = p["gpu_devices"]["devices"]
    assert [(d["pod"], d["container"], d["gpu"]) for d in devs] == [("train-h1", "main", "0"),
                                                                    ("train-h1", "main", "1")]
    assert devs[0]["uuid"].startswith("GPU-0a1b2c3d4")
    assert p["cuda_compute_process"]["status"] == "unavailable" and "PIDs" in p["cuda_compute_process"]["reason"]
    assert p["gpu_allocation"]["status"] == "unavailable"  # device plugin, no DRA claim
    # at most two discovery requests plus one metrics request per distinct node (one node here)
    assert (ex.discovery, ex.metrics) == (1, 1)
    assert p["requests"] == {"discovery": 1, "metrics": 1}
    assert any("/proxy/metrics" in c["request"] for c in data["tool_calls"])
    assert "Run profile:" in data["report"]


def test_idle_now_is_a_real_zero(tmp_path):
    m = _meta()
    p = _run(tmp_path, Exporter(text=metrics_text(m["namespace"], "train-h1", util=(0, 0))))["run_profile"]
    assert p["gpu_utilization"]["avg"] == 0.0 and p["gpu_utilization"]["status"] == "observed"
    assert p["gpu_activity"]["value"] == "idle now"


@pytest.mark.parametrize("exporter,why", [
    (Exporter(exporters=()), "no dcgm-exporter pods"),
    (Exporter(text=None), "no dcgm-exporter sample carries"),  # exporter answers, but no samples at all
    (Exporter(text="labels"), "no dcgm-exporter sample carries"),  # samples without pod labels
    (Exporter(text="x", proxy_status=403), "pods/proxy"),
])
def test_unavailable_never_zero(tmp_path, exporter, why):
    m = _meta()
    if exporter.text == "labels":
        exporter.text = metrics_text(m["namespace"], "train-h1", labels=False)
    elif exporter.text == "x":
        exporter.text = metrics_text(m["namespace"], "train-h1")
    p = _run(tmp_path, exporter)["run_profile"]
    for k in ("gpu_devices", "gpu_utilization", "gpu_memory", "gpu_activity"):
        assert p[k]["status"] == "unavailable" and why in p[k]["reason"], (k, p[k])
        assert "avg" not in p[k] and "value" not in p[k]
    assert exporter.discovery <= 2 and exporter.metrics <= 1
    if not exporter.exporters:
        assert (exporter.discovery, exporter.metrics) == (2, 0)


def test_metrics_guard_refuses_everything_else():
    from workload_diagnose.tools.kube import KubeWriteRefused
    from workload_diagnose.tools.kube.metrics import check_metrics_request

    check_metrics_request("GET", "https://h/api/v1/namespaces/gpu-operator/pods/dcgm-x:9400/proxy/metrics")
    for method, url in [("POST", "https://h/api/v1/namespaces/a/pods/b:9400/proxy/metrics"),
                        ("GET", "https://h/api/v1/namespaces/a/pods/b:9400/proxy/shutdown"),
                        ("GET", "https://h/api/v1/namespaces/a/pods/b/exec"),
                        ("GET", "https://h/api/v1/namespaces/a/pods/b:9400/proxy/metrics?x=1"),
                        ("GET", "https://h/api/v1/namespaces/a/services/b:9400/proxy/metrics/../x"),
                        ("DELETE", "https://h/api/v1/namespaces/a/pods/b")]:
        with pytest.raises(KubeWriteRefused):
            check_metrics_request(method, url)


def test_metrics_transport_refuses_before_sending(tmp_path):
    """The metrics reader's own pool manager refuses anything but the metrics GET before a connection opens."""
    from workload_diagnose.tools.kube import KubeWriteRefused, kubeconfig_for
    from workload_diagnose.tools.kube.lifecycle import LifecycleReader
    from workload_diagnose.tools.kube.metrics import DcgmProfileReader

    r = LifecycleReader.from_kubeconfig(kubeconfig_for("http://127.0.0.1:1", "t"))
    d = DcgmProfileReader.for_reader(r)
    for method, path in [("POST", "/api/v1/namespaces/a/pods/b:9400/proxy/metrics"),
                         ("GET", "/api/v1/namespaces/a/pods/b")]:
        with pytest.raises(KubeWriteRefused):
            d._pool().request(method, "http://127.0.0.1:1" + path)
    d.close()
    r.close()


def _exporter(name: str, ns: str, owner: str | None = "DaemonSet", port: dict | None = None) -> dict:
    import copy

    e = copy.deepcopy(EXPORTER)
    e["metadata"].update(name=name, namespace=ns)
    e["metadata"]["ownerReferences"] = [] if owner is None else [
        {"apiVersion": "apps/v1", "kind": owner, "name": "x", "controller": True}]
    if port is not None:
        e["spec"]["containers"][0]["ports"] = [port]
    return e


@pytest.mark.parametrize("impostor, why", [
    (_exporter("dcgm-exporter-fake", "ml-team"), "1 not in an allowed namespace"),  # any team's namespace
    (_exporter("dcgm-exporter-rs", "gpu-operator", owner="ReplicaSet"), "1 not controlled by a DaemonSet"),
    (_exporter("dcgm-exporter-bare", "gpu-operator", owner=None), "1 not controlled by a DaemonSet"),
])
def test_a_pod_that_only_carries_the_exporter_label_is_no_source(tmp_path, monkeypatch, impostor, why):
    monkeypatch.delenv("WD_DCGM_NAMESPACES", raising=False)
    m = _meta()
    ex = Exporter(exporters=(impostor,), text=metrics_text(m["namespace"], "train-h1", util=(100, 100)))
    p = _run(tmp_path, ex)["run_profile"]
    for k in ("gpu_devices", "gpu_utilization", "gpu_memory", "gpu_activity"):
        assert p[k]["status"] == "unavailable" and why in p[k]["reason"], (k, p[k])
        assert "gpu-operator, nvidia-gpu-operator" in p[k]["reason"] and "WD_DCGM_NAMESPACES" in p[k]["reason"]
    assert ex.metrics == 0  # never read through pods/proxy


def test_the_allowed_namespaces_are_a_setting_and_the_port_the_declared_metrics_port(tmp_path):
    m = _meta()
    own = _exporter("dcgm-exporter-q8w", "monitoring", port={"name": "metrics", "containerPort": 9500})
    ex = Exporter(exporters=(own,), text=metrics_text(m["namespace"], "train-h1"),
                  expected="/api/v1/namespaces/monitoring/pods/dcgm-exporter-q8w:9500/proxy/metrics")
    p = _run(tmp_path, ex, env={"WD_DCGM_NAMESPACES": "monitoring, gpu-operator"})["run_profile"]
    assert p["gpu_utilization"]["status"] == "observed" and ex.metrics == 1


def test_metrics_port_and_trust_rules():
    from workload_diagnose.tools.kube.metrics import allowed_namespaces, metrics_port, untrusted

    assert allowed_namespaces({}) == ("gpu-operator", "nvidia-gpu-operator")
    assert allowed_namespaces({"WD_DCGM_NAMESPACES": " a,b ,"}) == ("a", "b")
    assert metrics_port(_exporter("e", "gpu-operator", port={"containerPort": 8080})) == 9400
    assert metrics_port(_exporter("e", "gpu-operator", port={"name": "metrics", "containerPort": 9401})) == 9401
    assert untrusted(EXPORTER, ("gpu-operator",)) is None
    not_controller = _exporter("e", "gpu-operator")
    not_controller["metadata"]["ownerReferences"][0]["controller"] = False
    assert untrusted(not_controller, ("gpu-operator",)) == "not controlled by a DaemonSet"
