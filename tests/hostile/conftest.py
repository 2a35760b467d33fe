"""Fixtures of the hostile-server tests: the OOM world they damage, and the real CLI as a subprocess."""
from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from workload_diagnose.evals.hostile import HostileServer

ROOT = Path(__file__).resolve().parents[2]
OOM = ROOT / "evals/scenarios/core/oom-metrics"
CASE = json.loads((OOM / "case.json").read_text())["args"]
WID, CL, NOW = CASE["workload_id"], CASE["cluster_id"], CASE["now"]


@dataclass
class CliRun:
    """One finished CLI subprocess."""

    code: int
    stdout: str
    stderr: str
    seconds: float
    ended_at: float  # time.monotonic() when the process had exited
    json: dict | None = field(default=None)

    def since(self, server: HostileServer) -> float:
        """Seconds from the server's first request (the interpreter's start-up excluded) to the exit."""
        assert server.first_at is not None, "the CLI sent no request"
        return self.ended_at - server.first_at


@pytest.fixture
def oom_world() -> dict:
    """A real scenario world (OOMKilled event, pod, history, metrics): each test damages one endpoint of it."""
    return copy.deepcopy(json.loads((OOM / "world.json").read_text()))


def cli_env(sim=None, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("RUNAI_BASE_URL", "KUBECONFIG", "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "NO_COLOR")}
    if sim is not None:
        env.update(RUNAI_CLIENT_ID=sim.client_id, RUNAI_CLIENT_SECRET=sim.client_secret)
    env.update(extra)
    return env


def cli_args(url: str | None, *more: str) -> list[str]:
    args = ["failed", "--cluster-id", CL, "--workload-id", WID, "--now", NOW, "--no-kube", "--json"]
    return args + (["--runai-url", url] if url else []) + list(more)


def run_cli(args: list[str], env: dict[str, str], limit: float = 60.0) -> CliRun:
    """``workload-diagnose ARGS`` as a real subprocess (the installed console script's module)."""
    t0 = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "workload_diagnose.agent.entrypoints.cli", *args], env=env, capture_output=True,
                       text=True, timeout=limit, cwd=ROOT)
    run = CliRun(p.returncode, p.stdout, p.stderr, time.monotonic() - t0, time.monotonic())
    if p.returncode == 0 and p.stdout.strip().startswith("{"):
        run.json = json.loads(p.stdout)
    return run


def diagnose_at(url: str, sim, **kw):
    """The real diagnosis in-process (real httpx, real sockets) against ``url``, with the simulator's credentials."""
    from workload_diagnose.agent.api import diagnose

    args = dict(cluster_id=CL, workload_id=WID, now=NOW, use_kube=False, runai_url=url, client_id=sim.client_id,
                client_secret=sim.client_secret, retry_sleep=lambda s: None)
    args.update(kw)
    return diagnose(**args)
