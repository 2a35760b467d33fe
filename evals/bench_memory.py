"""Benchmark helper for issue 6 item 6: peak RSS of Tier-2 log reads and of a full diagnosis over a 50 MB log.

The parent (``evals.bench``) starts a REAL kube-apiserver + etcd (``shared/k8s/start-kube-apiserver.sh``, binary
built once by ``build-kube-apiserver.sh``; this module never builds it), the HTTPS kubelet stand-in from
``evals/kube_standin.py`` serving generated 50 MB logs, and the Run:ai simulator. Each measurement runs in
a fresh child process (``python -m workload_diagnose.evals.bench_memory child '<json>'``) that reports its own peak RSS (``VmHWM``
from ``/proc/self/status``) before and after the call, so neither the servers nor the bench itself are counted.
(``getrusage(RUSAGE_SELF).ru_maxrss`` is recorded too but not used: Linux carries the parent's peak across
fork+exec into it, so a child of a 150 MB bench reports at least 150 MB.)
"""
from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from workload_diagnose.evals.kubeapi import shared_k8s_dir, stop_pids

REPO = Path(__file__).resolve().parents[1]
FIFTY_MB = 50 * 1024 * 1024
TRACEBACK_TAIL = (
    "Traceback (most recent call last):",
    '  File "/workspace/train.py", line 88, in <module>',
    "    main()",
    '  File "/workspace/train.py", line 71, in main',
    '    cfg = load_config(os.environ["CONFIG_PATH"])',
    "KeyError: 'CONFIG_PATH'",
)


# ------------------------------------------------------------------------------------------ RSS
def _status_kb(field: str) -> int | None:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def rss_snapshot() -> dict:
    hwm = _status_kb("VmHWM")
    rss = _status_kb("VmRSS")
    ru = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    return {"vmhwm_mb": hwm / 1024 if hwm else None, "vmrss_mb": rss / 1024 if rss else None,
            "ru_maxrss_mb": ru / 1024}


# ------------------------------------------------------------------------------------------ child
def child(spec: dict) -> dict:
    mode = spec["mode"]
    out: dict = {"mode": mode}
    if mode == "replay":
        from workload_diagnose.evals.runner import replay
        from workload_diagnose.evals.scenarios import load_scenario

        sc = load_scenario(spec["scenario"])
        out["before"] = rss_snapshot()
        res = replay(sc)
        out["after"] = rss_snapshot()
        out["outcome"], out["category"] = res.outcome, res.category
        return out
    from workload_diagnose.tools.kube import KubeReader

    reader = KubeReader.from_kubeconfig(spec["kubeconfig"])
    if mode == "previous_log":
        out["before"] = rss_snapshot()
        t0 = time.perf_counter()
        log = reader.previous_log(spec["ns"], spec["pod"], spec["container"], tail_lines=spec.get("tail_lines"),
                                  limit_bytes=spec["limit_bytes"], previous=True)
        out["elapsed_s"] = time.perf_counter() - t0
        out["after"] = rss_snapshot()
        out.update(bytes_read=log.bytes_read, lines=len(log.lines), truncated=log.truncated)
        return out
    if mode == "diagnose":
        import workload_diagnose.agent.procedures.runai_failed.graph  # noqa: F401
        import workload_diagnose.agent.procedures.runai_failed.tier2  # noqa: F401
        from workload_diagnose.agent.api import diagnose

        out["before"] = rss_snapshot()
        t0 = time.perf_counter()
        res = diagnose(**spec["args"], runai_url=spec["runai_url"], client_id=spec["client_id"],
                       client_secret=spec["client_secret"], kube_reader=reader, retry_sleep=lambda s: None)
        out["elapsed_s"] = time.perf_counter() - t0
        out["after"] = rss_snapshot()
        out.update(outcome=res.outcome, category=res.category,
                   log_evidence=[e.text for e in res.evidence if e.source.startswith("kubectl logs")],
                   limitations=res.limitations)
        return out
    raise SystemExit(f"unknown mode {mode!r}")


