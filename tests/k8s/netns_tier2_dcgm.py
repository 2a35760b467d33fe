"""Run inside a private network namespace (``unshare -rn``): the Run:ai failed-workload diagnosis with Tier 2 on a
REAL kube-apiserver, whose GPU node runs a dcgm-exporter stand-in on a non-loopback pod IP (the apiserver refuses
to proxy to loopback), read through the apiserver's pods/proxy with the metrics-only guard. Prints one JSON line:
the verdict, evidence, limitations and tool calls of each exporter answer.

    unshare -rn python -m tests.k8s.netns_tier2_dcgm RUN_DIR
"""
from __future__ import annotations

import json
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

POD_IP = "10.99.0.2"
SCENARIO = "gpu/t2-near-imex-condition"  # a crash loop with exit 1 on a GPU node; its monitor condition is dropped
UUID0, UUID1 = "GPU-5d0c5d7e-8a53-4a0e-9d59-3b8f4bce2a10", "GPU-0a4d2c1b-7e6f-4b5a-8c9d-1e2f3a4b5c6d"


def metrics(xid_mine: int, xid_other: int, ns: str, pod: str) -> str:
    host = 'Hostname="t2-gpu-imex",modelName="NVIDIA H100 80GB HBM3"'
    return (
        "# HELP DCGM_FI_DEV_XID_ERRORS Value of the last XID error encountered.\n"
        "# TYPE DCGM_FI_DEV_XID_ERRORS gauge\n"
        f'DCGM_FI_DEV_XID_ERRORS{{gpu="0",UUID="{UUID0}",device="nvidia0",{host},container="main",'
        f'namespace="{ns}",pod="{pod}"}} {xid_mine}\n'
        f'DCGM_FI_DEV_XID_ERRORS{{gpu="1",UUID="{UUID1}",device="nvidia1",{host},container="main",'
        f'namespace="other",pod="someone-else-0"}} {xid_other}\n'
        "# TYPE DCGM_FI_DEV_ROW_REMAP_FAILURE gauge\n"
        f'DCGM_FI_DEV_ROW_REMAP_FAILURE{{gpu="0",UUID="{UUID0}",device="nvidia0",{host}}} 0\n'
        f'DCGM_FI_DEV_GPU_UTIL{{gpu="0",UUID="{UUID0}",device="nvidia0",{host}}} 0\n')


def main(run_dir: str) -> int:
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    subprocess.run(["ip", "addr", "add", f"{POD_IP}/32", "dev", "lo"], check=True)
    subprocess.run(["ip", "route", "add", "default", "dev", "lo"], check=True)
    from workload_diagnose.evals import kubeapi, kubeworld
    from workload_diagnose.evals.kube_standin import KubeletStandin
    from workload_diagnose.evals.runner import live
    from workload_diagnose.evals.scenarios import load_scenario

    sc = load_scenario(SCENARIO)
    kube = kubeworld.load(sc.path / "kube.json")
    for n in kube["nodes"]:
        n["conditions_extra"] = []  # only the exporter speaks about the GPUs here
    ns, pod = kube["pods"][0]["metadata"]["namespace"], kube["pods"][0]["metadata"]["name"]
    node = kube["pods"][0]["spec"]["nodeName"]
    body = {"text": ""}
    hits: list[str] = []

    class H(BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def do_GET(self):
            hits.append(self.path)
            data = body["text"].encode() if self.path == "/metrics" else b""
            self.send_response(200 if data else 404)
            self.send_header("Content-Type", "text/plain; version=0.0.4")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    exporter = ThreadingHTTPServer((POD_IP, 9400), H)
    threading.Thread(target=exporter.serve_forever, daemon=True).start()
    cluster = kubeapi.start_kube_apiserver(Path(run_dir), kubeapi.build_kube_apiserver())
    kubelet = KubeletStandin(Path(run_dir) / "kubelet").start()
    out = {}
    try:
        from kubernetes import client, config

        ac = config.new_client_from_config(config_file=str(cluster.kubeconfig))
        core = client.CoreV1Api(ac)
        uids = kubeworld.apply(kube, core, kubelet_port=kubelet.port,
                               add_log=lambda n_, p_, c_, t_, prev: kubelet.add_log(n_, p_, c_, t_, previous=prev))
        core.create_namespace({"metadata": {"name": "gpu-operator"}})
        core.create_namespaced_pod("gpu-operator", {
            "metadata": {"name": "nvidia-dcgm-exporter-x7k2p", "labels": {"app": "nvidia-dcgm-exporter"},
                         "ownerReferences": [{"apiVersion": "apps/v1", "kind": "DaemonSet", "controller": True,
                                              "name": "nvidia-dcgm-exporter",
                                              "uid": "5d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d"}]},
            "spec": {"nodeName": node, "containers": [{"name": "nvidia-dcgm-exporter", "image": "nvcr.io/nvidia/k8s/"
                     "dcgm-exporter:3.3.5", "ports": [{"name": "metrics", "containerPort": 9400}]}]}})
        core.patch_namespaced_pod_status("nvidia-dcgm-exporter-x7k2p", "gpu-operator", {"status": {
            "phase": "Running", "podIP": POD_IP, "podIPs": [{"ip": POD_IP}]}})
        ac.close()
        world = kubeworld.with_pod_uids(json.loads(sc.world.read_text()), uids)
        from workload_diagnose.tools.kube import KubeReader

        for case, text in (("xid79_on_its_gpu", metrics(79, 0, ns, pod)),
                           ("xid79_on_another_gpu", metrics(0, 79, ns, pod)),
                           ("xid31_on_its_gpu", metrics(31, 0, ns, pod)),
                           ("exporter_down", "")):
            body["text"] = text
            reader = KubeReader.from_kubeconfig(str(cluster.kubeconfig))
            res, _ = live(sc, world=world, kube_reader=reader)
            reader.close()
            out[case] = {"category": res.category, "evidence": [[e.source, e.text] for e in res.evidence],
                         "limitations": res.limitations, "recommendations": res.recommendations,
                         "calls": [c.request for c in res.tool_calls]}
        out["exporter_hits"] = hits
        print(json.dumps(out))
    finally:
        kubelet.stop()
        kubeapi.stop_cluster(cluster)
        exporter.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
