"""Run inside a private network namespace (``unshare -rn``): a REAL kube-apiserver, a dcgm-exporter stand-in on a
non-loopback address (10.99.0.1 on this namespace's own lo: the apiserver refuses to proxy to loopback pod IPs),
and the lifecycle --run-profile read through the apiserver's pods/proxy. Prints the --json object.

    unshare -rn python -m tests.lifecycle.netns_profile RUN_DIR
"""
from __future__ import annotations

import json
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

POD_IP = "10.99.0.1"


def main(run_dir: str) -> int:
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    subprocess.run(["ip", "addr", "add", f"{POD_IP}/32", "dev", "lo"], check=True)
    subprocess.run(["ip", "route", "add", "default", "dev", "lo"], check=True)  # the apiserver wants one
    from workload_diagnose.evals import kubeapi
    from tests.lifecycle.test_run_profile import metrics_text

    hits: list[str] = []
    ns = "lc-netns"

    class H(BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def do_GET(self):
            hits.append(self.path)
            body = metrics_text(ns, "train-p1").encode() if self.path == "/metrics" else b""
            self.send_response(200 if body else 404)
            self.send_header("Content-Type", "text/plain; version=0.0.4")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    exporter = ThreadingHTTPServer((POD_IP, 9400), H)
    threading.Thread(target=exporter.serve_forever, daemon=True).start()
    cluster = kubeapi.start_kube_apiserver(Path(run_dir), kubeapi.build_kube_apiserver())
    try:
        from kubernetes import client, config

        ac = config.new_client_from_config(config_file=str(cluster.kubeconfig))
        core, batch = client.CoreV1Api(ac), client.BatchV1Api(ac)
        for n in (ns, "gpu-operator"):
            core.create_namespace({"metadata": {"name": n}})
        core.create_namespaced_pod("gpu-operator", {
            "metadata": {"name": "dcgm-exporter-7xk2p", "labels": {"app.kubernetes.io/name": "dcgm-exporter"},
                         "ownerReferences": [{"apiVersion": "apps/v1", "kind": "DaemonSet", "controller": True,
                                              "name": "nvidia-dcgm-exporter",
                                              "uid": "5d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d"}]},
            "spec": {"nodeName": "gpu-node-1", "containers": [{"name": "exporter", "image": "nvcr.io/nvidia/k8s/"
                     "dcgm-exporter:3.3.5", "ports": [{"name": "metrics", "containerPort": 9400}]}]}})
        core.patch_namespaced_pod_status("dcgm-exporter-7xk2p", "gpu-operator", {"status": {
            "phase": "Running", "podIP": POD_IP, "podIPs": [{"ip": POD_IP}]}})
        batch.create_namespaced_job(ns, {"metadata": {"name": "train"}, "spec": {"template": {"spec": {
            "restartPolicy": "Never", "containers": [{"name": "main", "image": "nvcr.io/nvidia/pytorch:24.01-py3"}]}}}})
        core.create_namespaced_pod(ns, {"metadata": {"name": "train-p1", "labels": {"job-name": "train"}},
                                        "spec": {"nodeName": "gpu-node-1", "restartPolicy": "Never",
                                                 "containers": [{"name": "main", "image": "x"}]}})
        core.patch_namespaced_pod_status("train-p1", ns, {"status": {"phase": "Running", "conditions": [
            {"type": "Ready", "status": "True"}], "containerStatuses": [{
                "name": "main", "image": "x", "imageID": "", "ready": True, "restartCount": 0,
                "state": {"running": {"startedAt": "2026-01-01T00:00:00Z"}}}]}})
        ac.close()

        from workload_diagnose.agent.procedures.lifecycle.api import LifecycleRequest, refresh
        from workload_diagnose.tools.kube.lifecycle import LifecycleReader
        from workload_diagnose.tools.kube.metrics import DcgmProfileReader

        r = LifecycleReader.from_kubeconfig(str(cluster.kubeconfig))
        m = DcgmProfileReader.for_reader(r)
        res = refresh(LifecycleRequest(name="train", namespace=ns, run_profile=True), r, metrics=m)
        out = res.model_dump(mode="json")
        out["exporter_hits"] = hits
        print(json.dumps(out))
        r.close()
    finally:
        kubeapi.stop_cluster(cluster)
        exporter.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