def run_child(spec: dict, timeout: float = 120) -> dict:
    p = subprocess.run([sys.executable, "-m", "workload_diagnose.evals.bench_memory", "child", json.dumps(spec)], cwd=str(REPO),
                       capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError(f"child {spec['mode']} failed (exit {p.returncode}): {p.stderr.strip()[-800:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


# --------------------------------------------------------------------------------- kube-apiserver
@dataclass
class KubeTools:
    binary: Path | None
    start_script: Path | None
    reason: str | None  # why Tier 2 cannot be measured (None = available)


def find_kube_tools() -> KubeTools:
    """The cached kube-apiserver binary, etcd and the start script; never builds anything (a build takes minutes:
    run ``./dev test`` once, or ``shared/k8s/build-kube-apiserver.sh``)."""
    from workload_diagnose.evals.kubeapi import cache_dir

    explicit = os.environ.get("KUBE_APISERVER")
    binary = Path(explicit) if explicit else cache_dir() / "bin" / "kube-apiserver"
    script = shared_k8s_dir() / "start-kube-apiserver.sh"
    missing = []
    if not os.access(binary, os.X_OK):
        missing.append(f"no kube-apiserver binary at {binary} (build it once: "
                       f"{shared_k8s_dir()}/build-kube-apiserver.sh"
                       " or ./dev test)")
    if not script.is_file():
        missing.append(f"no start script at {script} (set WD_SHARED_DIR)")
    for tool in ("etcd", "openssl", "curl"):
        if not shutil.which(tool):
            missing.append(f"{tool} not on PATH")
    return KubeTools(binary if not missing else None, script if not missing else None,
                     "; ".join(missing) if missing else None)


def start_apiserver(tools: KubeTools, run_dir: Path) -> tuple[Path, list[int], float]:
    from workload_diagnose.evals.kubeapi import KubeApiUnavailable, start_kube_apiserver

    try:
        c = start_kube_apiserver(run_dir, tools.binary)
    except KubeApiUnavailable as e:
        raise RuntimeError(str(e)) from None
    return c.kubeconfig, c.pids, c.startup_s


# ----------------------------------------------------------------------------------- fixtures
def _kubelet_classes():
    from workload_diagnose.evals.kube_standin import GeneratedLog, KubeletStandin, wait_done

    @dataclass
    class TailTracebackLog(GeneratedLog):
        """A generated log whose last lines are a Python traceback (padded to the fixed line width)."""

        def line(self, i: int) -> bytes:
            k = self.n_lines() - len(TRACEBACK_TAIL)
            if i >= k:
                text = TRACEBACK_TAIL[i - k][: self.line_bytes - 1]
                return (text.ljust(self.line_bytes - 1) + "\n").encode()
            return super().line(i)

    return GeneratedLog, TailTracebackLog, KubeletStandin, wait_done


def _make_node(api, name: str, kubelet_port: int) -> None:
    api.create_node({"metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}}, "spec": {}})
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    api.patch_node_status(name, {"status": {
        "capacity": {"cpu": "64", "memory": "512Gi", "pods": "110", "nvidia.com/gpu": "8"},
        "allocatable": {"cpu": "64", "memory": "512Gi", "pods": "110", "nvidia.com/gpu": "8"},
        "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "ready",
                        "lastHeartbeatTime": now, "lastTransitionTime": now}],
        "addresses": [{"type": "InternalIP", "address": "127.0.0.1"}],
        "daemonEndpoints": {"kubeletEndpoint": {"Port": kubelet_port}}}})
    api.patch_node(name, {"spec": {"taints": None}})


def _make_pod(api, ns: str, name: str, node: str, container: str, *, failed: bool) -> str:
    """Create the pod; returns the UID the apiserver gave it (the Run:ai world must report the same one)."""
    created = api.create_namespaced_pod(ns, {"metadata": {"name": name}, "spec": {
        "nodeName": node, "restartPolicy": "Never",
        "containers": [{"name": container, "image": "nvcr.io/nvidia/pytorch:24.05-py3"}]}})
    if failed:
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        api.patch_namespaced_pod_status(name, ns, {"status": {"phase": "Failed", "containerStatuses": [{
            "name": container, "image": "nvcr.io/nvidia/pytorch:24.05-py3", "imageID": "", "ready": False,
            "restartCount": 0, "state": {"terminated": {"reason": "Error", "exitCode": 1, "startedAt": now,
                                                         "finishedAt": now}}, "lastState": {}}]}})
    return created.metadata.uid


def measure_tier2(tools: KubeTools, *, log_bytes: int = FIFTY_MB, scenario: str = "core/crash-exit-code",
                  echo=lambda m: None) -> dict:
    """Start the apiserver + stand-in + simulator, run the three child measurements, stop everything."""
    from kubernetes import client as kclient
    from kubernetes import config as kconfig

    from workload_diagnose.agent.model.limits import Limits
    from workload_diagnose.evals.runner import _kwargs
    from workload_diagnose.evals.scenarios import load_scenario
    from workload_diagnose.evals.simulator import World, running_simulator

    GeneratedLog, TailTracebackLog, KubeletStandin, wait_done = _kubelet_classes()
    limit = Limits().log_limit_bytes
    tail = Limits().log_tail_lines
    sc = load_scenario(scenario)
    world = World.load(sc.world)
    wl = world.workloads()[0]
    wpod = (world.data.get("pods") or {})[wl["id"]][0]
    ns, node = f"runai-{wl['projectName']}", wpod["nodeName"]
    pod, container = wpod["name"], wpod["containers"][0]["name"]
    out: dict = {"log_bytes": log_bytes, "limit_bytes": limit, "tail_lines": tail, "scenario": scenario,
                 "namespace": ns}
    tmp = tempfile.TemporaryDirectory(prefix="wd-bench-k8s-")
    pids: list[int] = []
    kubelet = None
    api_client = None
    try:
        echo("starting kube-apiserver + etcd …")
        kc, pids, startup = start_apiserver(tools, Path(tmp.name))
        out["apiserver_startup_s"] = startup
        kubelet = KubeletStandin(Path(tmp.name) / "kubelet").start()
        api_client = kconfig.new_client_from_config(config_file=str(kc))
        api = kclient.CoreV1Api(api_client)
        api.create_namespace({"metadata": {"name": ns}})
        _make_node(api, node, kubelet.port)
        wpod["id"] = _make_pod(api, ns, pod, node, container, failed=True)  # Tier 2 uses only that pod
        for name in ("bench-log-ignores-limits", "bench-log-honours-limits"):
            _make_pod(api, ns, name, node, "main", failed=False)
        kubelet.add_generated_log(ns, "bench-log-ignores-limits", "main", log_bytes, previous=True,
                                  honour_limits=False)
        kubelet.add_generated_log(ns, "bench-log-honours-limits", "main", log_bytes, previous=True,
                                  honour_limits=True)
        runs: dict = {}
        for key, pname, tl in (("previous_log_backend_ignores_limits", "bench-log-ignores-limits", tail),
                               ("previous_log_limits_honoured_no_tail", "bench-log-honours-limits", None)):
            echo(f"{key} …")
            r = run_child({"mode": "previous_log", "kubeconfig": str(kc), "ns": ns, "pod": pname,
                           "container": "main", "tail_lines": tl, "limit_bytes": limit})
            reqs = kubelet.requests_for(ns, pname, "main")
            if reqs:
                wait_done(reqs[-1], 20)
                r["kubelet_bytes_sent"], r["kubelet_bytes_total"] = reqs[-1].bytes_sent, reqs[-1].total_bytes
            runs[key] = r
        for previous in (True, False):  # the Tier-2 code reads --previous only when the container restarted
            with kubelet._lock:
                kubelet.generated[(ns, pod, container, previous)] = TailTracebackLog(total_bytes=log_bytes,
                                                                                     honour_limits=True)
        echo("full diagnosis with Tier 2 …")
        with running_simulator(world) as sim:
            r = run_child({"mode": "diagnose", "kubeconfig": str(kc), "args": _kwargs(sc), "runai_url": sim.url,
                           "client_id": sim.client_id, "client_secret": sim.client_secret})
        reqs = kubelet.requests_for(ns, pod, container)
        if reqs:
            wait_done(reqs[-1], 20)
            r["kubelet_bytes_sent"], r["kubelet_bytes_total"] = reqs[-1].bytes_sent, reqs[-1].total_bytes
        r["kubelet_log_requests"] = len(reqs)
        runs["diagnosis_tier2"] = r
        out["runs"] = runs
        return out
    finally:
        if api_client is not None:
            api_client.close()
        if kubelet is not None:
            kubelet.stop()
        t0 = time.monotonic()
        stop_pids(pids)
        out["apiserver_stop_s"] = time.monotonic() - t0
        tmp.cleanup()


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "child":
        print(json.dumps(child(json.loads(sys.argv[2]))))
    else:
        print(__doc__)
        sys.exit(2)
