"""Tier 2 reads the GPU health of the workload's node from dcgm-exporter through the REAL apiserver's pods/proxy
(metrics-only guard), in a private network namespace (``unshare -rn``; see ``netns_tier2_dcgm``): a hardware-class
Xid on the workload's own GPU is the cause, the same Xid on another GPU or an application-class Xid is a line, and an
unreadable exporter is a limitation that says the figures are unknown, never 0."""
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


def test_dcgm_xid_through_pods_proxy(tmp_path, kube_apiserver):  # kube_apiserver: the binary is built/usable
    if not shutil.which("unshare") or subprocess.run(["unshare", "-rn", "true"]).returncode != 0:
        pytest.skip("cannot create a network namespace here (unshare -rn)")
    p = subprocess.run(["unshare", "-rn", sys.executable, "-m", "tests.k8s.netns_tier2_dcgm", str(tmp_path)],
                       cwd=REPO, capture_output=True, text=True, timeout=300, env={**os.environ})
    assert p.returncode == 0, p.stderr[-3000:]
    out = json.loads(p.stdout.strip().splitlines()[-1])
    proxy = "GET /api/v1/namespaces/gpu-operator/pods/nvidia-dcgm-exporter-x7k2p:9400/proxy/metrics"

    mine = out["xid79_on_its_gpu"]
    assert mine["category"] == "NODE_FAILURE"
    assert proxy in mine["calls"]
    cited = [t for s, t in mine["evidence"] if s.startswith("kubectl get --raw /api/v1/namespaces/gpu-operator/")]
    assert any("GPU 0 (UUID GPU-5d0c5d7e-8a53-4a0e-9d59-3b8f4bce2a10" in t and "DCGM_FI_DEV_XID_ERRORS (last Xid) = 79"
               in t for t in cited), mine["evidence"]
    recos = " ".join(mine["recommendations"])
    assert "Xid 79 (GPU has fallen off the bus)" in recos and "node t2-gpu-imex" in recos

    other = out["xid79_on_another_gpu"]
    assert other["category"] == "CRASH_APP_ERROR"
    assert any("GPU 1" in t and "= 79" in t and "not on a GPU attributed to this workload's pods" in t
               for _, t in other["evidence"]), other["evidence"]

    assert out["xid31_on_its_gpu"]["category"] == "CRASH_APP_ERROR"

    down = out["exporter_down"]
    assert down["category"] == "CRASH_APP_ERROR"
    assert any("dcgm-exporter is unavailable" in x and "unknown, not 0" in x for x in down["limitations"])
    assert out["exporter_hits"] == ["/metrics"] * 4
