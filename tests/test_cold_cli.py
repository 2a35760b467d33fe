"""A cold ``failed`` run imports only what it uses (issue 25): a fresh interpreter runs the real CLI against the
simulator and lists every module it imported. Nothing of the service, MCP, chat, triage, the model stack, the
Kubernetes client or evals may be among them (each is imported inside the command that uses it), so start-up
cannot regress by an import added at module level."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from workload_diagnose.evals.bench_process import UNUSED_BY_FAILED, unused_imports
from workload_diagnose.evals.scenarios import load_scenario
from workload_diagnose.evals.simulator import running_simulator

REPO = Path(__file__).resolve().parents[1]

LIST_MODULES = r"""
import atexit, json, sys
out = sys.argv[1]
atexit.register(lambda: open(out, "w").write(json.dumps(sorted(sys.modules))))
sys.argv = ["workload-diagnose", *sys.argv[2:]]
from workload_diagnose.agent.entrypoints.cli import main
main()
"""


@pytest.mark.parametrize("kube", [["--no-kube"], []], ids=["no-kube", "no-kubeconfig"])
def test_a_failed_run_imports_nothing_it_does_not_use(tmp_path, kube):
    sc = load_scenario("core/oom-metrics")
    out = tmp_path / "modules.json"
    with running_simulator(sc.world) as sim:
        env = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"}
        env.update(RUNAI_BASE_URL=sim.url, RUNAI_CLIENT_ID=sim.client_id, RUNAI_CLIENT_SECRET=sim.client_secret)
        p = subprocess.run([sys.executable, "-c", LIST_MODULES, str(out), "failed", "--cluster-id",
                            sc.args.cluster_id, "--workload-id", sc.args.workload_id, "--now", sc.args.now, "--json",
                            *kube], env=env, cwd=str(REPO), capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    assert json.loads(p.stdout)["category"] == sc.expected.category
    modules = json.loads(out.read_text())
    assert "langgraph" in modules and "workload_diagnose.agent.procedures.runai_failed.graph" in modules  # it ran
    assert unused_imports(modules) == []


def test_the_check_sees_a_forbidden_module():
    assert unused_imports(["workload_diagnose.agent.service.app", "kubernetes.client", "langgraph", "yamlish",
                           "workload_diagnose.agent.llm_bounds", "workload_diagnose.agent.api"]) == [
        "kubernetes.client", "workload_diagnose.agent.llm_bounds", "workload_diagnose.agent.service.app"]
    assert "mcp" in UNUSED_BY_FAILED
