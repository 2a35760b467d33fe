"""--run-profile through the REAL apiserver's pods/proxy, in a private network namespace the test creates
(``unshare -rn``): the exporter stand-in listens on a non-loopback pod IP, which the apiserver proxies to."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.k8s
REPO = Path(__file__).resolve().parents[2]


def test_run_profile_through_pods_proxy(tmp_path, kube_apiserver):  # kube_apiserver: the binary is built/usable
    if not shutil.which("unshare") or subprocess.run(["unshare", "-rn", "true"]).returncode != 0:
        pytest.skip("cannot create a network namespace here (unshare -rn)")
    p = subprocess.run(["unshare", "-rn", sys.executable, "-m", "tests.lifecycle.netns_profile", str(tmp_path)],
                       cwd=REPO, capture_output=True, text=True, timeout=240, env={**os.environ})
    assert p.returncode == 0, p.stderr[-3000:]
    data = json.loads(p.stdout.strip().splitlines()[-1])
    prof = data["run_profile"]
    assert data["exporter_hits"] == ["/metrics"]  # one metrics request reached the exporter, via the apiserver
    assert prof["gpu_utilization"] == {"status": "observed", "avg": 50.0, "max": 70.0, "samples": 2}
    assert prof["gpu_memory"]["max"] == 20.0 and prof["gpu_activity"]["value"] == "active"
    assert prof["requests"] == {"discovery": 1, "metrics": 1}
    assert data["first_incomplete"] is None
    proxied = [c for c in data["tool_calls"] if "/proxy/metrics" in c["request"]]
    assert proxied == [{"tool": "kubernetes", "request": "GET /api/v1/namespaces/gpu-operator/pods/"
                        "dcgm-exporter-7xk2p:9400/proxy/metrics", "status": 200}]
